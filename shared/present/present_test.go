package present_test

import (
	"encoding/json"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/provenant/provenant/shared/present"
	"github.com/provenant/provenant/shared/present/presenttest"
	"github.com/provenant/provenant/shared/wire"
)

var update = flag.Bool("update", false, "rewrite the golden presentations in testdata/")

// TestGolden presents every verify response of testdata/*.verify.json
// (verdicts of each match kind, revoked records and keys, derivative
// chains, pending anchoring, record-only) and compares the result with
// the .present.json beside it; every result must also keep the wording
// rules.
func TestGolden(t *testing.T) {
	presenttest.Verdicts(t, "testdata", func(t *testing.T, name string, v wire.VerifyResponse) {
		opt := present.Options{RecordOnly: strings.HasSuffix(name, "-record-only")}
		p := present.Present(v, opt)
		for _, msg := range present.WordingViolations(v, p) {
			t.Error(msg)
		}
		got, _ := json.MarshalIndent(p, "", "  ")
		presenttest.Golden(t, filepath.Join("testdata", name+".present.json"), append(got, '\n'), *update)
	})
}

func resp(authentic bool, match string, ch wire.Checks) wire.VerifyResponse {
	return wire.VerifyResponse{Authentic: authentic, Match: match, Checks: ch}
}

// TestWordingRules: each rule catches the presentation that breaks it,
// and the presentations of typical verdicts keep every rule.
func TestWordingRules(t *testing.T) {
	pending := wire.Check{Details: "pending: record r1 is not anchored yet"}
	reenc := resp(true, "reencoded", wire.Checks{
		Watermark:      wire.Check{Passed: true, Details: "watermark payload 01 matches record r1 (strength 0.50, 0 bit errors corrected)"},
		SHA256:         wire.Check{Details: "SHA-256 differs from record r1: the file was re-encoded or altered"},
		PerceptualHash: wire.Check{Passed: true, Details: "near perceptual hash match with record r1 (distance 3/256, threshold 40)"},
		Blockchain:     pending,
	})
	p := present.Present(reenc, present.Options{})
	if p.Tone != present.ToneAuthentic || strings.Contains(strings.ToLower(p.Headline+p.Explanation), "unchanged") ||
		!strings.Contains(p.Headline, present.PhraseReencoded) {
		t.Errorf("re-encoded reads %q / %q", p.Headline, p.Explanation)
	}
	for _, c := range p.Checks {
		if c.State == present.StateFailed {
			t.Errorf("authentic file shows a failed %s check: %+v", c.Name, c)
		}
	}
	if v := present.WordingViolations(reenc, p); len(v) != 0 {
		t.Errorf("violations: %v", v)
	}

	revoked := resp(false, "exact", wire.Checks{
		SHA256:     wire.Check{Details: "exact SHA-256 match with record r1; record r1 was revoked at 2026-01-02T00:00:00.000Z (x)"},
		Blockchain: pending,
	})
	revoked.Resembles = &wire.Resemblance{RecordID: "r1", Relation: wire.RelationRevoked, ClaimedBy: "Org A", Detail: "d"}
	p = present.Present(revoked, present.Options{})
	if p.Tone != present.ToneNotAuthentic || p.Signer != "" || p.Checks[1].State != present.StateNotApplicable {
		t.Errorf("revoked reads %+v", p)
	}
	if v := present.WordingViolations(revoked, p); len(v) != 0 {
		t.Errorf("violations: %v", v)
	}

	// The rules catch what they forbid.
	bad := present.Present(reenc, present.Options{})
	bad.Headline = "Authentic — Signed and unchanged"
	bad.Checks[3].State = present.StateFailed
	if v := present.WordingViolations(reenc, bad); len(v) != 2 {
		t.Errorf("violations of a broken presentation: %v, want 2", v)
	}
	badRevoked := present.Present(revoked, present.Options{})
	badRevoked.Checks[1].State = present.StateFailed
	badRevoked.Signer = "Org A"
	if v := present.WordingViolations(revoked, badRevoked); len(v) != 2 {
		t.Errorf("violations of a broken revoked presentation: %v, want 2", v)
	}
	contained := resp(true, "contained", wire.Checks{Watermark: wire.Check{Passed: true, Details: "watermark payload 01 matches record r1"}})
	contained.Contained = &wire.Containment{Region: wire.Region{Y: 0.2, W: 1, H: 0.8}, Unvouched: 0.2}
	if v := present.WordingViolations(contained, present.Present(contained, present.Options{})); len(v) != 0 {
		t.Errorf("contained violations: %v", v)
	}
	if v := present.TextViolations(contained, "Authentic — the picture signed by Org A"); len(v) != 1 {
		t.Errorf("a contained text without the caveat: %v, want 1 violation", v)
	}
	ro := present.Present(resp(true, "exact", wire.Checks{SHA256: wire.Check{Passed: true, Details: "exact SHA-256 match with record r1"}}), present.Options{RecordOnly: true})
	if ro.Headline != present.RecordOnlyHeadline || ro.Tone == present.ToneAuthentic || strings.Contains(ro.Headline, "Verified") {
		t.Errorf("record only reads %+v", ro)
	}
}

// TestContainedWordingNegative: a contained match whose presentation or
// rendered text leaves out that the surroundings are not signed is
// flagged, by exactly that rule; the wording the package produces, and a
// text that keeps the caveat, are not.
func TestContainedWordingNegative(t *testing.T) {
	v := resp(true, "contained", wire.Checks{Watermark: wire.Check{Passed: true, Details: "watermark payload 01 matches record r1"}})
	v.Contained = &wire.Containment{Region: wire.Region{X: 0.1, Y: 0.2, W: 0.8, H: 0.7}, Unvouched: 0.44}
	good := present.Present(v, present.Options{})
	if got := present.WordingViolations(v, good); len(got) != 0 {
		t.Fatalf("the package's own contained wording is flagged: %v", got)
	}
	const rule = "contained match does not say the surroundings are not signed"
	tests := []struct {
		name     string
		headline string
		match    string
		want     []string
	}{
		{"as produced", good.Headline, good.MatchText, nil},
		{"headline alone keeps the caveat", "Authentic picture — surroundings not signed", "the signed picture inside a larger file", nil},
		{"match text alone keeps the caveat", "Authentic picture", present.PhraseContained, nil},
		{"caveat omitted", "Authentic picture", "the signed picture inside a larger file", []string{rule}},
		{"reads as a re-encoded copy", "Authentic — " + present.PhraseReencoded, present.PhraseReencoded, []string{rule}},
		{"surroundings vouched for", "Authentic — the whole file is signed", "signed picture with its caption", []string{rule}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := good
			p.Headline, p.MatchText = tc.headline, tc.match
			got := present.WordingViolations(v, p)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("WordingViolations = %q, want %q", got, tc.want)
			}
		})
	}
	texts := []struct {
		text string
		want int
	}{
		{"Authentic picture — surroundings not signed. Signed by Org A.", 0},
		{"AUTHENTIC PICTURE — SURROUNDINGS NOT SIGNED", 0},
		{"Authentic — the picture signed by Org A, inside a larger file", 1},
		{"Authentic — " + present.PhraseReencoded, 1},
	}
	for _, tc := range texts {
		got := present.TextViolations(v, tc.text)
		if len(got) != tc.want || (tc.want == 1 && got[0] != rule) {
			t.Errorf("TextViolations(%q) = %q, want %d violation(s) of the contained rule", tc.text, got, tc.want)
		}
	}
}
