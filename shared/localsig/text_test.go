package localsig_test

import (
	"fmt"
	"image"
	"math"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/shared/localsig"
)

// headlineOver draws one line of white glyph strokes with a dark outline,
// hfrac of the picture's height high, across 60 % of its width from
// (fx, fy) (fractions): a headline too thin to move a colour block's mean
// by the tolerance.
func headlineOver(m image.Image, hfrac, fx, fy float64) (image.Image, image.Rectangle) {
	out := rgba(m)
	W, H := out.Bounds().Dx(), out.Bounds().Dy()
	lh := max(int(hfrac*float64(H)), 6)
	lw := W * 6 / 10
	x0, y0 := int(fx*float64(W)), int(fy*float64(H))
	gw, stroke := max(lh*6/10, 3), max(lh/7, 1)
	ink := func(x, y int) bool {
		if x < 0 || y < 0 || y >= lh || x >= lw {
			return false
		}
		gx := x % gw
		if gx >= gw-stroke-1 {
			return false
		}
		switch (x / gw) % 4 {
		case 0: // a vertical pair and a bar
			return gx < stroke || gx >= gw-2*stroke-1 || (y >= lh/2-stroke/2 && y <= lh/2+stroke/2)
		case 1: // a box
			return gx < stroke || y < stroke || y >= lh-stroke || gx >= gw-2*stroke-1
		case 2: // three bars
			return gx < stroke || y < stroke || y >= lh-stroke || (y >= lh/2-stroke/2 && y <= lh/2+stroke/2)
		}
		return false // a space
	}
	o := max(lh/14, 1)
	for y := y0; y < min(y0+lh, H); y++ {
		for x := x0; x < min(x0+lw, W); x++ {
			i := y*out.Stride + 4*x
			switch {
			case ink(x-x0, y-y0):
				out.Pix[i], out.Pix[i+1], out.Pix[i+2] = 250, 250, 250
			case ink(x-x0+o, y-y0) || ink(x-x0-o, y-y0) || ink(x-x0, y-y0+o) || ink(x-x0, y-y0-o):
				out.Pix[i], out.Pix[i+1], out.Pix[i+2] = 10, 10, 10
			}
		}
	}
	return out, image.Rect(x0, y0, x0+lw, y0+lh)
}

// TestColourGridSeesThinHeadline: a headline of 1 or 2 % of the
// picture's height, too thin to move any block's mean or chroma past its
// tolerance, adds edges along its line: the copy is Edited, and every
// changed block lies on the line's rows. Sharpening, which adds edges
// everywhere, leaves the picture the same.
func TestColourGridSeesThinHeadline(t *testing.T) {
	for _, path := range devImages {
		m, g := signedColour(t, path, 0x0123456789abcdef)
		H := m.Bounds().Dy()
		t.Run(filepath.Base(path)+"/sharpened", func(t *testing.T) {
			r, ok := examineColour(t, g, reJPEG(t, sharpened(m, 0.8), 90))
			if !ok {
				t.Skip("watermark not recovered")
			}
			if r.Outcome != localsig.Same {
				t.Errorf("outcome %v (changed %d, lone %d, why %+v), want same", r.Outcome, r.ChangedCount, r.Lone, r.Why)
			}
		})
		for _, tc := range []struct{ h, fy float64 }{{0.01, 0.3}, {0.01, 0.62}, {0.02, 0.3}, {0.02, 0.62}} {
			t.Run(fmt.Sprintf("%s/headline %.0f%% at %.2f", filepath.Base(path), 100*tc.h, tc.fy), func(t *testing.T) {
				edited, rect := headlineOver(m, tc.h, 0.2, tc.fy)
				r, ok := examineColour(t, g, reJPEG(t, edited, 90))
				if !ok {
					t.Skip("watermark not recovered")
				}
				if r.Outcome != localsig.Edited {
					t.Fatalf("outcome %v (changed %d, lone %d, why %+v), want edited", r.Outcome, r.ChangedCount, r.Lone, r.Why)
				}
				// The strokes themselves are the evidence: a gain of detail
				// along a line, whatever the faint-line rule adds around it.
				if r.Why.Gain == 0 {
					t.Errorf("no block gained detail along the headline (why %+v)", r.Why)
				}
				rowH := float64(H) / float64(g.Rows)
				for i, c := range r.Changed {
					if !c {
						continue
					}
					row := i / g.Cols
					if y0, y1 := float64(row)*rowH, float64(row+1)*rowH; y1 < float64(rect.Min.Y)-rowH || y0 > float64(rect.Max.Y)+rowH {
						t.Errorf("block %d (row %d) flagged away from the headline (rows %.0f..%.0f px)", i, row, float64(rect.Min.Y), float64(rect.Max.Y))
					}
				}
			})
		}
	}
}

// sharpened is an unsharp mask of amount k over a 3×3 box.
func sharpened(m image.Image, k float64) image.Image {
	src := rgba(m)
	out := rgba(m)
	w, h := src.Bounds().Dx(), src.Bounds().Dy()
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			for c := 0; c < 3; c++ {
				var s float64
				for dy := -1; dy <= 1; dy++ {
					for dx := -1; dx <= 1; dx++ {
						s += float64(src.Pix[(y+dy)*src.Stride+4*(x+dx)+c])
					}
				}
				v := float64(src.Pix[y*src.Stride+4*x+c])
				out.Pix[y*out.Stride+4*x+c] = uint8(min(max(math.Round(v+k*(v-s/9)), 0), 255))
			}
		}
	}
	return out
}
