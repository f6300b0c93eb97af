package verdict

import (
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/wire"
)

const testRecordID = "0190f3a1-7b2c-7d4e-8f00-123456789abc"

// allChecks returns the four checks with their names.
func allChecks(ch wire.Checks) map[string]wire.Check {
	return map[string]wire.Check{"watermark": ch.Watermark, "sha256": ch.SHA256, "perceptual_hash": ch.PerceptualHash, "blockchain": ch.Blockchain}
}

// TestNoEndorsementWithoutAuthenticity: a verdict that is not authentic
// names the record it found only in resembles, with the relation, and no
// check passes for it (docs/verification.md, "No endorsement without
// authenticity").
func TestNoEndorsementWithoutAuthenticity(t *testing.T) {
	tests := []struct {
		name         string
		s            spec
		wantRelation string
		wantDetail   string // a substring of resembles.detail
		wantChain    string // a substring of the blockchain check's details
	}{
		{"watermark in a picture far from the signed one, no local signatures: derived, not accused", spec{false, "match", 120, "confirmed", false, false},
			wire.RelationDerived, "the content may differ", "is anchored (tx 0xfeed, block 42); this file is not shown to be that record"},
		{"perceptual look-alike", spec{false, "none", 10, "confirmed", false, false},
			wire.RelationPerceptualLookalike, "neither its watermark nor its bytes", "this file is not shown to be that record"},
		{"look-alike, record pending", spec{false, "none", 10, "none", false, false},
			wire.RelationPerceptualLookalike, "look-alike", "pending"},
		{"revoked exact copy", spec{true, "match", 0, "confirmed", true, false},
			wire.RelationRevoked, "revoked it at 2026-11-23T00:00:00.000Z (key compromised)", "this file is not shown to be that record"},
		{"anchoring proof does not verify", spec{true, "match", 0, "bad", false, false},
			wire.RelationProofInvalid, "does not verify", "Merkle proof failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, c := build(t, tt.s)
			r := Decide(f, c, Options{})
			if r.Authentic {
				t.Fatalf("Decide() authentic, want not authentic")
			}
			for name, ch := range allChecks(r.Checks) {
				if ch.Passed {
					t.Errorf("check %s passed (%s), want no check passed for a file that is not authentic", name, ch.Details)
				}
			}
			if got := r.Checks.Blockchain.Details; !strings.Contains(got, tt.wantChain) {
				t.Errorf("blockchain details = %q, want it to contain %q", got, tt.wantChain)
			}
			w := r.Wire()
			if w.RecordID != "" || w.BlockchainTx != "" || w.Timestamp != "" || w.Signer != nil || w.Origin != nil {
				t.Errorf("Wire() record %q tx %q timestamp %q signer %v origin %v, want none of them", w.RecordID, w.BlockchainTx, w.Timestamp, w.Signer, w.Origin)
			}
			if w.Resembles == nil {
				t.Fatalf("Wire().Resembles = nil, want the record found")
			}
			if got := *w.Resembles; got.RecordID != testRecordID || got.Relation != tt.wantRelation || got.ClaimedBy != "Example News" ||
				!strings.Contains(got.Detail, tt.wantDetail) {
				t.Errorf("resembles = %+v, want record %s, relation %s, claimed_by Example News, detail containing %q",
					got, testRecordID, tt.wantRelation, tt.wantDetail)
			}
		})
	}
}

// TestNoMatchNamesNoRecord: a file that matches nothing gets no record id
// and no signer anywhere in the answer, details included (finding 7).
func TestNoMatchNamesNoRecord(t *testing.T) {
	tests := []struct {
		name string
		s    spec
	}{
		{"far picture, another payload", spec{false, "other", 120, "confirmed", false, false}},
		{"far picture, no watermark", spec{false, "none", 120, "none", false, false}},
		{"just above the threshold", spec{false, "none", 65, "confirmed", false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, c := build(t, tt.s)
			r := Decide(f, c, Options{})
			if r.Match != MatchNone || r.Record != nil || r.Index != -1 {
				t.Fatalf("Decide() match %v record %v index %d, want none, nil, -1", r.Match, r.Record, r.Index)
			}
			for name, ch := range allChecks(r.Checks) {
				if ch.Passed || strings.Contains(ch.Details, testRecordID) || strings.Contains(ch.Details, "closest") {
					t.Errorf("check %s = %+v, want not passed and no record named", name, ch)
				}
			}
			if w := r.Wire(); w.RecordID != "" || w.Resembles != nil || w.Signer != nil {
				t.Errorf("Wire() = %+v, want no record, resembles or signer", w)
			}
		})
	}
}

// TestOriginalHashIsTheServicesWord: a match by the SHA-256 of the
// unwatermarked upload only is authentic below every signed match, never
// confidence 1, and the blockchain check does not pass for it.
func TestOriginalHashIsTheServicesWord(t *testing.T) {
	tests := []struct {
		name     string
		s        spec
		wantConf float64
		wantBC   bool
	}{
		{"original upload, record anchored", spec{false, "none", 0, "confirmed", false, false}, ConfidenceOriginal, false},
		{"original upload, record pending", spec{false, "none", 0, "none", false, false}, ConfidenceOriginal, false},
		{"original upload far from the signed hash", spec{false, "none", 120, "confirmed", false, false}, ConfidenceOriginal, false},
		{"original upload that also carries the watermark", spec{false, "match", 0, "confirmed", false, false}, 0.98, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, c := build(t, tt.s)
			c[0].OriginalSHA256 = f.SHA256
			r := Decide(f, c, Options{})
			if !r.Authentic || !r.ByOriginal || r.Confidence != tt.wantConf {
				t.Fatalf("Decide() authentic %v by original %v confidence %v, want true true %v", r.Authentic, r.ByOriginal, r.Confidence, tt.wantConf)
			}
			if r.Checks.Blockchain.Passed != tt.wantBC || r.Anchored != tt.wantBC {
				t.Errorf("blockchain passed %v anchored %v (%s), want %v", r.Checks.Blockchain.Passed, r.Anchored, r.Checks.Blockchain.Details, tt.wantBC)
			}
			if !tt.wantBC && tt.s.anchor == "confirmed" && !strings.Contains(r.Checks.Blockchain.Details, "only by the service's record of the original upload") {
				t.Errorf("blockchain details = %q, want it to say the link is the service's record of the original", r.Checks.Blockchain.Details)
			}
			if !strings.Contains(r.Checks.SHA256.Details, "not covered by the signature") {
				t.Errorf("sha256 details = %q, want it to say the original's hash is not covered by the signature", r.Checks.SHA256.Details)
			}
			if w := r.Wire(); (w.BlockchainTx != "") != tt.wantBC {
				t.Errorf("Wire().BlockchainTx = %q, want set: %v", w.BlockchainTx, tt.wantBC)
			}
		})
	}
}

// TestStrength: the evidence order, strongest first.
func TestStrength(t *testing.T) {
	type ev struct{ sha, wm, near, orig bool }
	order := []struct {
		name string
		e    ev
	}{
		{"watermark in the signed picture + original upload", ev{wm: true, near: true, orig: true}},
		{"signed SHA-256", ev{sha: true}},
		{"watermark only", ev{wm: true}},
		{"near perceptual hash + original upload", ev{near: true, orig: true}},
		{"near perceptual hash", ev{near: true}},
		{"original upload only", ev{orig: true}},
		{"nothing", ev{}},
	}
	for i := 1; i < len(order); i++ {
		a, b := order[i-1], order[i]
		sa, sb := Strength(a.e.sha, a.e.wm, a.e.near, a.e.orig), Strength(b.e.sha, b.e.wm, b.e.near, b.e.orig)
		if sa < sb {
			t.Errorf("Strength(%s) = %d < Strength(%s) = %d, want at least as strong", a.name, sa, b.name, sb)
		}
	}
	if s1, s2 := Strength(true, false, false, false), Strength(false, true, true, false); s1 != s2 {
		t.Errorf("signed SHA-256 %d != watermark in the signed picture %d, want equal (time decides between them)", s1, s2)
	}
	if s1, s2 := Strength(false, false, true, true), Strength(false, true, false, false); s1 >= s2 {
		t.Errorf("original upload + perceptual %d >= watermark %d, want the signed watermark stronger", s1, s2)
	}
}

// TestRevocationIsTheRevokers: a revoked record yields to an active one of
// equal evidence and never to weaker evidence of another record; the
// answer does not depend on record ids or on the candidates' order.
func TestRevocationIsTheRevokers(t *testing.T) {
	tests := []struct {
		name          string
		claims        []claim
		revoked       []string
		wantRecord    string
		wantAuthentic bool
	}{
		{"revoke then re-sign the same picture (re-signature has the larger id)",
			[]claim{{name: "A", orig: true, dist: 0}, {name: "Z", orig: true, dist: 0}}, []string{"A"}, "Z", true},
		{"revoke then re-sign the same picture (re-signature has the smaller id)",
			[]claim{{name: "Z", orig: true, dist: 0}, {name: "A", orig: true, dist: 0}}, []string{"Z"}, "A", true},
		{"same, earlier revoked claim and same times",
			[]claim{{name: "Z", orig: true, dist: 0, created: 1}, {name: "A", orig: true, dist: 0, created: 1}}, []string{"Z"}, "A", true},
		{"another account's revoked record does not override the watermark",
			[]claim{{name: "Mallory", orig: true, dist: 0, created: 2}, {name: "News", wm: true, dist: 4, created: 1}}, []string{"Mallory"}, "News", true},
		{"another account's revoked exact copy does not override the earlier watermark",
			[]claim{{name: "Mallory", sha: true, dist: 0, created: 2}, {name: "News", wm: true, dist: 4, created: 1}}, []string{"Mallory"}, "News", true},
		{"the watermark's own revocation stands: no weaker record takes over",
			[]claim{{name: "Mallory", orig: true, dist: 0, created: 2}, {name: "News", wm: true, dist: 4, created: 1}}, []string{"News"}, "News", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, cands := buildClaims(t, tt.claims)
			for i := range cands {
				for _, name := range tt.revoked {
					if tt.claims[i].name == name {
						cands[i].Revoked, cands[i].RevokedReason = true, "photo is staged - withdrawn"
					}
				}
			}
			for _, order := range [][]Candidate{cands, {cands[1], cands[0]}} {
				r := Decide(f, order, Options{})
				if msg := wrongAnswer(r, tt.wantRecord, tt.wantAuthentic); msg != "" {
					t.Error(msg)
				}
			}
		})
	}
}

// TestTimeOfRecord: once the blockchain check passes, the timestamp is the
// anchoring time, not the time the record claims.
func TestTimeOfRecord(t *testing.T) {
	f, c := build(t, spec{true, "match", 0, "confirmed", false, false})
	c[0].AnchoredAt = time.Date(2026, 11, 22, 12, 5, 0, 0, time.UTC)
	if w := Decide(f, c, Options{}).Wire(); w.Timestamp != "2026-11-22T12:05:00.000Z" {
		t.Errorf("anchored: timestamp = %q, want the anchoring time 2026-11-22T12:05:00.000Z", w.Timestamp)
	}
	f, c = build(t, spec{true, "match", 0, "unconfirmed", false, false})
	c[0].AnchoredAt = time.Date(2026, 11, 22, 12, 5, 0, 0, time.UTC)
	if w := Decide(f, c, Options{}).Wire(); w.Timestamp != "2026-11-22T12:00:00.000Z" {
		t.Errorf("unconfirmed root: timestamp = %q, want the record's own 2026-11-22T12:00:00.000Z", w.Timestamp)
	}
}
