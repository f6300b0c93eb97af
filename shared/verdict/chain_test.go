package verdict

import (
	"crypto/ed25519"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/record"
)

// claim describes one candidate of an ordering test.
type claim struct {
	name     string // also the record id's last digit and the org name
	wm       bool   // its watermark payload is the one found in the file
	sha      bool   // its signed SHA-256 is the file's
	orig     bool   // its uploaded original's SHA-256 is the file's
	dist     int    // perceptual distance to the file
	created  int    // service creation time, minutes (0: unknown)
	anchored int    // anchoring time, minutes (0: pending)
	parent   string // name of its parent claim, as stored beside the record
	signed   string // name of its parent claim, inside the signed record (version 2)
	badSig   bool
}

var chainEpoch = time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)

func claimID(name string) string {
	return fmt.Sprintf("0190f3a1-7b2c-7d4e-8f00-%012x", name[0])
}

func buildClaims(t *testing.T, cs []claim) (Facts, []Candidate) {
	t.Helper()
	priv := fixtureKey(9)
	f := Facts{SHA256: fileSHA, PHash: fileP, Watermark: Watermark{Found: true, Payload: []byte{0xee, 0xee}}}
	// The file is the signed picture block by block: a record whose
	// watermark it carries shows it (local signatures, version 3).
	grid, probe := localFixture()
	f.Local = probe
	var out []Candidate
	for i, c := range cs {
		id, err := record.ParseID(claimID(c.name))
		if err != nil {
			t.Fatal(err)
		}
		rec := &record.Record{ID: id, SHA256: [32]byte{byte(i + 1)}, PerceptualHash: withDistance(c.dist),
			SignerPublicKey: priv.Public().(ed25519.PublicKey), Timestamp: chainEpoch,
			OriginType: "camera_image", Org: c.name, WatermarkPayload: []byte{0x10, byte(i)}, LocalSig: grid}
		if c.sha {
			rec.SHA256 = fileSHA
		}
		if c.signed != "" {
			pid, err := record.ParseID(claimID(c.signed))
			if err != nil {
				t.Fatal(err)
			}
			rec.Parent = &pid
		}
		if c.wm {
			rec.WatermarkPayload = f.Watermark.Payload
		}
		cand := Candidate{Signed: signFixture(t, priv, rec, c.badSig)}
		if c.orig {
			cand.OriginalSHA256 = fileSHA
		}
		if c.created > 0 {
			cand.CreatedAt = chainEpoch.Add(time.Duration(c.created) * time.Minute)
		}
		if c.anchored > 0 {
			cand.AnchoredAt = chainEpoch.Add(time.Duration(c.anchored) * time.Minute)
		}
		if c.parent != "" {
			cand.ParentID = claimID(c.parent)
		}
		out = append(out, cand)
	}
	return f, out
}

func chainOf(r Result) string {
	var parts []string
	for _, l := range r.Chain {
		parts = append(parts, l.Record.Org+":"+string(l.Relation)+"["+strings.Join(l.Evidence, ",")+"]")
	}
	return strings.Join(parts, " → ")
}

// TestDecideWhoSignedFirst checks the ordering rules: the watermark in the
// picture first, then the earliest claim (anchoring time once anchored,
// then creation time), then the strongest match; and the chain's
// relations and evidence.
func TestDecideWhoSignedFirst(t *testing.T) {
	tests := []struct {
		name          string
		claims        []claim
		wantRecord    string
		wantOriginal  string // "" when no chain
		wantAuthentic bool
		wantChain     string
	}{
		{
			name: "watermark beats a later claim by the uploaded original",
			claims: []claim{
				{name: "Copycat", orig: true, dist: 4, created: 2},
				{name: "News", wm: true, dist: 4, created: 1},
			},
			wantRecord: "News", wantOriginal: "News", wantAuthentic: true,
			wantChain: "News:original[watermark,perceptual_hash] → Copycat:resigned_copy[original_sha256,perceptual_hash]",
		},
		{
			name: "watermark beats an exact signed SHA-256 of a later record",
			claims: []claim{
				{name: "Copycat", sha: true, dist: 0, created: 5},
				{name: "News", wm: true, dist: 6, created: 1},
			},
			wantRecord: "News", wantOriginal: "News", wantAuthentic: true,
			wantChain: "News:original[watermark,perceptual_hash] → Copycat:resigned_copy[sha256,perceptual_hash]",
		},
		{
			name: "watermark names the record even when an earlier one matches by perceptual hash",
			claims: []claim{
				{name: "Early", dist: 20, created: 1},
				{name: "Marked", wm: true, dist: 8, created: 3},
			},
			wantRecord: "Marked", wantOriginal: "Marked", wantAuthentic: true,
			wantChain: "Early:earlier_match[perceptual_hash] → Marked:original[watermark,perceptual_hash]",
		},
		{
			name: "no watermark: the stronger later match answers, the earliest claim stays the chain's original",
			claims: []claim{
				{name: "Copycat", sha: true, dist: 0, created: 9},
				{name: "News", dist: 12, created: 2},
			},
			wantRecord: "Copycat", wantOriginal: "News", wantAuthentic: true,
			wantChain: "News:original[perceptual_hash] → Copycat:resigned_copy[sha256,perceptual_hash]",
		},
		{
			name: "an anchored claim precedes a pending one as the chain's original; the exact match answers",
			claims: []claim{
				{name: "Pending", sha: true, created: 1},
				{name: "Anchored", dist: 10, created: 2, anchored: 3},
			},
			wantRecord: "Pending", wantOriginal: "Anchored", wantAuthentic: true,
			wantChain: "Anchored:original[perceptual_hash] → Pending:resigned_copy[sha256,perceptual_hash]",
		},
		{
			name: "both anchored: the anchoring time decides, not creation",
			claims: []claim{
				{name: "First", dist: 10, created: 1, anchored: 30},
				{name: "Second", dist: 10, created: 2, anchored: 20},
			},
			wantRecord: "Second", wantOriginal: "Second", wantAuthentic: false,
			wantChain: "Second:original[perceptual_hash] → First:resigned_copy[perceptual_hash]",
		},
		{
			name: "no times known: the strongest match wins, as before",
			claims: []claim{
				{name: "Weak", dist: 10},
				{name: "Exact", sha: true, dist: 30},
			},
			wantRecord: "Exact", wantOriginal: "Exact", wantAuthentic: true,
			wantChain: "Exact:original[sha256,perceptual_hash] → Weak:resigned_copy[perceptual_hash]",
		},
		{
			name: "equal times: a parent is the chain's original; the derivative's original upload answers",
			claims: []claim{
				{name: "Derived", orig: true, dist: 4, created: 3, parent: "News"},
				{name: "News", dist: 4, created: 3},
			},
			wantRecord: "Derived", wantOriginal: "News", wantAuthentic: true,
			wantChain: "News:original[perceptual_hash] → Derived:derivative[original_sha256,perceptual_hash,parent_link]",
		},
		{
			name: "equal times: an original is the chain's original before another signer's derivative; the exact match answers",
			claims: []claim{
				{name: "Derived", sha: true, created: 3, parent: "Elsewhere"},
				{name: "Plain", dist: 9, created: 3},
			},
			wantRecord: "Derived", wantOriginal: "Plain", wantAuthentic: true,
			wantChain: "Plain:original[perceptual_hash] → Derived:resigned_copy[sha256,perceptual_hash]",
		},
		{
			name: "declared derivative: its parent is the original of the chain",
			claims: []claim{
				{name: "Derived", wm: true, sha: true, created: 4, parent: "News"},
				{name: "News", dist: 200, created: 1},
			},
			wantRecord: "Derived", wantOriginal: "News", wantAuthentic: true,
			wantChain: "News:original[parent_link] → Derived:derivative[watermark,sha256,perceptual_hash,parent_link]",
		},
		{
			name: "a parent inside the signed record counts without a stored link",
			claims: []claim{
				{name: "Derived", wm: true, sha: true, created: 4, signed: "News"},
				{name: "News", dist: 200, created: 1},
			},
			wantRecord: "Derived", wantOriginal: "News", wantAuthentic: true,
			wantChain: "News:original[parent_link] → Derived:derivative[watermark,sha256,perceptual_hash,parent_link]",
		},
		{
			name: "the signed parent wins over a different stored one",
			claims: []claim{
				{name: "Derived", wm: true, sha: true, created: 4, signed: "News", parent: "Other"},
				{name: "News", dist: 200, created: 1},
				{name: "Other", dist: 200, created: 2},
			},
			wantRecord: "Derived", wantOriginal: "News", wantAuthentic: true,
			wantChain: "News:original[parent_link] → Derived:derivative[watermark,sha256,perceptual_hash,parent_link]",
		},
		{
			name: "derivative of a derivative: the root is the original",
			claims: []claim{
				{name: "Grandchild", wm: true, dist: 2, created: 7, parent: "Child"},
				{name: "Child", dist: 200, created: 4, parent: "Root"},
				{name: "Root", dist: 200, created: 1},
			},
			wantRecord: "Grandchild", wantOriginal: "Root", wantAuthentic: true,
			wantChain: "Root:original[parent_link] → Child:derivative[parent_link] → Grandchild:derivative[watermark,perceptual_hash,parent_link]",
		},
		{
			name: "a parent cycle does not loop",
			claims: []claim{
				{name: "A", wm: true, dist: 2, created: 1, parent: "B"},
				{name: "B", dist: 3, created: 2, parent: "A"},
			},
			wantRecord: "A", wantOriginal: "B", wantAuthentic: true,
			wantChain: "A:derivative[watermark,perceptual_hash,parent_link] → B:original[perceptual_hash,parent_link]",
		},
		{
			name: "a claim with an invalid signature is ignored, however early",
			claims: []claim{
				{name: "Forged", sha: true, created: 1, badSig: true},
				{name: "News", dist: 10, created: 2},
			},
			wantRecord: "News", wantAuthentic: false,
		},
		{
			name:       "one record: no chain",
			claims:     []claim{{name: "News", wm: true, dist: 3, created: 1}},
			wantRecord: "News", wantAuthentic: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, cands := buildClaims(t, tt.claims)
			r := Decide(f, cands, Options{})
			if msg := wrongAnswer(r, tt.wantRecord, tt.wantAuthentic); msg != "" {
				t.Fatal(msg)
			}
			w := r.Wire()
			wantOrig := ""
			if tt.wantOriginal != "" {
				wantOrig = claimID(tt.wantOriginal)
			}
			if w.OriginalRecordID != wantOrig {
				t.Errorf("original_record_id = %q, want %q (%s)", w.OriginalRecordID, wantOrig, tt.wantOriginal)
			}
			if got := chainOf(r); got != tt.wantChain {
				t.Errorf("chain = %s\nwant    %s", got, tt.wantChain)
			}
			if len(w.Chain) != len(r.Chain) {
				t.Errorf("Wire().Chain has %d links, want %d", len(w.Chain), len(r.Chain))
			}
		})
	}
}
