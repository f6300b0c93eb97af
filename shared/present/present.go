// Package present turns a verdict (wire.VerifyResponse) into what people
// read: a headline, a tone, a one-line explanation, each check as passed,
// failed or not applicable with its reason, and the provenance chain in
// words. Every surface that shows a verdict (the widget, the web app, the
// certificate page, the badges, the CLI, the SDK) renders this, so the
// words cannot drift from the verdict. The WebAssembly module exports it
// as `present` (docs/widget.md).
//
// Wording rules (tested): "unchanged" is said only of an exact match; a
// re-encoded match reads "the same picture, re-encoded or resized"; a
// crop "a crop of the signed picture"; a check that does not apply, or
// that an authentic verdict does not rest on (anchoring pending, the
// bytes of a re-encoded copy), is not applicable, never failed; a
// not-authentic verdict never names the record's signer as the file's.
package present

import (
	"fmt"
	"strings"

	"github.com/provenant/provenant/shared/rfc3339"
	"github.com/provenant/provenant/shared/wire"
)

// Tone is how a surface colours the verdict.
type Tone string

// Tones.
const (
	// ToneAuthentic: the file is shown to be signed content.
	ToneAuthentic Tone = "authentic"
	// ToneCaution: a signed record is linked but the file is not shown to
	// be it (an edit, a look-alike), or only the record was checked.
	ToneCaution Tone = "caution"
	// ToneNotAuthentic: the record found disowns the file (revoked,
	// inconsistent proof, a mark in another picture).
	ToneNotAuthentic Tone = "not_authentic"
	// ToneNeutral: nothing was found; that says nothing either way.
	ToneNeutral Tone = "neutral"
)

// State is the tri-state of one check.
type State string

// States of a check.
const (
	StatePassed        State = "passed"
	StateFailed        State = "failed"
	StateNotApplicable State = "not_applicable"
)

// Match phrases: how the file relates to the record, in words. Exact is
// the only one that says "unchanged".
const (
	PhraseExact     = "signed and unchanged"
	PhraseReencoded = "the same picture, re-encoded or resized"
	PhraseCrop      = "a crop of the signed picture"
	// PhraseContained says both halves of a contained match: the signed
	// picture is there, and what surrounds it is nobody's signed word (a
	// caption bar, a screenshot's interface).
	PhraseContained  = "the signed picture inside a larger file; the surroundings are not signed"
	PhraseEdited     = "an edited version of the signed picture"
	PhraseMismatch   = "carries a signed watermark, but is not the signed picture"
	PhrasePerceptual = "looks like a signed picture"
	PhraseNone       = "no signed record found"
)

// Check is one check as people read it.
type Check struct {
	// Name is the check's key in the verify response (watermark, sha256,
	// perceptual_hash, blockchain); Label its name for people.
	Name  string `json:"name"`
	Label string `json:"label"`
	State State  `json:"state"`
	// Summary is one short sentence for the state; Reason says why a
	// check failed or does not apply (empty when passed).
	Summary string `json:"summary"`
	Reason  string `json:"reason,omitempty"`
	// Details is the verify response's details, verbatim.
	Details string `json:"details"`
}

// Presentation is a verdict in words.
type Presentation struct {
	Headline string `json:"headline"`
	Tone     Tone   `json:"tone"`
	// Explanation is one line saying what the headline rests on.
	Explanation string `json:"explanation"`
	// Match is the verify response's match; MatchText its phrase.
	Match     string `json:"match"`
	MatchText string `json:"match_text"`
	// Signer is the line naming who signed the file, only when authentic
	// (wire.Signer.Display, else the organisation name).
	Signer string `json:"signer,omitempty"`
	// Checks are the four checks in the order watermark, sha256,
	// perceptual_hash, blockchain.
	Checks []Check `json:"checks"`
	// Chain is the provenance chain in words ("First signed by A on …;
	// this copy re-signed by B on …"), empty without a chain.
	Chain string `json:"chain,omitempty"`
	// KeyRule says which key-revocation rule applied, in words, when the
	// signing key was revoked.
	KeyRule string `json:"key_rule,omitempty"`
	// Note is a caveat to show beside the headline (record-only checks).
	Note string `json:"note,omitempty"`
}

// Options change what Present says.
type Options struct {
	// RecordOnly is true when the file's bytes or pixels were not checked,
	// only the record named beside it (a badge on an image it cannot
	// read): the verdict then never reads as "Verified".
	RecordOnly bool `json:"record_only,omitempty"`
}

// RecordOnlyHeadline is the headline of a record-only check.
const RecordOnlyHeadline = "Record only — this picture was not checked"

// Present turns v into words. It is a pure function of its inputs.
func Present(v wire.VerifyResponse, opt Options) Presentation {
	p := Presentation{Match: v.Match, MatchText: matchPhrase(v.Match)}
	p.Headline, p.Tone, p.Explanation = headline(v)
	if v.Authentic && v.Signer != nil {
		p.Signer = signerLine(v.Signer)
	}
	p.Checks = checks(v)
	p.Chain = chainText(v)
	p.KeyRule = keyRule(v.KeyRevocation)
	if opt.RecordOnly {
		p.Headline, p.Tone = RecordOnlyHeadline, ToneCaution
		p.Explanation = "A record exists" + byName(v) + ", but this picture could not be read, so nothing here shows that it is the picture the record signed."
		p.Note = "Only the record was checked, not this picture: the picture could not be read (a cross-origin image served without CORS). " +
			"The record says nothing about whether this is the picture it signed."
		p.Signer = ""
		for i := range p.Checks {
			if p.Checks[i].State == StatePassed && (p.Checks[i].Name != wire.CheckBlockchain) {
				p.Checks[i].State = StateNotApplicable
				p.Checks[i].Summary, p.Checks[i].Reason = "Not checked", "this picture was not checked"
			}
		}
	}
	return p
}

func matchPhrase(m string) string {
	switch m {
	case "exact":
		return PhraseExact
	case "reencoded":
		return PhraseReencoded
	case "crop":
		return PhraseCrop
	case "contained":
		return PhraseContained
	case "edited":
		return PhraseEdited
	case "mismatch":
		return PhraseMismatch
	case "perceptual":
		return PhrasePerceptual
	}
	return PhraseNone
}

func signerLine(s *wire.Signer) string {
	if s.Display != "" {
		return s.Display
	}
	return s.OrgName
}

// unvouched says how much of the file lies outside a contained signed
// picture, in whole percent ("" when unknown).
func unvouched(c *wire.Containment) string {
	if c == nil || c.Unvouched <= 0 {
		return ""
	}
	return fmt.Sprintf("; %d %% of the file lies outside it", max(1, int(c.Unvouched*100+0.5)))
}

func byName(v wire.VerifyResponse) string {
	if v.Signer != nil {
		return " by " + signerLine(v.Signer)
	}
	return ""
}

func headline(v wire.VerifyResponse) (string, Tone, string) {
	if v.Authentic {
		by := byName(v)
		var h, e string
		switch v.Match {
		case "exact":
			h, e = "Authentic — signed and unchanged", "This file is byte for byte the file signed"+by+"."
			if strings.Contains(v.Checks.SHA256.Details, "original (unwatermarked)") {
				h, e = "Authentic — the signer's original upload", "This file is the original upload signed"+by+
					", before the service watermarked it (the service's record of that upload; the signature does not cover it)."
			}
		case "reencoded":
			h, e = "Authentic — "+PhraseReencoded, "This is the picture signed"+by+", re-encoded or resized: its bytes differ, its content does not."
		case "crop":
			h, e = "Authentic — "+PhraseCrop, "This file shows part of the picture signed"+by+"; the part it shows matches the signed picture block by block."
		case "contained":
			h, e = "Authentic picture — surroundings not signed", "The picture signed"+by+" is in this file and matches it block by block"+
				unvouched(v.Contained)+": nothing outside the signed picture (text, captions, an interface around it) is vouched for."
		default:
			h, e = "Authentic", "This file matches the record signed"+by+"."
		}
		if v.KeyRevocation != nil {
			e += " Its signing key was later revoked; " + keyRule(v.KeyRevocation) + "."
		}
		return h, ToneAuthentic, e
	}
	claimed := ""
	if r := v.Resembles; r != nil && r.ClaimedBy != "" {
		claimed = " signed by " + r.ClaimedBy
	}
	if r := v.Resembles; r != nil {
		switch r.Relation {
		case wire.RelationRevoked:
			if k := v.KeyRevocation; k != nil && k.AwaitingAnchor {
				return "Not yet authentic — waiting for anchoring", ToneCaution,
					"This file matches a record" + claimed + " received before its signing key was retired; it counts once its batch is anchored on the blockchain."
			}
			if v.KeyRevocation != nil && !v.KeyRevocation.Valid() {
				return "Not authentic — signing key revoked", ToneNotAuthentic,
					"This file matches a record" + claimed + ", but the key that signed it was revoked and the record is not dated before that: " + v.KeyRevocation.Detail + "."
			}
			return "Not authentic — record revoked", ToneNotAuthentic,
				"This file matches a record" + claimed + ", but its signer revoked that record: the signer no longer vouches for it."
		case wire.RelationProofInvalid:
			return "Not authentic — inconsistent evidence", ToneNotAuthentic,
				"The anchoring proof of the record" + claimed + " does not verify, so nothing it says can be relied on."
		case wire.RelationWatermarkTransplant:
			return "Not authentic — mark in another picture", ToneNotAuthentic,
				"This file carries the watermark of a record" + claimed + ", but it is not the signed picture: the mark does not show who made it."
		}
	}
	switch v.Match {
	case "edited":
		return "Not authentic — edited", ToneCaution,
			"This is " + PhraseEdited + claimed + ": some parts were changed, so it is no longer what was signed."
	case "mismatch":
		return "Not authentic — mark in another picture", ToneNotAuthentic,
			"This file carries the watermark of a record" + claimed + ", but it is not the signed picture."
	case "perceptual":
		return "Not verified — looks like signed content", ToneCaution,
			"This picture resembles a record" + claimed + ", but nothing covered by a signature shows it to be that picture: it may be a derivative or a look-alike."
	case "exact", "reencoded", "crop":
		return "Not authentic", ToneNotAuthentic, "This file matches a record" + claimed + " that does not vouch for it."
	}
	return "No record found", ToneNeutral,
		"No signed record matches this file. That says nothing about where it came from: most files are never signed."
}

// Labels of the checks.
var labels = map[string]string{
	wire.CheckWatermark:      "Watermark",
	wire.CheckSHA256:         "Exact file (SHA-256)",
	wire.CheckPerceptualHash: "Picture (perceptual hash)",
	wire.CheckBlockchain:     "Blockchain anchoring",
}

func checks(v wire.VerifyResponse) []Check {
	in := []struct {
		name string
		c    wire.Check
	}{
		{wire.CheckWatermark, v.Checks.Watermark},
		{wire.CheckSHA256, v.Checks.SHA256},
		{wire.CheckPerceptualHash, v.Checks.PerceptualHash},
		{wire.CheckBlockchain, v.Checks.Blockchain},
	}
	out := make([]Check, len(in))
	for i, c := range in {
		out[i] = check(v, c.name, c.c)
	}
	return out
}

// linked reports whether a check's details say its evidence linked the
// file to the record (which a not-authentic verdict then does not accept
// as the file's): such a check is neither passed nor failed.
func linked(name, d string) bool {
	switch name {
	case wire.CheckWatermark:
		return strings.HasPrefix(d, "watermark payload ") && (strings.Contains(d, " matches record ") || strings.Contains(d, " embedded by the service"))
	case wire.CheckSHA256:
		return strings.HasPrefix(d, "exact SHA-256 match")
	case wire.CheckPerceptualHash:
		return strings.HasPrefix(d, "exact perceptual hash match") || strings.HasPrefix(d, "near perceptual hash match")
	case wire.CheckBlockchain:
		return strings.HasPrefix(d, "record ") && strings.Contains(d, " is anchored") || strings.HasPrefix(d, "Merkle proof verified")
	}
	return false
}

func check(v wire.VerifyResponse, name string, c wire.Check) Check {
	out := Check{Name: name, Label: labels[name], Details: c.Details}
	d := c.Details
	pending := strings.HasPrefix(d, "pending")
	switch {
	case c.Passed:
		out.State, out.Summary = StatePassed, passedSummary(v, name, d)
		return out
	case c.NotApplicable:
		out.State = StateNotApplicable
		out.Summary = "Not applicable"
		out.Reason = strings.TrimPrefix(d, "not applicable: ")
		return out
	case v.Authentic:
		// An authentic verdict does not rest on this check: it is not a
		// failure (the bytes of a re-encoded copy, anchoring pending).
		out.State = StateNotApplicable
		out.Summary, out.Reason = notNeeded(v, name, d)
		return out
	case name == wire.CheckBlockchain && (pending || d == "no record to check"):
		out.State, out.Summary = StateNotApplicable, "Not anchored yet"
		out.Reason = d
		if d == "no record to check" {
			out.Summary, out.Reason = "Not applicable", "no record was found to check"
		}
		return out
	case strings.HasPrefix(d, "not extracted") || strings.HasPrefix(d, "not computed"):
		out.State, out.Summary, out.Reason = StateNotApplicable, "Not checked", d
		return out
	case linked(name, d):
		out.State = StateNotApplicable
		out.Summary = "Matches the record found, which does not vouch for this file"
		if v.Resembles != nil && (v.Resembles.Relation == wire.RelationDerived || v.Resembles.Relation == wire.RelationPerceptualLookalike) {
			out.Summary = "Matches the record found, but not as the signed picture"
		}
		out.Reason = notVouched(v)
		return out
	}
	out.State, out.Summary, out.Reason = StateFailed, failedSummary(name), d
	return out
}

func passedSummary(v wire.VerifyResponse, name, d string) string {
	switch name {
	case wire.CheckWatermark:
		if strings.Contains(d, "embedded") {
			return "This is the file the service watermarked"
		}
		return "The record's watermark is in this file"
	case wire.CheckSHA256:
		if strings.Contains(d, "original (unwatermarked)") {
			return "Byte-identical to the signer's original upload"
		}
		return "Byte-identical to the signed file"
	case wire.CheckPerceptualHash:
		return "The picture matches the signed picture"
	case wire.CheckBlockchain:
		if v.Network != nil && !v.Network.Public {
			return "Anchored on the service's local chain (order and integrity, not a public timestamp)"
		}
		return "Anchored on a public blockchain"
	}
	return "Passed"
}

func notNeeded(v wire.VerifyResponse, name, d string) (string, string) {
	switch name {
	case wire.CheckBlockchain:
		if strings.HasPrefix(d, "pending") {
			return "Anchoring pending", "the record is not anchored yet; this does not count against the file"
		}
		if strings.Contains(d, " is anchored") {
			return "The anchored record does not cover this file", d
		}
		return "Not anchored", d
	case wire.CheckSHA256:
		switch v.Match {
		case "reencoded":
			return "Bytes differ: re-encoded or resized", "the picture checks identify it; a re-encoded copy never has the signed file's bytes"
		case "crop":
			return "Bytes differ: cropped", "the picture checks identify it as part of the signed picture"
		}
		return "Bytes differ", d
	case wire.CheckWatermark:
		return "Not needed", d
	case wire.CheckPerceptualHash:
		return "Not needed", d
	}
	return "Not needed", d
}

func notVouched(v wire.VerifyResponse) string {
	r := v.Resembles
	if r == nil {
		return "the record does not vouch for this file"
	}
	switch r.Relation {
	case wire.RelationRevoked:
		if k := v.KeyRevocation; k != nil && k.AwaitingAnchor {
			return "it matches record " + r.RecordID + ", which counts once its batch is anchored (its signing key was retired meanwhile)"
		}
		if v.KeyRevocation != nil && !v.KeyRevocation.Valid() {
			return "it matches record " + r.RecordID + ", whose signing key was revoked before the record was dated"
		}
		return "it matches record " + r.RecordID + ", which its signer revoked"
	case wire.RelationProofInvalid:
		return "it matches record " + r.RecordID + ", whose anchoring proof does not verify"
	case wire.RelationDerived:
		if v.Match == "edited" {
			return "it matches record " + r.RecordID + ", but parts of the picture were changed after it was signed"
		}
		return "it resembles record " + r.RecordID + ", but its content may differ from the signed picture"
	case wire.RelationPerceptualLookalike:
		return "it resembles record " + r.RecordID + ", but nothing a signature covers shows it to be that picture"
	}
	return "it matches record " + r.RecordID + ", but the file is not shown to be that record's picture"
}

func failedSummary(name string) string {
	switch name {
	case wire.CheckWatermark:
		return "No matching watermark"
	case wire.CheckSHA256:
		return "Not the signed file's bytes"
	case wire.CheckPerceptualHash:
		return "Not the signed picture"
	case wire.CheckBlockchain:
		return "Anchoring not verified"
	}
	return "Not passed"
}

// keyRule says in words which key-revocation rule applied.
func keyRule(k *wire.KeyRevocation) string {
	if k == nil {
		return ""
	}
	switch k.Rule {
	case wire.KeyRuleCompromised:
		return "the key was reported compromised since " + day(k.CompromisedSince) + ", so only a record anchored before then stays valid"
	case wire.KeyRuleRetiredServiceTime:
		return "the key was retired on " + day(k.KeyRevokedAt) + "; the service holds it and signed this record before then, by its own record"
	case wire.KeyRuleRetiredAnchorTime:
		return "the key was retired on " + day(k.KeyRevokedAt) + "; its holder signed on their own device, so a record counts once it is anchored, if the service received it before then"
	}
	return "the key was revoked on " + day(k.KeyRevokedAt)
}

// day formats an ISO 8601 time for people ("2026-11-27 10:04 UTC"),
// leaving a string it cannot parse as it is.
func day(s string) string {
	t, err := rfc3339.Parse(s)
	if err != nil {
		return s
	}
	return rfc3339.MinuteUTC(t)
}

// chainText tells the provenance chain oldest first, naming the record
// that answers as "this copy".
func chainText(v wire.VerifyResponse) string {
	if len(v.Chain) < 2 {
		return ""
	}
	this := v.RecordID
	if this == "" && v.Resembles != nil {
		this = v.Resembles.RecordID
	}
	var parts []string
	for i, l := range v.Chain {
		when := l.AnchoredAt
		if when == "" {
			when = l.CreatedAt
		}
		on := ""
		if when != "" {
			on = " on " + day(when)
		}
		org := l.OrgName
		if org == "" {
			org = "an unnamed signer"
		}
		var s string
		switch l.Relation {
		case "original":
			s = "first signed by " + org + on
		case "derivative":
			s = "signed as a derivative by " + org + on
		case "resigned_copy":
			s = "re-signed by " + org + on + ", without naming the original"
		case "earlier_match":
			s = "an earlier record by " + org + on + " resembles it"
		default:
			s = "signed by " + org + on
		}
		if l.RecordID == this && l.Relation != "original" {
			s = "this copy " + s
		} else if l.RecordID == this {
			s += " (this copy)"
		}
		if i == 0 {
			s = strings.ToUpper(s[:1]) + s[1:]
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ") + "."
}
