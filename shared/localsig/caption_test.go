package localsig_test

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/localsig"
)

// grain is a repetitive texture, planks of wood grain: a period of a few
// dozen pixels everywhere, on which a watermark decoder's angle can lock
// a fraction of a degree off and a block a pixel off still looks alike.
func grain(w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(7, 11))
	for y := 0; y < h; y++ {
		plank := y / 97
		for x := 0; x < w; x++ {
			u := float64(x) + 9*math.Sin(float64(y)/23+float64(plank))
			v := 0.5 + 0.5*math.Sin(u/5.3+3*math.Sin(float64(y)/41))
			l := 90 + 70*v + 12*float64(plank%3) + 6*rng.NormFloat64()
			if y%97 < 2 {
				l = 40
			}
			m.SetRGBA(x, y, color.RGBA{uint8(min(max(l*1.15, 0), 255)), uint8(min(max(l*0.8, 0), 255)), uint8(min(max(l*0.45, 0), 255)), 255})
		}
	}
	return m
}

// TestCaptionAboveTextureContained: a repetitive texture with a 6 %
// caption bar added above it, saved as JPEG 90, is the signed picture
// inside a larger file, also when the decoder's alignment carries a
// spurious half-degree rotation and a scale 0.3 % off (as measured on a
// wood photo). The picture fills the file on three sides, so those
// borders are its edges; placed unrotated there, no block reads the
// texture a pixel off and none is taken for changed.
func TestCaptionAboveTextureContained(t *testing.T) {
	const W, H = 960, 900
	g, signedPic := signedColourOf(t, grain(W, H))
	bar := H * 6 / 100
	file := image.NewRGBA(image.Rect(0, 0, W, H+bar))
	draw.Draw(file, file.Bounds(), &image.Uniform{color.White}, image.Point{}, draw.Src)
	draw.Draw(file, image.Rect(0, bar, W, H+bar), signedPic, signedPic.Bounds().Min, draw.Src)
	draw.Draw(file, image.Rect(W/20, bar/4, W*17/20, bar*3/4), &image.Uniform{color.RGBA{20, 20, 20, 255}}, image.Point{}, draw.Src)
	shown := reJPEG(t, file, 90)
	l := imagex.ToLuma(shown)
	cb, cr := imagex.Chroma(shown)
	ke := float64(localsig.WorkShort) / float64(min(W, H+bar))
	ks := float64(localsig.WorkShort) / float64(min(W, H))
	ww, wh := localsig.WorkDims(W, H+bar)
	s0, oy0 := ke/ks, -ks*float64(bar)
	// The signed picture's centre, on the signed and the examined
	// working planes.
	gw, gh := localsig.WorkDims(W, H)
	uc, vc := float64(gw)/2, float64(gh)/2
	xc, yc := s0*uc, s0*(vc-oy0)
	for _, c := range []struct{ angle, scale float64 }{{0, 1}, {-0.5, 0.997}, {0.5, 1.003}, {-0.5, 0.99}, {0.5, 1.01}, {-0.5, 1}, {0.5, 0.995}} {
		t.Run(fmt.Sprintf("angle %+.1f scale ×%.3f", c.angle, c.scale), func(t *testing.T) {
			sin, cos := math.Sincos(c.angle * math.Pi / 180)
			s := s0 * c.scale
			// U = R(a)·X/s + O, with the centre where it belongs.
			a := localsig.Alignment{Scale: s, Angle: c.angle, WorkWidth: ww, WorkHeight: wh, Period: 64,
				OffsetX: uc - (xc*cos+yc*sin)/s, OffsetY: vc - (yc*cos-xc*sin)/s}
			r := localsig.Compare(g, localsig.NewProbe(l, a).WithChroma(cb, cr))
			if r.Outcome != localsig.Contained {
				t.Fatalf("outcome %v (compared %d, changed %d, lone %d, foreign %d, why %+v), want contained", r.Outcome, r.Compared, r.ChangedCount, r.Lone, r.Foreign, r.Why)
			}
			want := localsig.Region{X: 0, Y: float64(bar) / float64(H+bar), W: 1, H: float64(H) / float64(H+bar)}
			for _, d := range []float64{r.Within.X - want.X, r.Within.Y - want.Y, r.Within.W - want.W, r.Within.H - want.H} {
				if math.Abs(d) > 0.01 {
					t.Fatalf("within %+v, want %+v (±0.01)", r.Within, want)
				}
			}
		})
	}
}
