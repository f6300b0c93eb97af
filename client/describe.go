package client

import "github.com/provenant/provenant/shared/present"

// Presentation is a verdict in words: headline, tone, one-line
// explanation, the four checks as passed, failed or not applicable with
// their reasons, and the provenance chain. It is shared/present's, the
// same the widget, the web app, the certificate page and the CLI show.
type Presentation = present.Presentation

// PresentedCheck is one check of a [Presentation].
type PresentedCheck = present.Check

// States of a [PresentedCheck] and tones of a [Presentation].
const (
	CheckPassed        = present.StatePassed
	CheckFailed        = present.StateFailed
	CheckNotApplicable = present.StateNotApplicable

	ToneAuthentic    = present.ToneAuthentic
	ToneCaution      = present.ToneCaution
	ToneNotAuthentic = present.ToneNotAuthentic
	ToneNeutral      = present.ToneNeutral
)

// Describe returns r in the words every Provenant surface uses (it is
// shared/present.Present): show its Headline, Explanation, Checks and
// Chain rather than composing sentences from r's members, so that an
// application says what the widget and the CLI say. "Unchanged" is said
// only of an exact match; a check an authentic verdict does not rest on
// is CheckNotApplicable, never CheckFailed.
func Describe(r *VerifyResponse) Presentation {
	if r == nil {
		return present.Present(VerifyResponse{}, present.Options{})
	}
	return present.Present(*r, present.Options{})
}
