package present

import (
	"fmt"
	"strings"

	"github.com/provenant/provenant/shared/wire"
)

// WordingViolations lists every wording rule p breaks as the presentation
// of v (empty when none): "unchanged" only for an exact match; the
// re-encoded and crop phrases for those matches; no failed check on an
// authentic verdict, and no failed not-applicable check; no check whose
// evidence matched a record shown as failed on a verdict that record does
// not vouch for (the revoked panel); no signer named for a file that is
// not authentic; the authentic tone only for an authentic verdict; a
// record-only presentation never reads as verified. Surfaces test their
// rendered words with [TextViolations].
func WordingViolations(v wire.VerifyResponse, p Presentation) []string {
	var out []string
	bad := func(f string, a ...any) { out = append(out, fmt.Sprintf(f, a...)) }
	top := strings.ToLower(p.Headline + " " + p.Explanation + " " + p.MatchText)
	if strings.Contains(top, "unchanged") && v.Match != "exact" {
		bad("says unchanged for match %s: %q", v.Match, p.Headline)
	}
	switch v.Match {
	case "reencoded":
		if !strings.Contains(p.Headline+p.MatchText, PhraseReencoded) {
			bad("re-encoded match does not read %q", PhraseReencoded)
		}
	case "crop":
		if !strings.Contains(p.Headline+p.MatchText, PhraseCrop) {
			bad("crop match does not read %q", PhraseCrop)
		}
	case "contained":
		if !strings.Contains(p.Headline+p.MatchText, "not signed") {
			bad("contained match does not say the surroundings are not signed")
		}
	}
	wc := map[string]wire.Check{wire.CheckWatermark: v.Checks.Watermark, wire.CheckSHA256: v.Checks.SHA256,
		wire.CheckPerceptualHash: v.Checks.PerceptualHash, wire.CheckBlockchain: v.Checks.Blockchain}
	for _, c := range p.Checks {
		if c.State != StateFailed {
			continue
		}
		switch {
		case v.Authentic:
			bad("authentic file shows the %s check failed: %s", c.Name, c.Details)
		case wc[c.Name].NotApplicable:
			bad("not-applicable %s check shown failed", c.Name)
		case linked(c.Name, c.Details):
			bad("%s check matched the record but is shown failed: %s", c.Name, c.Details)
		}
	}
	if !v.Authentic && p.Signer != "" {
		bad("names a signer %q for a file that is not authentic", p.Signer)
	}
	if (p.Tone == ToneAuthentic) != v.Authentic && p.Note == "" {
		bad("tone %s for authentic=%v", p.Tone, v.Authentic)
	}
	if p.Note != "" && (p.Tone == ToneAuthentic || strings.Contains(p.Headline, "Verified") || strings.Contains(p.Headline, "Authentic")) {
		bad("record-only check reads as verified: %q", p.Headline)
	}
	return out
}

// TextViolations checks text a surface rendered for verdict v (its whole
// visible text, any case) against the rules that words can break:
// "unchanged" only for an exact match, the re-encoded and crop phrases,
// a contained match saying its surroundings are not signed,
// and a not-authentic file's panel never calling a matched record's
// evidence "not passed" next to a match ("not passed — exact SHA-256
// match").
func TextViolations(v wire.VerifyResponse, text string) []string {
	var out []string
	low := strings.ToLower(text)
	if strings.Contains(low, "unchanged") && v.Match != "exact" {
		out = append(out, fmt.Sprintf("says unchanged for match %s", v.Match))
	}
	if v.Match == "reencoded" && !strings.Contains(low, PhraseReencoded) {
		out = append(out, "re-encoded match does not read "+PhraseReencoded)
	}
	if v.Match == "crop" && v.Authentic && !strings.Contains(low, PhraseCrop) {
		out = append(out, "crop match does not read "+PhraseCrop)
	}
	if v.Match == "contained" && v.Authentic && !strings.Contains(low, "not signed") {
		out = append(out, "contained match does not say the surroundings are not signed")
	}
	if strings.Contains(low, "not passed") && strings.Contains(low, "exact sha-256 match") {
		out = append(out, "says not passed beside an exact SHA-256 match")
	}
	return out
}
