package localsig

import (
	"math"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
)

// edgePlane is a 200×120 white page with a picture from column 60.3
// rightwards over rows 10 to 110 (column 60 covered 70 %), whose levels
// vary along the rows only (level(y)), and a black stroke in column
// stroke (none when negative).
func edgePlane(level func(y int) float64, stroke int) *sampler {
	const w, h = 200, 120
	l := &imagex.Luma{Width: w, Height: h, Stride: w, Pix: make([]uint8, w*h)}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := 255.0
			if y >= 10 && y < 110 {
				switch {
				case x == 60:
					v = 0.3*255 + 0.7*level(y)
				case x > 60:
					v = level(y)
				}
			}
			if x == stroke && y >= 10 && y < 110 && y%3 != 0 {
				v = 0
			}
			l.Pix[y*w+x] = uint8(math.Round(v))
		}
	}
	return newSampler(&Probe{Plane: l, Align: Alignment{Scale: 1, WorkWidth: w, WorkHeight: h}})
}

// TestEdgeAt: the picture's left edge, put 1.2 probe pixels inside it by
// the alignment, is found to a tenth of a pixel from the partly covered
// column; not when the picture's first columns hardly depart from the
// page (RMS under EdgeContrast), nor when the window's outer line,
// EdgeSearch lines out, is not uniform (text beside the picture).
func TestEdgeAt(t *testing.T) {
	striped := func(amp, mid float64) func(int) float64 {
		return func(y int) float64 { return mid + amp*math.Sin(float64(y)) }
	}
	tests := []struct {
		name   string
		level  func(int) float64
		stroke int
		found  bool
	}{
		{"a photo's edge", striped(40, 110), -1, true},
		{"a light edge, departing 20 levels", striped(7, 235), -1, true},
		{"a near-white edge, departing under 4 levels", striped(3, 252), -1, false},
		{"text 6.5 lines out", striped(40, 110), 55, true},
		{"text on the window's outer line", striped(40, 110), 58, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := edgePlane(tc.level, tc.stroke)
			e, ok := s.edgeAt(61.5, 10, 110, true, 1)
			if ok != tc.found {
				t.Fatalf("found %v at %.2f, want found %v", ok, e, tc.found)
			}
			if ok && math.Abs(e-60.3) > 0.1 {
				t.Fatalf("edge at %.2f, want 60.3 ± 0.1", e)
			}
		})
	}
}
