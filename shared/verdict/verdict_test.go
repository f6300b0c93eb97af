package verdict

import (
	"crypto/ed25519"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/merkle"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
)

var (
	fileSHA = [32]byte{0xaa, 1}
	fileP   = phash.Hash{P64: 0x1234, P256: [4]uint64{0xf0f0f0f0f0f0f0f0, 0x0123456789abcdef, 0, ^uint64(0)}}
	payload = []byte{0xca, 0xfe, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05}
)

// withDistance returns fileP with d bits of the 256-bit hash flipped.
func withDistance(d int) phash.Hash {
	h := fileP
	for i := 0; i < d; i++ {
		h.P256[i/64] ^= 1 << (i % 64)
	}
	return h
}

type spec struct {
	sha    bool   // record SHA-256 equals the file's
	wm     string // "none": no watermark found; "match": record payload found; "other": a different payload found
	dist   int    // perceptual distance between file and record
	anchor string // "none", "confirmed", "unconfirmed", "bad"
	revoke bool
	badSig bool
}

func (s spec) String() string {
	return fmt.Sprintf("sha=%v/wm=%s/dist=%d/anchor=%s/revoked=%v/badsig=%v", s.sha, s.wm, s.dist, s.anchor, s.revoke, s.badSig)
}

func build(t testing.TB, s spec) (Facts, []Candidate) {
	t.Helper()
	priv := fixtureKey(7)
	id, _ := record.ParseID("0190f3a1-7b2c-7d4e-8f00-123456789abc")
	rec := &record.Record{
		ID: id, SHA256: [32]byte{0xbb}, PerceptualHash: withDistance(s.dist),
		SignerPublicKey: priv.Public().(ed25519.PublicKey), Timestamp: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC),
		OriginType: "camera_image", Org: "Example News", WatermarkPayload: payload,
	}
	if s.sha {
		rec.SHA256 = fileSHA
	}
	signed := signFixture(t, priv, rec, s.badSig)
	c := Candidate{Signed: signed, Revoked: s.revoke}
	if s.revoke {
		c.RevokedAt, c.RevokedReason = time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), "key compromised"
	}
	if s.anchor != "none" {
		other := merkle.LeafHash([]byte("other"))
		tree := merkle.Build([]merkle.Hash{other, signed.LeafHash(), other})
		proof, _ := tree.InclusionProof(1)
		a := &record.Anchor{LeafIndex: 1, TreeSize: 3, AuditPath: proof, Root: tree.Root(), TxHash: "0xfeed", BlockNumber: 42}
		if s.anchor == "bad" {
			a.Root = other
		}
		c.Anchor, c.RootConfirmed = a, s.anchor == "confirmed"
	}
	f := Facts{SHA256: fileSHA, PHash: fileP}
	switch s.wm {
	case "match":
		f.Watermark = Watermark{Found: true, Payload: payload, Strength: 0.8, BitErrors: 2}
	case "other":
		f.Watermark = Watermark{Found: true, Payload: []byte{1, 2, 3}, Strength: 0.7}
	}
	return f, []Candidate{c}
}

// TestDecideAllCombinations runs every combination of the inputs and checks
// the rules of the package documentation as invariants.
func TestDecideAllCombinations(t *testing.T) {
	for _, sha := range []bool{false, true} {
		for _, wm := range []string{"none", "match", "other"} {
			for _, dist := range []int{0, 10, phash.NearDistance256, phash.NearDistance256 + 1, 120} {
				for _, anchor := range []string{"none", "confirmed", "unconfirmed", "bad"} {
					for _, revoke := range []bool{false, true} {
						for _, badSig := range []bool{false, true} {
							s := spec{sha, wm, dist, anchor, revoke, badSig}
							t.Run(s.String(), func(t *testing.T) { checkInvariants(t, s) })
						}
					}
				}
			}
		}
	}
}

func checkInvariants(t *testing.T, s spec) {
	f, cands := build(t, s)
	r := Decide(f, cands, Options{})
	near := s.dist <= phash.NearDistance256
	wantMatch := MatchNone
	switch {
	case s.badSig:
	case s.sha:
		wantMatch = MatchExact
	case s.wm == "match":
		// These records carry no local signatures (version 1): the mark
		// (with or without a near hash) is not enough for authentic, and
		// without local evidence of another picture it is no transplant.
		wantMatch = MatchPerceptual
	case near:
		wantMatch = MatchPerceptual
	}
	if r.Match != wantMatch {
		t.Fatalf("Match = %v, want %v", r.Match, wantMatch)
	}
	wantAuth := wantMatch == MatchExact && !s.revoke && s.anchor != "bad"
	if r.Authentic != wantAuth {
		t.Errorf("Authentic = %v, want %v (checks %+v)", r.Authentic, wantAuth, r.Checks)
	}
	if r.Confidence < 0 || r.Confidence > 1 {
		t.Errorf("Confidence = %v outside [0,1]", r.Confidence)
	}
	if r.Authentic && r.Confidence < 0.85 {
		t.Errorf("authentic with Confidence = %v < 0.85", r.Confidence)
	}
	if !r.Authentic && r.Confidence > 0.5 {
		t.Errorf("not authentic with Confidence = %v > 0.5", r.Confidence)
	}
	if (s.revoke || s.anchor == "bad" || wantMatch == MatchNone) && r.Confidence != 0 {
		t.Errorf("Confidence = %v, want 0", r.Confidence)
	}
	if wantMatch == MatchNone {
		if r.Checks.SHA256.Passed || r.Checks.Watermark.Passed || r.Checks.PerceptualHash.Passed || r.Checks.Blockchain.Passed {
			t.Errorf("no match but a check passed: %+v", r.Checks)
		}
		return
	}
	// No endorsement without authenticity: a check passes only for what it
	// proves about this file.
	if got, want := r.Checks.SHA256.Passed, s.sha && wantAuth; got != want {
		t.Errorf("sha256.passed = %v, want %v", got, want)
	}
	if got, want := r.Checks.Watermark.Passed, s.wm == "match" && wantAuth; got != want {
		t.Errorf("watermark.passed = %v, want %v", got, want)
	}
	if got, want := r.Checks.PerceptualHash.Passed, near && wantAuth; got != want {
		t.Errorf("perceptual_hash.passed = %v, want %v", got, want)
	}
	w := r.Wire()
	if !wantAuth && (w.RecordID != "" || w.BlockchainTx != "" || w.Timestamp != "" || w.Resembles == nil || w.Resembles.RecordID == "") {
		t.Errorf("not authentic: Wire() record %q tx %q timestamp %q resembles %+v, want only resembles naming the record",
			w.RecordID, w.BlockchainTx, w.Timestamp, w.Resembles)
	}
	if wantAuth && (w.RecordID == "" || w.Resembles != nil) {
		t.Errorf("authentic: Wire() record %q resembles %+v, want the record and no resembles", w.RecordID, w.Resembles)
	}
	if got, want := r.Checks.Blockchain.Passed, s.anchor == "confirmed" && wantAuth; got != want {
		t.Errorf("blockchain.passed = %v, want %v (%s)", got, want, r.Checks.Blockchain.Details)
	}
	if s.anchor == "none" || s.anchor == "unconfirmed" {
		if !strings.HasPrefix(r.Checks.Blockchain.Details, "pending") {
			t.Errorf("blockchain.details = %q, want pending", r.Checks.Blockchain.Details)
		}
	}
	if s.revoke && !strings.Contains(r.Checks.SHA256.Details+r.Checks.PerceptualHash.Details+r.Checks.Watermark.Details, "revoked") {
		t.Errorf("revoked record but no check says so: %+v", r.Checks)
	}
	// Anchoring never lowers confidence.
	if s.anchor == "confirmed" {
		s2 := s
		s2.anchor = "none"
		f2, c2 := build(t, s2)
		if r2 := Decide(f2, c2, Options{}); r2.Confidence > r.Confidence {
			t.Errorf("anchored confidence %v < pending confidence %v", r.Confidence, r2.Confidence)
		}
	}
}

func TestDecideNamed(t *testing.T) {
	tests := []struct {
		name      string
		s         spec
		authentic bool
		conf      float64
		match     Match
	}{
		{"exact file, anchored", spec{true, "match", 0, "confirmed", false, false}, true, 1.00, MatchExact},
		{"exact file, pending", spec{true, "match", 0, "none", false, false}, true, 0.98, MatchExact},
		{"record without local signatures: watermark + near is derived, not authentic", spec{false, "match", 10, "confirmed", false, false}, false, 0.45, MatchPerceptual},
		{"record without local signatures: watermark + near, pending", spec{false, "match", phash.NearDistance256, "none", false, false}, false, 0.45, MatchPerceptual},
		{"record without local signatures: watermark only is no evidence of a transplant", spec{false, "match", 120, "confirmed", false, false}, false, 0.20, MatchPerceptual},
		{"look-alike: pHash only", spec{false, "none", 0, "confirmed", false, false}, false, 0.45, MatchPerceptual},
		{"revoked exact", spec{true, "match", 0, "confirmed", true, false}, false, 0, MatchExact},
		{"forged anchor", spec{true, "match", 0, "bad", false, false}, false, 0, MatchExact},
		{"bad signature", spec{true, "match", 0, "confirmed", false, true}, false, 0, MatchNone},
		{"unrelated", spec{false, "other", 120, "confirmed", false, false}, false, 0, MatchNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, c := build(t, tt.s)
			r := Decide(f, c, Options{})
			if r.Authentic != tt.authentic || r.Confidence != tt.conf || r.Match != tt.match {
				t.Errorf("Decide() = authentic %v, confidence %v, match %v; want %v, %v, %v\nchecks: %+v",
					r.Authentic, r.Confidence, r.Match, tt.authentic, tt.conf, tt.match, r.Checks)
			}
		})
	}
}

func TestDecidePicksStrongestCandidate(t *testing.T) {
	f, weak := build(t, spec{false, "none", 10, "none", false, false})       // perceptual
	_, strong := build(t, spec{true, "none", 30, "confirmed", false, false}) // exact
	r := Decide(f, []Candidate{weak[0], strong[0]}, Options{})
	if r.Index != 1 || r.Match != MatchExact {
		t.Errorf("Decide() picked %d (%v), want 1 (exact)", r.Index, r.Match)
	}
	if r := Decide(f, []Candidate{weak[0], strong[0]}, Options{MaxCandidates: 1}); r.Index != 0 {
		t.Errorf("Decide(MaxCandidates 1) picked %d, want 0", r.Index)
	}
	if r := Decide(f, nil, Options{}); r.Authentic || r.Index != -1 || r.Record != nil {
		t.Errorf("Decide(no candidates) = %+v", r)
	}
}

func TestWire(t *testing.T) {
	f, c := build(t, spec{true, "match", 0, "confirmed", false, false})
	w := Decide(f, c, Options{}).Wire()
	if !w.Authentic || w.BlockchainTx != "0xfeed" || w.RecordID != "0190f3a1-7b2c-7d4e-8f00-123456789abc" || w.Timestamp != "2026-11-22T12:00:00.000Z" {
		t.Errorf("Wire() = %+v", w)
	}
	f, c = build(t, spec{true, "match", 0, "unconfirmed", false, false})
	if w := Decide(f, c, Options{}).Wire(); w.BlockchainTx != "" {
		t.Errorf("Wire().BlockchainTx = %q for an unconfirmed root, want empty", w.BlockchainTx)
	}
}
