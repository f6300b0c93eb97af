package localsig_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/localsig"
)

// TestContainedPlacedByItsEdges: the signed picture at 0.45 of a page's
// short side (a desktop screenshot, PNG) given an alignment whose scale is
// off by 1.2 % either way, as the decoder's can be: the picture's edges
// in the page place it, so the outer blocks do not read the page, the
// answer is Contained and its place in the page is the true one within
// a percent.
func TestContainedPlacedByItsEdges(t *testing.T) {
	for _, path := range []string{devImages[0], devImages[1], devImages[3]} {
		m, g := signedColour(t, path, 0x0123456789abcdef)
		b := m.Bounds()
		w, h := b.Dx()*45/100, b.Dy()*45/100
		shown := resize(m, w, h)
		pw, ph := w*5/2, h*2
		ox, oy := pw/5, (ph-h)*3/5
		page := rgba(surround(shown, pw, ph, ox, oy, color.RGBA{255, 255, 255, 255}, 0))
		// A column of text lines well right of the picture, as a page has.
		lh := max(ph/40, 8)
		for y := lh; y+lh < ph; y += 2 * lh {
			for x := ox + w + pw/10; x+lh/3 < pw-lh; x += lh * 2 / 3 {
				draw.Draw(page, image.Rect(x, y, x+max(lh/4, 2), y+lh), &image.Uniform{color.Black}, image.Point{}, draw.Src)
			}
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, page); err != nil {
			t.Fatal(err)
		}
		e, err := png.Decode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		l := imagex.ToLuma(e)
		cb, cr := imagex.Chroma(e)
		f := float64(w) / float64(b.Dx())
		ke := float64(localsig.WorkShort) / float64(min(pw, ph))
		ks := float64(localsig.WorkShort) / float64(min(b.Dx(), b.Dy()))
		ww, wh := localsig.WorkDims(pw, ph)
		// A band painted over the picture's bottom edge, in the page's
		// colour (the picture looks cropped) or dark (a caption strip
		// laid over it), must not pass for the edge.
		for _, band := range []color.RGBA{{255, 255, 255, 255}, {20, 20, 20, 255}} {
			t.Run(fmt.Sprintf("%s/band %v", filepath.Base(path), band.R), func(t *testing.T) {
				edited := rgba(page)
				bh := max(h/40, 3)
				draw.Draw(edited, image.Rect(ox, oy+h-bh, ox+w, oy+h), &image.Uniform{band}, image.Point{}, draw.Src)
				el := imagex.ToLuma(edited)
				ecb, ecr := imagex.Chroma(edited)
				for _, off := range []float64{1, 0.988, 1.012} {
					gw, gh := localsig.WorkDims(b.Dx(), b.Dy())
					cx, cy := float64(gw)/2, float64(gh)/2
					ox0, oy0 := -ks*float64(ox)/f, -ks*float64(oy)/f
					a := localsig.Alignment{Scale: off * f * ke / ks, OffsetX: cx - (cx-ox0)/off, OffsetY: cy - (cy-oy0)/off, WorkWidth: ww, WorkHeight: wh}
					r := localsig.Compare(g, localsig.NewProbe(el, a).WithChroma(ecb, ecr))
					if r.Outcome == localsig.Contained || r.Outcome == localsig.Same || r.Outcome == localsig.Crop {
						t.Fatalf("scale ×%.3f: outcome %v, want the band seen", off, r.Outcome)
					}
				}
			})
		}
		for _, off := range []float64{1, 0.988, 1.012} {
			t.Run(fmt.Sprintf("%s/scale×%.3f", filepath.Base(path), off), func(t *testing.T) {
				// The scale is off around the picture's centre, as the
				// decoder's is: each edge is off by 0.6 % of the
				// picture's size.
				gw, gh := localsig.WorkDims(b.Dx(), b.Dy())
				cx, cy := float64(gw)/2, float64(gh)/2
				ox0, oy0 := -ks*float64(ox)/f, -ks*float64(oy)/f
				a := localsig.Alignment{Scale: off * f * ke / ks, OffsetX: cx - (cx-ox0)/off, OffsetY: cy - (cy-oy0)/off, WorkWidth: ww, WorkHeight: wh}
				r := localsig.Compare(g, localsig.NewProbe(l, a).WithChroma(cb, cr))
				if r.Outcome != localsig.Contained {
					t.Fatalf("outcome %v (compared %d, changed %d, lone %d, why %+v), want contained", r.Outcome, r.Compared, r.ChangedCount, r.Lone, r.Why)
				}
				want := localsig.Region{X: float64(ox) / float64(pw), Y: float64(oy) / float64(ph), W: float64(w) / float64(pw), H: float64(h) / float64(ph)}
				for _, d := range []float64{r.Within.X - want.X, r.Within.Y - want.Y, r.Within.W - want.W, r.Within.H - want.H} {
					if math.Abs(d) > 0.01 {
						t.Fatalf("within %+v, want %+v (±0.01)", r.Within, want)
					}
				}
			})
		}
	}
}
