package videos

import (
	"strings"
	"testing"

	"github.com/provenant/provenant/shared/wire"
)

// TestWording: the shared verdict's picture words, as it writes them into
// a watermark check and a resemblance, read as a video's.
func TestWording(t *testing.T) {
	for _, d := range []string{
		"watermark payload 0123 matches record r; all 48 local signatures of the signed picture match",
		"watermark payload 0123 matches record r; a crop showing 81 % of the signed picture, all 30 overlapping local signatures match",
		"watermark payload 0123 matches record r; 6 of 48 local signatures of the signed picture differ: the picture was edited",
		"watermark payload 0123 matches record r; the picture does not fit inside the signed picture: the watermark was transplanted into another picture",
		"watermark payload 0123 matches record r; the record predates local signatures, so the picture's content cannot be shown to be the signed picture's",
		"the file carries the watermark of record r, but its picture is not the signed picture",
	} {
		v := wire.VerifyResponse{Checks: wire.Checks{Watermark: wire.Check{Details: d}}, Resembles: &wire.Resemblance{Detail: d}}
		Wording(&v)
		for _, got := range []string{v.Checks.Watermark.Details, v.Resembles.Detail} {
			if strings.Contains(got, "picture") || !strings.Contains(got, "record r") {
				t.Errorf("%q\nreads %q", d, got)
			}
		}
	}
}
