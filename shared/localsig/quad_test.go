package localsig

import (
	"math"
	"testing"
)

// quadGrid is a 13×8 block grid's quadrant residuals (26×16 quadrants):
// every quadrant at base, its direction alternating (a copy's noise), then
// the quadrants of quadrant row 5 from column 2 (block column 1) for span
// columns at score v in direction (dcb, dcr).
func quadGrid(base float64, span int, v, dcb, dcr float64) (*Grid, [][2]float64) {
	g := &Grid{Cols: 13, Rows: 8}
	q := make([][2]float64, 4*g.Cols*g.Rows)
	for i := range q {
		s := 1.0
		if (i/26+i%26)%2 == 1 {
			s = -1
		}
		q[i] = [2]float64{s * base, 0}
	}
	for c := 2; c < 2+span; c++ {
		q[5*26+c] = along(v, dcb, dcr)
	}
	return g, q
}

// along is a residual of length v in direction (dcb, dcr).
func along(v, dcb, dcr float64) [2]float64 {
	l := math.Hypot(dcb, dcr)
	return [2]float64{v * dcb / l, v * dcr / l}
}

// TestQuadGroups: three or more touching quadrants whose residuals reach
// 0.3 of their tolerance and 3 times the quadrant floor, pointing the same
// way and summing to 1.5 tolerances or more, change the blocks that hold
// them; a pair, a group below any threshold, or quadrants moved in
// opposite directions (a colour edge) do not. The thresholds are
// written out, so that changing one fails.
func TestQuadGroups(t *testing.T) {
	tests := []struct {
		name     string
		base     float64
		span     int
		v        float64
		opposite bool
		want     int // blocks changed
	}{
		{"three quadrants summing to 1.53", 0.05, 3, 0.51, false, 2},
		{"three quadrants summing to 1.47", 0.05, 3, 0.49, false, 0},
		{"two quadrants of one block at a tolerance each", 0.05, 2, 1, false, 0},
		{"four quadrants over two blocks", 0.05, 4, 0.5, false, 2},
		{"one quadrant at two tolerances", 0.05, 1, 2, false, 0},
		{"six quadrants just above 0.3", 0.05, 6, 0.305, false, 3},
		{"six quadrants just below 0.3", 0.05, 6, 0.295, false, 0},
		{"just above 3 times the floor", 0.2, 4, 0.61, false, 2},
		{"just below 3 times the floor", 0.2, 4, 0.59, false, 0},
		{"opposite directions at a colour edge", 0.05, 4, 0.8, true, 0},
	}
	for _, tc := range tests {
		g, q := quadGrid(tc.base, tc.span, tc.v, 3, -4)
		if tc.opposite {
			for c := 3; c < 2+tc.span; c += 2 {
				q[5*26+c] = along(tc.v, -3, 4)
			}
		}
		changed := make([]bool, g.Cols*g.Rows)
		if n := quadGroups(g, changed, q); n != tc.want {
			t.Errorf("%s: %d blocks changed, want %d", tc.name, n, tc.want)
		}
	}
}

// TestQuadGroupsCoherence: three quadrants whose residuals point the
// same way to 0.82 of their lengths' sum are a group, at 0.78 they are
// not.
func TestQuadGroupsCoherence(t *testing.T) {
	for _, tc := range []struct {
		coherence float64
		want      int
	}{{0.82, 2}, {0.78, 0}} {
		g, q := quadGrid(0.05, 0, 0, 0, 0)
		// Unit residuals at +a, 0 and −a: the sum's length over 3 is
		// (2·cos(a) + 1)/3.
		a := math.Acos((3*tc.coherence - 1) / 2)
		q[5*26+2] = [2]float64{math.Cos(a), math.Sin(a)}
		q[5*26+3] = [2]float64{1, 0}
		q[6*26+3] = [2]float64{math.Cos(a), -math.Sin(a)}
		if n := quadGroups(g, make([]bool, g.Cols*g.Rows), q); n != tc.want {
			t.Errorf("coherence %.2f: %d blocks changed, want %d", tc.coherence, n, tc.want)
		}
	}
}

// TestQuadResiduals: with an identity colour fit, a quadrant's residual
// is the block's chroma residual plus the change of its halves (ink over
// one quadrant reads three quarters there and a quarter on the others:
// the halves carry no diagonal), over a tolerance of 8 levels plus 0.6 of
// the larger of the block's steps inside (between quadrants) and to its
// neighbours; a block whose halves are at their limits is not judged.
func TestQuadResiduals(t *testing.T) {
	cbFit, crFit := colourFit{k: 0, b: 1}, colourFit{k: 1, c: 1}
	g := &Grid{Cols: 3, Rows: 3, Blocks: make([]Block, 9)}
	for i := range g.Blocks {
		g.Blocks[i] = Block{Cb: 120, Cr: 140}
	}
	// Signed: Cb left less right halved 2 steps (4 levels), so the left
	// quadrants at Cb −4, the right at −12 (offset 128 removed).
	bk := Block{Cb: 120, Cr: 140, Halves: [4]int8{2, 0, 0, 0}}
	g.Blocks[4] = bk
	in := [3]float64{-8, 12, 128}
	for _, tc := range []struct {
		name   string
		quad   [8]float64 // examined quadrant Cb, Cr (offset 128)
		res    residual
		halves [4]int8
		want   [4]float64 // each quadrant's residual as a share of its tolerance
		judged bool
	}{
		{"unchanged", [8]float64{124, 140, 116, 140, 124, 140, 116, 140}, residual{}, bk.Halves, [4]float64{}, true},
		// Ink over the top left quadrant: Cb +9.6 there, the block's mean
		// +2.4, each half +2.4. Tolerance 8 + 0.6·8 = 12.8.
		{"top left inked", [8]float64{133.6, 140, 116, 140, 124, 140, 116, 140}, residual{cb: 2.4}, bk.Halves, [4]float64{0.5625, 0.1875, 0.1875, 0.1875}, true},
		{"halves at their limit", [8]float64{133.6, 140, 116, 140, 124, 140, 116, 140}, residual{cb: 2.4}, [4]int8{7, 0, 0, 0}, [4]float64{}, false},
	} {
		b := bk
		b.Halves = tc.halves
		g.Blocks[4] = b
		f := feat{quad: tc.quad, cb: 120 + tc.res.cb, cr: 140}
		q := make([][2]float64, 36)
		for i := range q {
			q[i] = [2]float64{math.NaN(), math.NaN()}
		}
		quadResiduals(g, 4, &b, &f, in, tc.res, cbFit, crFit, q)
		for k := 0; k < 4; k++ {
			at := (2+k/2)*6 + 2 + k%2
			got := math.Hypot(q[at][0], q[at][1])
			if !tc.judged {
				if !math.IsNaN(got) {
					t.Errorf("%s: quadrant %d judged (%.3f)", tc.name, k, got)
				}
				continue
			}
			if math.Abs(got-tc.want[k]) > 1e-9 {
				t.Errorf("%s: quadrant %d at %.4f of its tolerance, want %.4f", tc.name, k, got, tc.want[k])
			}
		}
	}
}
