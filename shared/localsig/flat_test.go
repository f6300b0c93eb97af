package localsig_test

import (
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/localsig"
)

// flatGraphic is a plain dark graphic with faint stripes: flat at the
// grid's scale (no block stands out in tone, colour or detail).
func flatGraphic(w, h int, c color.RGBA) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			d := uint8(0)
			if (x+y)/12%2 == 0 {
				d = 2
			}
			m.SetRGBA(x, y, color.RGBA{c.R + d, c.G + d, c.B + d, 255})
		}
	}
	return m
}

// inPage places shown (the signed picture's size scaled to w×h) at 0.4 of
// a page's short side with text around it and compares it with g under
// the alignment of that placement, as TestContainedAtScreenshotScales
// does.
func inPage(g *localsig.Grid, signedW, signedH int, shown image.Image) localsig.Result {
	w, h := shown.Bounds().Dx(), shown.Bounds().Dy()
	ph := int(math.Round(float64(min(w, h)) / 0.4))
	pw := ph * 16 / 9
	ox, oy := pw/5, (ph-h)/2
	page := surround(shown, pw, ph, ox, oy, color.RGBA{248, 248, 248, 255}, max(ph/40, 8))
	f := float64(w) / float64(signedW)
	ke := float64(localsig.WorkShort) / float64(min(pw, ph))
	ks := float64(localsig.WorkShort) / float64(min(signedW, signedH))
	ww, wh := localsig.WorkDims(pw, ph)
	a := localsig.Alignment{Scale: f * ke / ks, OffsetX: -ks * float64(ox) / f, OffsetY: -ks * float64(oy) / f, WorkWidth: ww, WorkHeight: wh}
	l := imagex.ToLuma(page)
	return localsig.Compare(g, localsig.NewProbe(l, a).WithChroma(imagex.Chroma(page)))
}

// TestFlatPictureContained: a signed picture that is flat at the grid's
// scale shows no block structure inside a page; it is Contained when
// every block shows its tone and colour as signed, and not when the page
// shows a flat field of another tone or colour, or a photo, where it was.
// A structured signed picture shown as a flat field stays Unknown.
func TestFlatPictureContained(t *testing.T) {
	const W, H = 960, 600
	base := color.RGBA{38, 40, 48, 255}
	sig := flatGraphic(W, H, base)
	cb, cr := imagex.Chroma(sig)
	g := localsig.ComputeColour(imagex.ToLuma(sig), cb, cr)
	w, h := W*9/10, H*9/10
	photo := resize(load(t, devImages[0]), w, h)
	cases := []struct {
		name      string
		shown     image.Image
		contained bool
	}{
		{"the flat picture", resize(sig, w, h), true},
		{"a flat field 40 levels brighter", flatGraphic(w, h, color.RGBA{78, 80, 88, 255}), false},
		{"a flat field of another colour", flatGraphic(w, h, color.RGBA{62, 34, 40, 255}), false},
		{"a photo", photo, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := inPage(g, W, H, c.shown)
			if (r.Outcome == localsig.Contained) != c.contained {
				t.Fatalf("outcome %v (compared %d, changed %d, structured %d, why %+v), want contained %v",
					r.Outcome, r.Compared, r.ChangedCount, r.Structured, r.Why, c.contained)
			}
		})
	}
	t.Run("a structured picture shown flat", func(t *testing.T) {
		m := rgba(load(t, devImages[0]))
		b := m.Bounds()
		mcb, mcr := imagex.Chroma(m)
		pg := localsig.ComputeColour(imagex.ToLuma(m), mcb, mcr)
		r := inPage(pg, b.Dx(), b.Dy(), flatGraphic(b.Dx()*9/10, b.Dy()*9/10, color.RGBA{110, 110, 110, 255}))
		if r.Outcome == localsig.Contained {
			t.Fatalf("outcome %v (structured %d), want not contained", r.Outcome, r.Structured)
		}
	})
}
