package localsig

import (
	"fmt"
	"math"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
)

// TestPlacedUnrotated: a 200×200 textured picture under a 12-line caption
// bar with a line of text, filling the file on its other three sides,
// given the decoder's alignment with a spurious half-degree rotation
// and a scale off by up to 1 % around the right centre: placed puts it
// unrotated at its true place (scale within 0.2 %, offsets within a
// third of a pixel). The rotated picture's bounding box is wider than
// the picture by its height times the angle's sine, so the scale read
// from that box would be 0.9 % short; and a scale 1 % short leaves the
// side edges inside the file, where there is no page to find them by.
func TestPlacedUnrotated(t *testing.T) {
	const w, h, bar = 200, 212, 12
	l := &imagex.Luma{Width: w, Height: h, Stride: w, Pix: make([]uint8, w*h)}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := 255.0
			switch {
			case y >= bar:
				v = 128 + 60*math.Sin(float64(x)*1.3)*math.Cos(float64(y)*0.7)
			case y >= 3 && y < 8 && x >= 10 && x < 170:
				v = 20
			}
			l.Pix[y*w+x] = uint8(math.Round(v))
		}
	}
	g := &Grid{Width: w, Height: w}
	for _, c := range []struct{ angle, scale float64 }{{-0.5, 1}, {0.5, 1}, {-0.5, 0.99}, {0.5, 1.01}} {
		t.Run(fmt.Sprintf("angle %+.1f scale ×%.2f", c.angle, c.scale), func(t *testing.T) {
			// U = R(a)·X/s + O with the picture's centre (100, 100) at
			// (100, 112) of the file.
			sin, cos := math.Sincos(c.angle * math.Pi / 180)
			xc, yc := 100.0, 100.0+bar
			a := Alignment{Scale: c.scale, Angle: c.angle, WorkWidth: w, WorkHeight: h, Period: 1,
				OffsetX: 100 - (xc*cos+yc*sin)/c.scale, OffsetY: 100 - (yc*cos-xc*sin)/c.scale}
			p, ok := newSampler(&Probe{Plane: l, Align: a}).placed(g, 0, 0)
			if !ok {
				t.Fatal("not placed")
			}
			got := p.Align
			if got.Angle != 0 || math.Abs(got.Scale-1) > 0.002 || math.Abs(got.OffsetX) > 0.33 || math.Abs(got.OffsetY+bar) > 0.33 {
				t.Fatalf("placed at %+v, want angle 0, scale 1, offset (0, %d)", got, -bar)
			}
		})
	}
}
