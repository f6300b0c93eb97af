package localsig_test

import (
	"image"
	"testing"

	"github.com/provenant/provenant/shared/localsig"
)

// TestCrossTalkRefit: a picture whose colours lie along one line through
// the Cb–Cr plane (an orange and its complementary blue, or one orange
// and greys) leaves the colour fit's cross-talk free; a saturation or
// contrast boost of it reads as the same picture only because the fit
// is redone without the cross-talk terms when it turned a component by
// a quarter or more of the other (measured without the refit: `edited`
// with 14 and 25 blocks off in chroma).
func TestCrossTalkRefit(t *testing.T) {
	orange, blue, grey := [3]float64{1.5, 0.95, 0.4}, [3]float64{0.6, 1, 1.6}, [3]float64{1, 1, 1}
	sat := [3]float64{1.6, 0.8, 0.3}
	tone := map[string]func(testing.TB, image.Image) image.Image{}
	for _, c := range harshTone() {
		tone[c.name] = c.f
	}
	for _, c := range []struct {
		name, tone string
		tints      [][3]float64
	}{
		{"orange and blue", "contrast1.25-sat1.4", [][3]float64{orange, blue, orange}},
		{"orange and grey", "saturation1.7", [][3]float64{sat, grey, sat}},
	} {
		t.Run(c.name+"/"+c.tone, func(t *testing.T) {
			g, m := signedColourOf(t, tintedBands(load(t, "../testdata/images/other.jpg"), c.tints...))
			r, ok := examineColour(t, g, tone[c.tone](t, m))
			if !ok {
				t.Fatal("watermark not recovered")
			}
			if r.Outcome != localsig.Same {
				t.Errorf("outcome %v (changed %d, why %+v), want same", r.Outcome, r.ChangedCount, r.Why)
			}
		})
	}
}
