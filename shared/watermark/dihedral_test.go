package watermark

import (
	"fmt"
	"image"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
)

func TestDihedralApplyInverse(t *testing.T) {
	src := []float32{1, 2, 3, 4, 5, 6} // 3×2
	seen := map[string]bool{}
	for d := dihedral(0); d < numDihedral; d++ {
		out, w, h := d.apply(src, 3, 2)
		if w*h != 6 || (d&1 == 1) != (w == 2) {
			t.Errorf("%d: size %dx%d", d, w, h)
		}
		key := fmt.Sprint(w, out)
		if seen[key] {
			t.Errorf("%d: %v repeats another transform", d, out)
		}
		seen[key] = true
		back, bw, bh := d.inverse().apply(out, w, h)
		if bw != 3 || bh != 2 || fmt.Sprint(back) != fmt.Sprint(src) {
			t.Errorf("inverse of %d: %v (%dx%d), want %v", d, back, bw, bh, src)
		}
	}
	// A clockwise quarter turn puts the top-left sample top right.
	if out, _, _ := dihedral(1).apply(src, 3, 2); out[1] != 1 {
		t.Errorf("quarter turn = %v, want 1 at the top right of a 2-wide plane", out)
	}
}

// rgbaDihedral flips (first) and turns the picture clockwise, as a phone
// baking its EXIF orientation does.
func rgbaDihedral(m image.Image, flip bool, quarter int) *image.RGBA {
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	size := image.Pt(w, h)
	if quarter%2 == 1 {
		size = image.Pt(h, w)
	}
	out := image.NewRGBA(image.Rectangle{Max: size})
	for dy := 0; dy < size.Y; dy++ {
		for dx := 0; dx < size.X; dx++ {
			// Where (dx, dy) comes from: undo the turn, then the flip.
			x, y := dx, dy
			switch quarter {
			case 1:
				x, y = dy, h-1-dx
			case 2:
				x, y = w-1-dx, h-1-dy
			case 3:
				x, y = w-1-dy, dx
			}
			if flip {
				x = w - 1 - x
			}
			out.Set(dx, dy, m.At(b.Min.X+x, b.Min.Y+y))
		}
	}
	return out
}

// TestExtractFlippedAndTurned: a mirrored or quarter-turned copy of a
// marked photo gives the exact payload and says how it was transformed;
// Orient turns it back so the alignment applies.
func TestExtractFlippedAndTurned(t *testing.T) {
	p := Payload(0x0123456789abcdef)
	_, marked := markedTestPhoto(t, "meadow.jpg", p)
	type turn struct {
		flip    bool
		quarter int
	}
	for _, tc := range []turn{{true, 0}, {false, 1}, {false, 2}, {false, 3}, {true, 1}} {
		t.Run(fmt.Sprintf("flip%v-turn%d", tc.flip, tc.quarter), func(t *testing.T) {
			l := imagex.ToLuma(reencode(t, rgbaDihedral(marked, tc.flip, tc.quarter), "jpeg", 80))
			got, d, err := Extract(l)
			if err != nil {
				t.Fatal(err)
			}
			if !d.Found || got != p || d.Flipped != tc.flip || d.Quarter != tc.quarter {
				t.Fatalf("Extract = %v found %v flipped %v quarter %d, want %v flipped %v quarter %d", got, d.Found, d.Flipped, d.Quarter, p, tc.flip, tc.quarter)
			}
			o := Orient(l, d)
			b := marked.Bounds()
			if o.Width != b.Dx() || o.Height != b.Dy() {
				t.Errorf("Orient: %dx%d, want the signed picture's %dx%d", o.Width, o.Height, b.Dx(), b.Dy())
			}
			if _, d2, _ := Extract(o); !d2.Found || d2.Flipped || d2.Quarter != 0 {
				t.Errorf("Extract(Orient(l)) found %v flipped %v quarter %d, want found upright", d2.Found, d2.Flipped, d2.Quarter)
			}
		})
	}
}
