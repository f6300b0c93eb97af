package main

import (
	"math"
	"testing"
)

// TestHomographyMapsCorners checks the perspective attacks' map: each
// corner goes where it was sent, and the centre of a symmetric trapezoid
// stays on its axis.
func TestHomographyMapsCorners(t *testing.T) {
	a := [4][2]float64{{0, 0}, {100, 0}, {100, 80}, {0, 80}}
	b := [4][2]float64{{10, 5}, {90, 5}, {100, 80}, {0, 80}}
	h := homography(a, b)
	apply := func(x, y float64) (float64, float64) {
		d := h[6]*x + h[7]*y + 1
		return (h[0]*x + h[1]*y + h[2]) / d, (h[3]*x + h[4]*y + h[5]) / d
	}
	for i := range a {
		u, v := apply(a[i][0], a[i][1])
		if math.Abs(u-b[i][0]) > 1e-9 || math.Abs(v-b[i][1]) > 1e-9 {
			t.Errorf("corner %d: (%g, %g), want %v", i, u, v, b[i])
		}
	}
	if u, _ := apply(50, 40); math.Abs(u-50) > 1e-9 {
		t.Errorf("centre x = %g, want 50", u)
	}
	// A trapezoid is not affine: the midpoint of the left edge does not
	// go to the midpoint of its image.
	if _, v := apply(0, 40); math.Abs(v-42.5) < 0.1 {
		t.Errorf("left-edge midpoint y = %g: the map looks affine", v)
	}
}
