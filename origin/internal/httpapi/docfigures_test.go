package httpapi

import (
	"fmt"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/docfigures"
	"github.com/provenant/provenant/internal/ratelimit"
)

// TestDocsQuoteTheDefaults: the rate limits docs/api.md gives in its
// route headings and the request deadlines of its "Request deadlines"
// table are DefaultLimits and the Default*Timeout constants: each phrase
// is written from the code, so changing one without the other fails here.
func TestDocsQuoteTheDefaults(t *testing.T) {
	l := DefaultLimits()
	perMin := func(q int, w time.Duration) int { return q * int(time.Minute/w) }
	secs := func(d time.Duration) string {
		if d >= 5*time.Minute && d%time.Minute == 0 {
			return fmt.Sprintf("%d min", int(d/time.Minute))
		}
		return fmt.Sprintf("%d s", int(d/time.Second))
	}
	var phrases []docfigures.Phrase
	for _, phrase := range []string{
		fmt.Sprintf("### `POST /api/v1/auth/register` (public, %d/min per IP)", perMin(l.Register.Quota, l.Register.Window)),
		fmt.Sprintf("### `POST /api/v1/auth/login` (public, %d/min per IP)", perMin(l.Login.Quota, l.Login.Window)),
		fmt.Sprintf("### `POST /api/v1/auth/forgot-password` (public, %d/min per IP)", perMin(l.Forgot.Quota, l.Forgot.Window)),
		fmt.Sprintf("### `POST /api/v1/auth/reset-password` (public, %d/min per IP)", perMin(l.Reset.Quota, l.Reset.Window)),
		fmt.Sprintf("#### `POST /api/v1/domains/{domain}/check` (JWT, %d/min per account)", perMin(l.DomainCheck.Quota, l.DomainCheck.Window)),
		fmt.Sprintf("or JWT; %d/min per key)", perMin(l.Sign.Quota, l.Sign.Window)),
		fmt.Sprintf("### `POST /api/v1/verify` (public, %d/min per client IP)", perMin(l.Verify.Quota, l.Verify.Window)),
		fmt.Sprintf("### `POST /api/v1/verify/lookup` (public, %d/min per client IP)", perMin(l.Lookup.Quota, l.Lookup.Window)),
		fmt.Sprintf("### `POST /api/v1/register` (API key with scope `sign`, or JWT; %d/min per key)", perMin(l.SDKRegister.Quota, l.SDKRegister.Window)),
		fmt.Sprintf("(API key with scope `sign`; %d/min per key)", perMin(l.SignBatch.Quota, l.SignBatch.Window)),
		fmt.Sprintf("| %s (`httpapi.DefaultJSONTimeout`)", secs(DefaultJSONTimeout)),
		fmt.Sprintf("| %s (`httpapi.DefaultUploadTimeout`)", secs(DefaultUploadTimeout)),
		fmt.Sprintf("| %s (`httpapi.DefaultMediaTimeout`)", secs(DefaultMediaTimeout)),
	} {
		phrases = append(phrases, docfigures.Phrase{Doc: "api.md", Text: phrase})
	}
	docfigures.Check(t, phrases)
}

// TestOtherDocsQuoteTheRateLimits: the sign, verify and lookup quotas
// docs/operations.md (flag defaults, scale-out), docs/api.md's server
// configuration, docs/c2pa.md and docs/edge.md (the origin's lookup limit behind the edges) restate are
// DefaultLimits', so that a changed default cannot leave them behind.
func TestOtherDocsQuoteTheRateLimits(t *testing.T) {
	l := DefaultLimits()
	perMin := func(p ratelimit.Policy) int { return p.Quota * int(time.Minute/p.Window) }
	sign, verify, lookup := perMin(l.Sign), perMin(l.Verify), perMin(l.Lookup)
	docfigures.Check(t, []docfigures.Phrase{
		{Doc: "operations.md", Text: fmt.Sprintf("| `0`: %d per minute per API key |", sign)},
		{Doc: "operations.md", Text: fmt.Sprintf("| `0`: %d per minute per IP |", verify)},
		{Doc: "operations.md", Text: fmt.Sprintf("sign, %d per minute\n  per API key, becomes up to %d·N (3 origins: %d/min", sign, sign, 3*sign)},
		{Doc: "operations.md", Text: fmt.Sprintf("the public verify limit, %d per minute per client IP, becomes up\n  to %d·N", verify, verify)},
		{Doc: "operations.md", Text: fmt.Sprintf("lookup limit (%d/min per client IP, as\n  the edges forward it) up to %d·N", lookup, lookup)},
		{Doc: "operations.md", Text: fmt.Sprintf("sign %d per minute per\nAPI key, verify %d per minute per IP", sign, verify)},
		{Doc: "c2pa.md", Text: fmt.Sprintf("limited like verify (%d per\nminute per client IP", verify)},
		{Doc: "c2pa.md", Text: fmt.Sprintf("lookup (%d per minute per client IP)", lookup)},
		{Doc: "edge.md", Text: fmt.Sprintf("lookup's %d/min, the verify limit", lookup)},
		{Doc: "edge.md", Text: fmt.Sprintf("the origin's lookup (%d/min)", lookup)},
		{Doc: "api.md", Text: fmt.Sprintf("spec quotas (%d, %d per minute)", sign, verify)},
	})
}
