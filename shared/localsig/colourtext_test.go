package localsig_test

import (
	"fmt"
	"image"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/shared/localsig"
)

// colourTextOver writes lines of glyph strokes in colour only over the
// rectangle (fractions of the picture) from (fx, fy), w wide and h high:
// each ink pixel keeps its luminance, its chroma set to a saturated red
// (Cb −30, Cr 60), clipped to the gamut.
func colourTextOver(m image.Image, fx, fy, fw, fh float64) (image.Image, image.Rectangle) {
	out := rgba(m)
	W, H := out.Bounds().Dx(), out.Bounds().Dy()
	r := image.Rect(int(fx*float64(W)), int(fy*float64(H)), int((fx+fw)*float64(W)), int((fy+fh)*float64(H)))
	lh := max(min(r.Dy(), H/12), 8)
	gw, stroke := max(lh*6/10, 3), max(lh/7, 1)
	clamp := func(v float64) uint8 { return uint8(min(max(v+0.5, 0), 255)) }
	for y := r.Min.Y; y < r.Max.Y; y++ {
		ly := (y - r.Min.Y) % (lh + lh/3)
		if ly >= lh {
			continue
		}
		for x := r.Min.X; x < r.Max.X; x++ {
			gx := (x - r.Min.X) % gw
			if gx >= gw-stroke-1 || ((x-r.Min.X)/gw)%4 == 3 {
				continue
			}
			if !(gx < stroke || ly < stroke || ly >= lh-stroke) {
				continue
			}
			p := out.Pix[y*out.Stride+4*x:]
			l := 0.299*float64(p[0]) + 0.587*float64(p[1]) + 0.114*float64(p[2])
			p[0], p[1], p[2] = clamp(l+1.402*60), clamp(l-0.344136*-30-0.714136*60), clamp(l+1.772*-30)
		}
	}
	return out, r
}

// TestColourTextGroup: colour-only text over 1 % of the picture, which
// moves the chroma of the few blocks it crosses by less than the chroma
// tolerance, all the same way, is Edited, and every changed block lies
// within a block of the text.
func TestColourTextGroup(t *testing.T) {
	for _, path := range devImages {
		m, g := signedColour(t, path, 0x0123456789abcdef)
		W, H := m.Bounds().Dx(), m.Bounds().Dy()
		for _, at := range [][2]float64{{0.1, 0.2}, {0.5, 0.6}, {0.3, 0.45}} {
			t.Run(fmt.Sprintf("%s/at %.2f,%.2f", filepath.Base(path), at[0], at[1]), func(t *testing.T) {
				edited, rect := colourTextOver(m, at[0], at[1], 0.2, 0.05)
				r, ok := examineColour(t, g, reJPEG(t, edited, 90))
				if !ok {
					t.Skip("watermark not recovered")
				}
				t.Logf("outcome %v (changed %d, lone %d, why %+v)", r.Outcome, r.ChangedCount, r.Lone, r.Why)
				if r.Outcome != localsig.Edited {
					t.Fatalf("outcome %v (changed %d, lone %d, why %+v), want edited", r.Outcome, r.ChangedCount, r.Lone, r.Why)
				}
				bw, bh := float64(W)/float64(g.Cols), float64(H)/float64(g.Rows)
				for i, c := range r.Changed {
					col, row := i%g.Cols, i/g.Cols
					x0, y0 := float64(col)*bw, float64(row)*bh
					if c && (x0+bw < float64(rect.Min.X)-bw || x0 > float64(rect.Max.X)+bw || y0+bh < float64(rect.Min.Y)-bh || y0 > float64(rect.Max.Y)+bh) {
						t.Errorf("block %d (row %d, column %d) flagged away from the text", i, row, col)
					}
				}
			})
		}
	}
}
