package localsig_test

import (
	"image"
	"math"
	"testing"

	"github.com/provenant/provenant/shared/localsig"
)

// TestKeptHueCopies: photos with one band of a colour of their own (a
// fifth of the width painted in one tint, the rest as photographed),
// copied with a global saturation or tone change, read as the same
// picture; the banded colour is scaled along its own hue by a gain the
// colour fit, one function for the whole picture, does not predict.
// Measured with the kept-hue rule switched off where compareOne applies
// it: `edited` by 4 blocks off in chroma (flower), by a chroma group of
// 4 (meadow) and by 3 blocks off in chroma and a group of 8 (water).
func TestKeptHueCopies(t *testing.T) {
	blue, green := [3]float64{0.35, 0.45, 2.2}, [3]float64{0.4, 1.35, 0.3}
	gamma := func(v float64) float64 { return 255 * math.Pow(v/255, 0.75) }
	for _, c := range []struct {
		name   string
		photo  string
		x0, x1 float64
		tint   [3]float64
		copy   func(testing.TB, image.Image) image.Image
	}{
		{"flower, a blue band, gamma 0.75 and saturation ×1.4", "../watermark/testdata/flower.jpg", 0.4, 0.6, blue,
			func(t testing.TB, m image.Image) image.Image {
				return reJPEG(t, saturate(perChannel(m, gamma), 1.4), 90)
			}},
		{"meadow, a blue band, saturation ×1.4", "../watermark/testdata/meadow.jpg", 0, 0.25, blue,
			func(t testing.TB, m image.Image) image.Image { return reJPEG(t, saturate(m, 1.4), 90) }},
		{"water, a green band, saturation ×1.7", "../watermark/testdata/water.jpg", 0.4, 0.6, green,
			func(t testing.TB, m image.Image) image.Image { return reJPEG(t, saturate(m, 1.7), 90) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, m := signedColourOf(t, tintedBand(load(t, c.photo), c.x0, c.x1, c.tint))
			r, ok := examineColour(t, g, c.copy(t, m))
			if !ok {
				t.Fatal("watermark not recovered")
			}
			if r.Outcome != localsig.Same {
				t.Errorf("outcome %v (changed %d, why %+v), want same", r.Outcome, r.ChangedCount, r.Why)
			}
		})
	}
}

// tintedBand paints the picture's luminance in tint k between x0 and x1
// (fractions of its width) and leaves the rest as it is.
func tintedBand(m image.Image, x0, x1 float64, k [3]float64) image.Image {
	out := rgba(m)
	w := out.Bounds().Dx()
	for i := 0; i < len(out.Pix); i += 4 {
		if x := float64((i/4)%w) / float64(w); x < x0 || x >= x1 {
			continue
		}
		p := out.Pix[i:]
		y := 0.299*float64(p[0]) + 0.587*float64(p[1]) + 0.114*float64(p[2])
		for c := 0; c < 3; c++ {
			p[c] = uint8(min(max(math.Round(y*k[c]), 0), 255))
		}
	}
	return out
}
