package localsig

import (
	"math"
	"testing"
)

// TestKeptHue: an examined chroma along its signed chroma's hue (at most
// 4 levels off the line), scaled by a gain of at least 1 within the range
// the picture's other colours show, with a signed chroma of at least 16 levels, kept
// its hue; a turned hue, a gain outside the range or below 1 (a loss of
// chroma, as white or black text makes), a point 4.1 levels off the line,
// a signed chroma of 15.9 or an empty range did not. The
// thresholds are written out, so that changing one fails.
func TestKeptHue(t *testing.T) {
	// A signed colour (-16, 49) scaled by 1.39 with 3.9 and 4.1 levels
	// across the hue: the unit perpendicular is (-49, -16)/|s|.
	s := [2]float64{-16, 49}
	n := math.Hypot(s[0], s[1])
	at := func(g, off float64) (float64, float64) {
		return g*s[0] - off*s[1]/n, g*s[1] + off*s[0]/n
	}
	tests := []struct {
		name     string
		cb, cr   float64
		scb, scr float64
		lo, hi   float64
		want     bool
	}{
		{"saturation ×1.39 within 1.1..1.43", -22.2, 68.1, s[0], s[1], 1.1, 1.43, true},
		{"3.9 levels off the hue", 0, 0, s[0], s[1], 1.1, 1.43, true},
		{"4.1 levels off the hue", 0, 0, s[0], s[1], 1.1, 1.43, false},
		{"gain 1.45 above the range", -23.2, 71.05, s[0], s[1], 1.1, 1.43, false},
		{"gain 1.05 below the range", -16.8, 51.45, s[0], s[1], 1.1, 1.43, false},
		{"hue turned around", 16, -49, s[0], s[1], -2, 2, false},
		{"gain 0.9 within 0.8..1.3, a loss", -14.4, 44.1, s[0], s[1], 0.8, 1.3, false},
		{"gain 1.0 within 0.8..1.3", -16, 49, s[0], s[1], 0.8, 1.3, true},
		{"signed chroma 16.1", 0, 22.54, 0, 16.1, 1.1, 1.43, true},
		{"signed chroma 15.9", 0, 22.26, 0, 15.9, 1.1, 1.43, false},
		{"no range", -22.2, 68.1, s[0], s[1], math.Inf(1), math.Inf(-1), false},
	}
	tests[1].cb, tests[1].cr = at(1.3, 3.9)
	tests[2].cb, tests[2].cr = at(1.3, 4.1)
	for _, tc := range tests {
		hcb, hcr, ok := keptHue(tc.cb, tc.cr, tc.scb, tc.scr, tc.lo, tc.hi)
		if ok != tc.want {
			t.Errorf("%s: kept %v, want %v", tc.name, ok, tc.want)
			continue
		}
		if ok {
			// The miss left is the part off the hue.
			_, off := alongHue(tc.cb, tc.cr, tc.scb, tc.scr)
			if d := math.Hypot(hcb, hcr) - math.Abs(off); math.Abs(d) > 1e-9 {
				t.Errorf("%s: miss %.3f, want %.3f", tc.name, math.Hypot(hcb, hcr), math.Abs(off))
			}
		}
	}
}

// TestGainRange: the gains' range leaves out 2 % of them at each end
// (one of 51 on each side, none of 50), and needs 8 gains.
func TestGainRange(t *testing.T) {
	gains := func(k int) []float64 {
		g := make([]float64, k)
		for i := range g {
			g[i] = 1 + float64(i)/100
		}
		return g
	}
	tests := []struct {
		k      int
		lo, hi float64
	}{
		{51, 1.01, 1.49},
		{50, 1.00, 1.49},
		{8, 1.00, 1.07},
	}
	for _, tc := range tests {
		lo, hi := gainRange(gains(tc.k))
		if math.Abs(lo-tc.lo) > 1e-9 || math.Abs(hi-tc.hi) > 1e-9 {
			t.Errorf("%d gains: range %.2f..%.2f, want %.2f..%.2f", tc.k, lo, hi, tc.lo, tc.hi)
		}
	}
	if lo, hi := gainRange(gains(7)); lo <= hi {
		t.Errorf("7 gains: range %.2f..%.2f, want empty", lo, hi)
	}
}
