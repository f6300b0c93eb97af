package localsig

import (
	"math"
	"testing"
)

// groupGrid is a 26×16 grid's chroma residuals: every block at (base, 0)
// alternately signed (a copy's noise, no direction), then the blocks of
// row 5 from column 3 for span columns at v.
func groupGrid(base float64, span int, v [2]float64) (*Grid, [][2]float64) {
	g := &Grid{Cols: 26, Rows: 16}
	res := make([][2]float64, g.Cols*g.Rows)
	for i := range res {
		s := 1.0
		if (i/g.Cols+i%g.Cols)%2 == 1 {
			s = -1
		}
		res[i] = [2]float64{s * base, 0}
	}
	for c := 3; c < 3+span; c++ {
		res[5*g.Cols+c] = v
	}
	return g, res
}

// TestChromaGroups: two or more touching blocks whose chroma residuals
// reach 0.3 of their tolerance and 4 times the chroma floor, pointing the
// same way (their sum at least 0.8 of their lengths' sum) and summing to
// 1.2 tolerances or more, are changed; a group below any of these, a
// single block, blocks moved in opposite directions (a colour edge), or
// blocks on the ring of added surroundings are not. The thresholds are
// written out, so that changing one fails.
func TestChromaGroups(t *testing.T) {
	tests := []struct {
		name     string
		base     float64
		span     int
		v        [2]float64
		opposite bool // every other block of the group turned around
		onRing   bool
		want     int
	}{
		{"three blocks of colour-only text", 0.05, 3, [2]float64{0.3, 0.5}, false, false, 3},
		{"two blocks summing to 1.22", 0.05, 2, [2]float64{0.61, 0}, false, false, 2},
		{"two blocks summing to 1.18", 0.05, 2, [2]float64{0.59, 0}, false, false, 0},
		{"one block at 1.5 tolerances", 0.05, 1, [2]float64{1.5, 0}, false, false, 0},
		{"five blocks just above 0.3", 0.05, 5, [2]float64{0, 0.305}, false, false, 5},
		{"five blocks just below 0.3", 0.05, 5, [2]float64{0, 0.295}, false, false, 0},
		{"just above 4 times the floor", 0.2, 5, [2]float64{0.81, 0}, false, false, 5},
		{"just below 4 times the floor", 0.2, 5, [2]float64{0.79, 0}, false, false, 0},
		{"opposite directions at a colour edge", 0.05, 4, [2]float64{0.5, 0.5}, true, false, 0},
		{"on the ring of added surroundings", 0.05, 4, [2]float64{0.5, 0.5}, false, true, 0},
	}
	for _, tc := range tests {
		g, res := groupGrid(tc.base, tc.span, tc.v)
		if tc.opposite {
			for c := 4; c < 3+tc.span; c += 2 {
				res[5*g.Cols+c] = [2]float64{-tc.v[0], -tc.v[1]}
			}
		}
		ring := make([]bool, len(res))
		if tc.onRing {
			for c := 3; c < 3+tc.span; c++ {
				ring[5*g.Cols+c] = true
			}
		}
		changed := make([]bool, len(res))
		if n := chromaGroups(g, changed, res, ring); n != tc.want {
			t.Errorf("%s: %d blocks changed, want %d", tc.name, n, tc.want)
		}
	}
}

// TestChromaGroupsCoherence: a group whose residuals point the same way
// to 0.82 of their lengths' sum is changed, one at 0.78 is not.
func TestChromaGroupsCoherence(t *testing.T) {
	for _, tc := range []struct {
		coherence float64
		want      int
	}{{0.82, 2}, {0.78, 0}} {
		g, res := groupGrid(0.05, 0, [2]float64{})
		// Two blocks of length 1 at ±a from a common direction: the sum's
		// length over 2 is cos(a).
		a := math.Acos(tc.coherence)
		res[5*g.Cols+3] = [2]float64{math.Cos(a), math.Sin(a)}
		res[5*g.Cols+4] = [2]float64{math.Cos(a), -math.Sin(a)}
		changed := make([]bool, len(res))
		if n := chromaGroups(g, changed, res, make([]bool, len(res))); n != tc.want {
			t.Errorf("coherence %.2f: %d blocks changed, want %d", tc.coherence, n, tc.want)
		}
	}
}

// TestChromaGroupsNeedBlocksToFloor: fewer than FloorMin compared blocks
// give no floor, and no group.
func TestChromaGroupsNeedBlocksToFloor(t *testing.T) {
	g, res := groupGrid(0.05, 3, [2]float64{0.6, 0.6})
	for i := range res {
		if i/g.Cols != 5 {
			res[i] = [2]float64{math.NaN(), math.NaN()}
		}
	}
	if n := chromaGroups(g, make([]bool, len(res)), res, make([]bool, len(res))); n != 0 {
		t.Errorf("%d blocks changed with %d compared, want 0", n, g.Cols)
	}
}
