package localsig

import (
	"math"
	"os"
	"strings"
	"testing"
)

// TestThresholdsAreTheDocumented pins the block-match thresholds to the
// values docs/verification.md ("A block matches") states; changing one is
// a change of the verification contract and must change the document too.
func TestThresholdsAreTheDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/verification.md")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		got    float64
		want   float64
		phrase string
	}{
		{"MeanTolerance", MeanTolerance, 14, "within 14 levels of the fitted prediction"},
		{"SignTolerance", SignTolerance, 0.30, "at most 30 % of its AC magnitude"},
		{"SignMinEnergy", SignMinEnergy, 6, "AC norm ≥ 6 levels"},
		{"DetailMin", DetailMin, 4, "signed detail ≥ 4"},
		{"DetailLoss", DetailLoss, 0.8, "at most 0.8\nbelow the median"},
		{"MinCompared", MinCompared, 4, "fewer than 4 compared blocks"},
		{"FullCover", FullCover, 0.97, "≥ 97 % of each"},
		{"EditedMax", EditedMax, 0.5, "more than half of all compared blocks changed"},
		{"WeakCluster", WeakCluster, 3, "A group weighing less than 3"},
		{"IsolatedStrength", IsolatedStrength, 2, "its mean prediction by twice the tolerance"},
		{"ChromaStrength", ChromaStrength, 1.5, "chroma prediction by 1.5 times the tolerance"},
		{"LineReach", LineReach, 3, "at most 3 columns apart"},
		{"LineSpan", LineSpan, 5, "spanning at least 5 columns"},
		{"ToeKnee", ToeKnee, 48, "bends on its own below 48"},
		{"ShoulderKnee", ShoulderKnee, 208, "and above 208"},
		{"KneeBlocks", KneeBlocks, 8, "at least 8 agreeing blocks lie beyond the knee"},
		{"ProbeMaxShort", ProbeMaxShort, 512, "at most 512"},
		{"DetailGain", DetailGain, 0.45, "more than 0.45 above the median change"},
		{"DetailGainMin", DetailGainMin, 3, "at least 3 levels of mean absolute gradient above"},
		{"SlopeRange", SlopeRange, 2, "bounded to ×0.5..×2"},
		{"BoostMin", BoostMin, 4, "at least 4 levels above the signed one"},
		{"ClipReach", ClipReach, 3, "its mean ± 3 × its detail"},
		{"ChromaGroupMin", ChromaGroupMin, 0.3, "each at least 0.3 of a tolerance"},
		{"ChromaGroupFloor", ChromaGroupFloor, 4, "and 4 times the chroma floor"},
		{"ChromaGroupBlocks", ChromaGroupBlocks, 2, "Two or more touching blocks"},
		{"ChromaGroupCoherence", ChromaGroupCoherence, 0.8, "at least 0.8 of the sum of their lengths"},
		{"ChromaGroupSum", ChromaGroupSum, 1.2, "sum to at least 1.2 tolerances"},
		{"HueMin", HueMin, 16, "a signed chroma of at least 16 levels"},
		{"HueOff", HueOff, 4, "within 4 levels of the line"},
		{"HueQuantile", HueQuantile, 0.02, "without the 2 % at each end"},
		{"HueBlocks", HueBlocks, 8, "at least 8 such blocks"},
		{"CrossTalkMin", CrossTalkMin, 0.25, "a cross-talk of at least 0.25"},
	}
	text := strings.Join(strings.Fields(string(doc)), " ")
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s = %v, docs/verification.md says %v", tc.name, tc.got, tc.want)
		}
		if !strings.Contains(text, strings.Join(strings.Fields(tc.phrase), " ")) {
			t.Errorf("docs/verification.md no longer says %q (%s)", tc.phrase, tc.name)
		}
	}
}

// TestMeanToleranceEdges: a block mean 14 levels off the prediction
// matches, a hair more does not; on the clipped side near 0 and 255 the
// tolerance is twice that, on the other side it is not.
func TestMeanToleranceEdges(t *testing.T) {
	tests := []struct {
		name    string
		m, p    float64
		changed bool
	}{
		{"mid-tone, 14 above", 114, 100, false},
		{"mid-tone, 14 below", 86, 100, false},
		{"mid-tone, 14.01 above", 114.01, 100, true},
		{"mid-tone, 14.01 below", 85.99, 100, true},
		{"mid-tone, 28 below", 72, 100, true},
		{"bright, 28 below (clipped side)", 212, 240, false},
		{"bright, 28.01 below (clipped side)", 211.99, 240, true},
		{"bright, 14.01 above (not clipped side)", 254.01, 240, true},
		{"dark, 28 above (clipped side)", 38, 10, false},
		{"dark, 28.01 above (clipped side)", 38.01, 10, true},
		{"dark, 14.01 below (not clipped side)", 0, 14.01, true},
		{"prediction above 255 is clipped", 255, 262, false},
	}
	for _, tc := range tests {
		if got := meanChanged(tc.m, tc.p, 1, false); got != tc.changed {
			t.Errorf("%s: meanChanged(%v, %v) = %v, want %v", tc.name, tc.m, tc.p, got, tc.changed)
		}
	}
	// Colour grids: a mean predicted near black gets twice the tolerance
	// below it too (crushed shadows of a dark, flat picture).
	for _, tc := range []struct {
		name    string
		m, p    float64
		changed bool
	}{
		{"dark, 16 below", 0, 16, false},
		{"dark, 28.01 below", 0, 28.01 - 1e-9, true},
		{"dark, 28.01 above", 38.01, 10, true},
		{"mid-tone, 14.01 below", 85.99, 100, true},
	} {
		if got := meanChanged(tc.m, tc.p, 1, true); got != tc.changed {
			t.Errorf("colour %s: meanChanged(%v, %v) = %v, want %v", tc.name, tc.m, tc.p, got, tc.changed)
		}
	}
}

// TestSignToleranceEdges: a structured block with up to 30 % of its AC
// magnitude on disagreeing signs matches, one with more does not; a block
// without structure (AC norm under 6 levels) is never judged by its signs.
func TestSignToleranceEdges(t *testing.T) {
	const agree = uint16(1<<15 - 1) // the signed block's AC signs: all positive
	// block returns AC coefficients of AC norm norm (levels) with the
	// fraction bad of their magnitude on the first coefficient, of the
	// sign opposite to the signed one.
	block := func(bad, norm float64) *[15]float64 {
		var ac [15]float64
		ac[0] = -bad * 100
		for k := 1; k < 15; k++ {
			ac[k] = (1 - bad) * 100 / 14
		}
		var e float64
		for _, c := range ac {
			e += c * c
		}
		scale := norm * 4 / math.Sqrt(e)
		for k := range ac {
			ac[k] *= scale
		}
		return &ac
	}
	tests := []struct {
		name      string
		bad, norm float64
		changed   bool
	}{
		{"no disagreement", 0, 20, false},
		{"29 % disagreeing", 0.29, 20, false},
		{"30 % disagreeing", 0.30, 20, false},
		{"30.5 % disagreeing", 0.305, 20, true},
		{"45 % disagreeing", 0.45, 20, true},
		{"45 % disagreeing, AC norm 5.99", 0.45, 5.99, false},
		{"45 % disagreeing, AC norm 6.01", 0.45, 6.01, true},
		{"all disagreeing, flat block", 1, 1, false},
	}
	for _, tc := range tests {
		if _, got := signsChanged(block(tc.bad, tc.norm), agree, false, false); got != tc.changed {
			t.Errorf("%s: signsChanged = %v, want %v", tc.name, got, tc.changed)
		}
	}
}

// TestFitColourStrongSaturation: a saturation boost that moves most
// blocks' chroma beyond the tolerance of an offset alone is still fitted
// (the fit starts from the ratio of the spreads), while a recoloured
// minority stays off the fit.
func TestFitColourStrongSaturation(t *testing.T) {
	var in [][3]float64
	var ys []float64
	for i := 0; i < 200; i++ {
		cb := float64(i%41-20) * 3 // −60..60
		cr := float64((i*7)%41-20) * 2
		in = append(in, [3]float64{cb, cr, 128})
		y := 1.6 * cb
		if i%10 == 0 {
			y = -cb + 40 // recoloured
		}
		ys = append(ys, y)
	}
	f := fitColour(in, ys, 0, gamut{})
	for i, v := range in {
		off := math.Abs(ys[i]-f.at(v)) > ChromaTolerance
		switch {
		case i%10 != 0 && off:
			t.Fatalf("block %d (cb %v): residual %.1f off the fit %+v", i, v[0], ys[i]-f.at(v), f)
		case i%10 == 0 && math.Abs(-v[0]+40-1.6*v[0]) > 2*ChromaTolerance && !off:
			t.Fatalf("recoloured block %d (cb %v) within the fit %+v", i, v[0], f)
		}
	}
}

// TestLineShaped: a group of changed blocks within two rows spanning at
// least LineSpan columns is a line of text, kept whatever its weight; a
// shorter or taller group is not.
func TestLineShaped(t *testing.T) {
	g := &Grid{Cols: 20, Rows: 10}
	at := func(c, r int) int { return r*g.Cols + c }
	for _, tc := range []struct {
		name string
		comp []int
		want bool
	}{
		{"five columns, one row", []int{at(2, 4), at(4, 4), at(6, 4)}, true},
		{"five columns, two rows", []int{at(2, 4), at(4, 5), at(6, 4)}, true},
		{"four columns", []int{at(2, 4), at(5, 4)}, false},
		{"three rows", []int{at(2, 4), at(4, 5), at(7, 6)}, false},
	} {
		if got := lineShaped(g, tc.comp); got != tc.want {
			t.Errorf("%s: lineShaped = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestFlatAtItsThresholds: a grid is flat while fewer than
// ContainedMinStructured blocks stand out by detail (from twice
// DetailMin), mean (beyond MeanTolerance of the median) or chroma (beyond
// ChromaTolerance of the median), each tested on both sides of its bound.
func TestFlatAtItsThresholds(t *testing.T) {
	grid := func(n int, set func(*Block)) *Grid {
		g := &Grid{Format: FormatColour, Cols: 8, Rows: 8, Blocks: make([]Block, 64)}
		for i := range g.Blocks {
			g.Blocks[i] = Block{Mean: 40, Cb: 128, Cr: 128, Detail: quantDetail(1)}
		}
		for i := 0; i < n; i++ {
			set(&g.Blocks[i])
		}
		return g
	}
	// quantDetail rounds: the detail just under twice DetailMin is the
	// largest quantised level below it.
	under := quantDetail(2 * DetailMin)
	for detailOf(under) >= 2*DetailMin {
		under--
	}
	tests := []struct {
		name string
		n    int
		set  func(*Block)
		flat bool
	}{
		{"detail at twice DetailMin", ContainedMinStructured, func(b *Block) { b.Detail = quantDetail(2*DetailMin) + 1 }, false},
		{"detail just under", ContainedMinStructured, func(b *Block) { b.Detail = under }, true},
		{"mean beyond the tolerance", ContainedMinStructured, func(b *Block) { b.Mean = 40 + MeanTolerance + 1 }, false},
		{"mean at the tolerance", ContainedMinStructured, func(b *Block) { b.Mean = 40 + MeanTolerance }, true},
		{"Cb beyond the tolerance", ContainedMinStructured, func(b *Block) { b.Cb = 128 + ChromaTolerance + 1 }, false},
		{"Cb at the tolerance", ContainedMinStructured, func(b *Block) { b.Cb = 128 + ChromaTolerance }, true},
		{"Cr beyond the tolerance", ContainedMinStructured, func(b *Block) { b.Cr = 128 - ChromaTolerance - 1 }, false},
		{"one block too few", ContainedMinStructured - 1, func(b *Block) { b.Mean = 200 }, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := flat(grid(tc.n, tc.set)); got != tc.flat {
				t.Fatalf("flat = %v, want %v", got, tc.flat)
			}
		})
	}
}
