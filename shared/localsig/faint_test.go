package localsig

import (
	"math"
	"testing"
)

// scoreGrid is a 26×16 grid's scores: every block at base, then the
// blocks of row `row` from column c0 for `span` columns at v.
func scoreGrid(base float64, row, c0, span int, v float64) (*Grid, []float64) {
	g := &Grid{Cols: 26, Rows: 16}
	s := make([]float64, g.Cols*g.Rows)
	for i := range s {
		s[i] = base
	}
	for c := c0; c < c0+span; c++ {
		s[row*g.Cols+c] = v
	}
	return g, s
}

// TestFaintLine: a row of blocks scoring FaintFloor (4) times the floor
// and at least FaintMin (0.25), over FaintSpan (8) columns, is a line
// (with gaps, every other column); below either threshold, shorter, or on
// the ring of added surroundings, it is not. The thresholds are written
// out, so that changing one fails.
func TestFaintLine(t *testing.T) {
	tests := []struct {
		name       string
		base, v    float64
		span       int
		onRing     bool
		wantMarked int
	}{
		{"a line over a quiet copy", 0.03, 0.5, 12, false, 12},
		{"at 8 columns", 0.03, 0.5, 8, false, 8},
		{"at 7 columns", 0.03, 0.5, 7, false, 0},
		{"every other column, just above 4 times the floor", 0.1, 0.41, -12, false, 6},
		{"every other column, just below 4 times the floor", 0.1, 0.39, -12, false, 0},
		{"just above 0.25", 0.01, 0.255, 12, false, 12},
		{"just below 0.25", 0.01, 0.245, 12, false, 0},
		{"on the ring of added surroundings", 0.03, 0.5, 12, true, 0},
	}
	for _, tc := range tests {
		row := 5
		if tc.onRing {
			row = 0
		}
		g, s := scoreGrid(tc.base, row, 3, max(tc.span, 0), tc.v)
		if tc.span < 0 { // every other column of -span
			for c := 0; c < -tc.span; c += 2 {
				s[row*g.Cols+3+c] = tc.v
			}
		}
		ring := make([]bool, len(s))
		for i := range ring {
			ring[i] = tc.onRing && onEdge(g, i)
		}
		changed := make([]bool, len(s))
		n := faintLine(g, changed, s, ring, residualFloor(s))
		if n != tc.wantMarked {
			t.Errorf("%s: %d blocks marked, want %d", tc.name, n, tc.wantMarked)
		}
		marked := 0
		for _, c := range changed {
			if c {
				marked++
			}
		}
		if marked != n {
			t.Errorf("%s: %d blocks changed, %d counted", tc.name, marked, n)
		}
	}
}

// TestFaintLineSpansTwoRowsAtMost: the same blocks spread over three rows
// are not a line.
func TestFaintLineSpansTwoRowsAtMost(t *testing.T) {
	for _, rows := range []int{2, 3} {
		// Every other column, so that no two blocks touch (no patch), in
		// a zigzag over the rows, so that each groups with the next.
		zig := map[int][]int{2: {0, 1}, 3: {0, 1, 2, 1}}[rows]
		g, s := scoreGrid(0.03, 5, 3, 0, 0.5)
		for k := 0; k < 12; k++ {
			s[(5+zig[k%len(zig)])*g.Cols+3+2*k] = 0.5
		}
		n := faintLine(g, make([]bool, len(s)), s, make([]bool, len(s)), residualFloor(s))
		if got, want := n > 0, rows <= 2; got != want {
			t.Errorf("over %d rows: %d marked", rows, n)
		}
	}
}

// TestResidualFloor: the FloorQuantile of the scored blocks, none below
// FloorMin of them.
func TestResidualFloor(t *testing.T) {
	s := make([]float64, 100)
	for i := range s {
		s[i] = float64(i) / 100
	}
	s[7] = math.NaN()
	if f := residualFloor(s); math.Abs(f-0.9) > 0.011 {
		t.Errorf("floor %.3f, want about 0.9", f)
	}
	// FloorMin (32) blocks at least.
	if f := residualFloor(make([]float64, 31)); !math.IsInf(f, 1) {
		t.Errorf("floor of 31 blocks %.3f, want +Inf", f)
	}
	if f := residualFloor(make([]float64, 32)); f != 0 {
		t.Errorf("floor of 32 zero blocks %.3f, want 0", f)
	}
}

// TestStandsOut: a block failing its test stands out of a small group
// from LoneFloor (8) times the floor.
func TestStandsOut(t *testing.T) {
	tests := []struct {
		score, floor float64
		want         bool
	}{
		{1.0, 0.12, true},
		{1.0, 0.13, false},
		{0.99, 0.01, false}, // within its test's tolerance
		{5, math.Inf(1), false},
	}
	for _, tc := range tests {
		if got := standsOut(tc.score, tc.floor); got != tc.want {
			t.Errorf("standsOut(%.3f, %.4f) = %v, want %v", tc.score, tc.floor, got, tc.want)
		}
	}
}

// TestFaintPatch: FaintArea (6) faint blocks in one group of any shape
// are changed; 5 are not.
func TestFaintPatch(t *testing.T) {
	for _, n := range []int{5, 6, 12} {
		g, s := scoreGrid(0.05, 0, 0, 0, 0)
		for k := 0; k < n; k++ {
			s[(6+k/3)*g.Cols+10+k%3] = 0.5 // a patch three blocks wide
		}
		got := faintLine(g, make([]bool, len(s)), s, make([]bool, len(s)), residualFloor(s))
		want := 0
		if n >= 6 {
			want = n
		}
		if got != want {
			t.Errorf("a patch of %d faint blocks: %d marked, want %d", n, got, want)
		}
	}
}

// TestFaintBand: two rows in which each of 8 or more consecutive columns
// scores BandFloor (2) times the floor and FaintMin, BandMean (3) times
// on average, are a band; a column below, a lower mean, or a shorter run
// are not. With a floor of 0.15: each column at least 0.3, on average
// 0.45.
func TestFaintBand(t *testing.T) {
	tests := []struct {
		name  string
		v     float64
		span  int
		dip   float64 // the middle column's score (0: as the others)
		marks int
	}{
		{"ten columns at 0.5", 0.5, 10, 0, 10},
		{"seven columns at 0.5", 0.5, 7, 0, 0},
		{"one column at 0.29", 0.5, 10, 0.29, 0},
		{"one column at 0.31", 0.5, 10, 0.31, 10},
		{"ten columns at 0.44", 0.44, 10, 0, 0},
		{"ten columns at 0.46", 0.46, 10, 0, 10},
	}
	for _, tc := range tests {
		g, s := scoreGrid(0.15, 6, 4, tc.span, tc.v)
		if tc.dip > 0 {
			s[6*g.Cols+4+tc.span/2] = tc.dip
		}
		n := faintLine(g, make([]bool, len(s)), s, make([]bool, len(s)), residualFloor(s))
		if n != tc.marks {
			t.Errorf("%s: %d marked, want %d", tc.name, n, tc.marks)
		}
	}
}
