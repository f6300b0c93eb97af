package main

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBoxBlurIsTheWindowMean: the two passes give, at every pixel, the
// mean of the (2r+1)² window around it cut at the picture's edges.
func TestBoxBlurIsTheWindowMean(t *testing.T) {
	const w, h, r = 7, 5, 2
	rng := rand.New(rand.NewPCG(1, 2))
	v := make([]float64, w*h)
	for i := range v {
		v[i] = rng.Float64() * 255
	}
	got := boxBlur(v, w, h, r)
	for y := range h {
		for x := range w {
			var s float64
			n := 0
			for yy := max(y-r, 0); yy <= min(y+r, h-1); yy++ {
				for xx := max(x-r, 0); xx <= min(x+r, w-1); xx++ {
					s += v[yy*w+xx]
					n++
				}
			}
			if want := s / float64(n); math.Abs(got[y*w+x]-want) > 1e-9 {
				t.Fatalf("(%d,%d) = %v, want %v", x, y, got[y*w+x], want)
			}
		}
	}
}
