package localsig

import (
	"fmt"
	"math"
	"testing"
)

// toneBlocks returns n blocks of signed means evenly over lo..hi, with
// neighbourhood means and chroma magnitudes that vary independently of
// the mean (so that the local-contrast and saturation terms are
// determined and fitted as zero), and their examined means curve(m).
func toneBlocks(n int, lo, hi float64, curve func(float64) float64) (xs, ns, sats, ys []float64) {
	for i := 0; i < n; i++ {
		m := lo + (hi-lo)*float64(i)/float64(max(n-1, 1))
		xs = append(xs, m)
		ns = append(ns, m+float64((i*37)%23-11))
		sats = append(sats, float64((i*53)%61))
		ys = append(ys, curve(m))
	}
	return xs, ns, sats, ys
}

// worstResidual is the largest |y − fit| over the blocks whose signed
// mean lies in lo..hi.
func worstResidual(t tone, xs, ns, sats, ys []float64, lo, hi float64) float64 {
	var w float64
	for i := range xs {
		if xs[i] >= lo && xs[i] <= hi {
			w = max(w, math.Abs(ys[i]-t.at(xs[i], ns[i], sats[i])))
		}
	}
	return w
}

// kneeCurve is a tone curve that is straight between levels 48 and 208
// and bends at both (slope 1+toe below 48: crushed shadows; 1−shoulder
// above 208: compressed highlights). The levels are written out, not
// taken from ToeKnee and ShoulderKnee: the tests pin where the fit bends.
func kneeCurve(toe, shoulder float64) func(float64) float64 {
	return bentCurve(48, toe, 208, shoulder)
}

// bentCurve bends at toeAt by toe and at shoulderAt by shoulder.
func bentCurve(toeAt, toe, shoulderAt, shoulder float64) func(float64) float64 {
	return func(m float64) float64 {
		return m + toe*min(0, m-toeAt) - shoulder*max(0, m-shoulderAt)
	}
}

// TestToneCurveBendsAtTheKnees: a tone change that bends exactly at
// levels 48 and 208 (ToeKnee, ShoulderKnee: a crushed toe, a compressed
// shoulder, a contrast curve that clips) is fitted to within a level on
// every block, shadows and highlights included; the same bends at half
// or twice those levels leave blocks off by levels, so the knees are
// where the fit bends, not anywhere.
func TestToneCurveBendsAtTheKnees(t *testing.T) {
	tests := []struct {
		name           string
		curve          func(float64) float64
		exact          bool
		worstLo, worst float64 // range of signed means judged
	}{
		{"toe at ToeKnee", kneeCurve(0.3, 0), true, 0, 255},
		{"shoulder at ShoulderKnee", kneeCurve(0, 0.35), true, 0, 255},
		{"toe and shoulder", kneeCurve(0.3, 0.35), true, 0, 255},
		{"toe at 24", bentCurve(24, 0.5, 208, 0), false, 0, 48},
		{"toe at 96", bentCurve(96, 0.3, 208, 0), false, 0, 96},
		{"shoulder at 104", bentCurve(48, 0, 104, 0.35), false, 104, 255},
		{"shoulder at 232", bentCurve(48, 0, 232, 0.6), false, 208, 255},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			xs, ns, sats, ys := toneBlocks(240, 0, 255, tc.curve)
			fit := fitTone(xs, ns, sats, ys, true)
			w := worstResidual(fit, xs, ns, sats, ys, tc.worstLo, tc.worst)
			if tc.exact && w > 1 {
				t.Errorf("worst residual %.2f levels, want ≤ 1 (fit %+v)", w, fit)
			}
			if !tc.exact && w < 2 {
				t.Errorf("worst residual %.2f levels, want ≥ 2: the fit bends where it should not (fit %+v)", w, fit)
			}
		})
	}
}

// TestKneeNeedsEnoughBlocks: the curve bends beyond a knee on the
// evidence of 8 agreeing blocks there (KneeBlocks) and not fewer: a handful
// of dark blocks darker than the rest of the picture's curve predicts
// (a local edit in the shadows) stays off the fit, as many as
// KneeBlocks are a tone change's toe. The same for the shoulder.
func TestKneeNeedsEnoughBlocks(t *testing.T) {
	for _, end := range []string{"toe", "shoulder"} {
		for _, n := range []int{4, 7, 8, 16} {
			t.Run(fmt.Sprintf("%s/%d blocks beyond the knee", end, n), func(t *testing.T) {
				// 200 blocks between the knees on the identity, n beyond
				// the knee on a bend that stays within MeanTolerance of it
				// (so that they are among the agreeing blocks).
				curve := kneeCurve(0.25, 0)
				lo, hi := 2.0, 44.0
				if end == "shoulder" {
					curve = kneeCurve(0, 0.25)
					lo, hi = 212.0, 253.0
				}
				xs, ns, sats, ys := toneBlocks(200, 49, 207, curve)
				bx, bn, bs, by := toneBlocks(n, lo, hi, curve)
				xs, ns, sats, ys = append(xs, bx...), append(ns, bn...), append(sats, bs...), append(ys, by...)
				fit := fitTone(xs, ns, sats, ys, true)
				w := worstResidual(fit, xs, ns, sats, ys, lo, hi)
				bends := n >= 8
				if bends && w > 1 {
					t.Errorf("%d blocks beyond the knee: worst residual %.2f, want ≤ 1 (the curve bends there; fit %+v)", n, w, fit)
				}
				if !bends && w < 3 {
					t.Errorf("%d blocks beyond the knee: worst residual %.2f, want ≥ 3 (too few to bend the curve; fit %+v)", n, w, fit)
				}
			})
		}
	}
}

// TestLineReach: changed blocks in the same or an adjacent row group
// when at most LineReach columns apart (the gaps between words of a line
// of text), not when further apart, and never across two rows.
func TestLineReach(t *testing.T) {
	g := &Grid{Cols: 30, Rows: 10}
	at := func(c, r int) int { return r*g.Cols + c }
	tests := []struct {
		name   string
		blocks []int
		groups int
	}{
		{"side by side", []int{at(4, 3), at(5, 3)}, 1},
		{"LineReach apart", []int{at(4, 3), at(4+LineReach, 3)}, 1},
		{"LineReach apart, next row", []int{at(4, 3), at(4+LineReach, 4)}, 1},
		{"LineReach+1 apart", []int{at(4, 3), at(5+LineReach, 3)}, 2},
		{"LineReach+1 apart, next row", []int{at(4, 3), at(5+LineReach, 4)}, 2},
		{"words of a line", []int{at(2, 5), at(3, 5), at(2+LineReach+1, 5), at(2+2*LineReach+1, 5), at(2+3*LineReach+1, 5)}, 1},
		{"two rows apart", []int{at(4, 3), at(4, 5)}, 2},
		{"a column of three", []int{at(4, 3), at(4, 4), at(4, 5)}, 1},
	}
	for _, tc := range tests {
		flagged := make([]bool, g.Cols*g.Rows)
		for _, i := range tc.blocks {
			flagged[i] = true
		}
		if got := len(components(g, flagged, LineReach)); got != tc.groups {
			t.Errorf("%s: %d groups, want %d", tc.name, got, tc.groups)
		}
	}
	// The reach in absolute columns, so that doubling or halving it is
	// seen even where the cases above scale with it.
	flagged := make([]bool, g.Cols*g.Rows)
	flagged[at(1, 1)], flagged[at(4, 1)], flagged[at(8, 1)] = true, true, true
	if got := len(components(g, flagged, LineReach)); got != 2 {
		t.Errorf("blocks at columns 1, 4 and 8: %d groups, want 2 (3 columns apart group, 4 do not)", got)
	}
}

// TestToneFitMostlyBlack: a gamma on a picture that is mostly black with
// a minority of mid-tones (a dark wallpaper) moves every mid-tone beyond
// the tolerance of an offset; the fit still follows the curve, by rank,
// and explains every block. The same blocks with a fifth of the
// mid-tones darkened instead stay off the fit.
func TestToneFitMostlyBlack(t *testing.T) {
	gamma := func(m float64) float64 { return 255 * math.Pow(m/255, 0.75) }
	xs, ns, sats, ys := toneBlocks(240, 0, 3, gamma)
	mx, mn, ms, my := toneBlocks(96, 16, 176, gamma)
	xs, ns, sats, ys = append(xs, mx...), append(ns, mn...), append(sats, ms...), append(ys, my...)
	for i := range sats {
		sats[i] = 0 // a grey picture
	}
	fit := fitTone(xs, ns, sats, ys, true)
	if w := worstResidual(fit, xs, ns, sats, ys, 0, 255); w > MeanTolerance {
		t.Errorf("gamma 0.75 on a mostly black picture: worst residual %.1f levels, want ≤ %d (fit %+v)", w, MeanTolerance, fit)
	}
	edited := append([]float64(nil), ys...)
	for i := 240; i < len(edited); i += 5 {
		edited[i] -= 40
	}
	fit = fitTone(xs, ns, sats, edited, true)
	for i := 240; i < len(edited); i += 5 {
		if r := edited[i] - fit.at(xs[i], ns[i], sats[i]); r > -MeanTolerance {
			t.Errorf("darkened block %d (mean %.0f) within the fit: residual %.1f (fit %+v)", i, xs[i], r, fit)
		}
	}
}

// TestFlatSignedBlockGradients: on a block that was flat when signed,
// the smooth ramp a local tone map lays over it is not structure, while
// the broadband structure of text or a pasted object is, and disagrees.
func TestFlatSignedBlockGradients(t *testing.T) {
	var ramp, text [15]float64
	ramp[3], ramp[0], ramp[7] = 48, -5, -9 // a vertical ramp, a little curvature
	for k := range text {
		text[k] = float64((k*7)%5-2) * 12
	}
	const noise = uint16(0x2a52) // a flat block's signs: noise
	tests := []struct {
		name                string
		ac                  *[15]float64
		noGradients         bool
		structured, changed bool
	}{
		{"ramp judged with its gradients", &ramp, false, true, true},
		{"ramp on a flat signed block", &ramp, true, false, false},
		{"text on a flat signed block", &text, true, true, true},
	}
	for _, tc := range tests {
		s, c := signsChanged(tc.ac, noise, true, tc.noGradients)
		if s != tc.structured || c != tc.changed {
			t.Errorf("%s: structured %v changed %v, want %v %v", tc.name, s, c, tc.structured, tc.changed)
		}
	}
}

// TestColourFitClipsToGamut: a contrast boost of ×1.25 on R, G and B
// clips many blocks of a strongly coloured picture (a channel past 0 or
// 255, which one by hue), which compresses their chroma, while milder
// colours scale by the full 1.25. Every block still agrees with the fit
// (the clipped ones between their prediction and its clipped colour);
// blocks recoloured to the opposite hue do not.
func TestColourFitClipsToGamut(t *testing.T) {
	toYCC := func(r, g, b float64) (float64, float64, float64) {
		return 0.299*r + 0.587*g + 0.114*b, -0.168736*r - 0.331264*g + 0.5*b, 0.5*r - 0.418688*g - 0.081312*b
	}
	clip := func(v float64) float64 { return min(max(v, 0), 255) }
	var in [][3]float64
	var ym, ycb, ycr []float64
	var recoloured []bool
	for i := 0; i < 240; i++ {
		// Strong colours all round the hue circle (a third of them mild),
		// at luminances 90..170: the channel that clips depends on the hue.
		h := float64(i) * 137.5 * math.Pi / 180
		c := 55 + float64(i%5)*4
		if i%10 < 3 {
			c = 12
		}
		y0 := 90 + float64((i*29)%81)
		cb0, cr0 := c*math.Cos(h), c*math.Sin(h)
		r, g, b := y0+1.402*cr0, y0-0.344136*cb0-0.714136*cr0, y0+1.772*cb0
		r, g, b = clip(r), clip(g), clip(b)
		y, cb, cr := toYCC(r, g, b)
		in = append(in, [3]float64{cb, cr, y})
		ey, ecb, ecr := toYCC(clip(128+1.25*(r-128)), clip(128+1.25*(g-128)), clip(128+1.25*(b-128)))
		re := i%23 == 0
		if re {
			ecb, ecr = -ecb, -ecr
		}
		ym, ycb, ycr, recoloured = append(ym, ey), append(ycb, ecb), append(ycr, ecr), append(recoloured, re)
	}
	tc := tone{a: -32, b: 1.25}
	cbFit := fitColour(in, ycb, 0, gamut{y: ym, other: ycr, tone: tc})
	crFit := fitColour(in, ycr, 1, gamut{y: ym, other: ycb, tone: tc})
	for i := range in {
		d := chromaMiss(ym[i], ycb[i], ycr[i], cbFit.at(in[i]), crFit.at(in[i]))
		switch {
		case !recoloured[i] && d > ChromaTolerance:
			t.Errorf("block %d (cb %.0f cr %.0f): misses by %.1f (fits %+v %+v)", i, in[i][0], in[i][1], d, cbFit, crFit)
		case recoloured[i] && d <= ChromaTolerance:
			t.Errorf("recoloured block %d within the fit (miss %.1f)", i, d)
		}
	}
	// A fit blind to the gamut leaves many of them off.
	cbPlain, crPlain := fitColour(in, ycb, 0, gamut{}), fitColour(in, ycr, 1, gamut{})
	off := 0
	for i := range in {
		if !recoloured[i] && max(math.Abs(ycb[i]-cbPlain.at(in[i])), math.Abs(ycr[i]-crPlain.at(in[i]))) > ChromaTolerance {
			off++
		}
	}
	t.Logf("%d of %d blocks off a fit blind to the gamut", off, len(in))
	if off == 0 {
		t.Errorf("no block clips: the test does not exercise the gamut")
	}
}

// TestColourFitThroughCurve: a gamma of 0.6 on R, G and B (then a
// saturation boost of ×1.3) changes a dark saturated colour's chroma by
// the curve's slope over its channels, which no linear function of its
// chroma and luminance gives. Passed through the fitted tone curve, the
// signed colours predict every block; blocks recoloured to the opposite
// hue still miss.
func TestColourFitThroughCurve(t *testing.T) {
	toYCC := func(r, g, b float64) (float64, float64, float64) {
		return 0.299*r + 0.587*g + 0.114*b, -0.168736*r - 0.331264*g + 0.5*b, 0.5*r - 0.418688*g - 0.081312*b
	}
	clip := func(v float64) float64 { return min(max(v, 0), 255) }
	gamma := func(v float64) float64 { return 255 * math.Pow(clip(v)/255, 0.6) }
	var in [][3]float64
	var xs, ys, ym, ycb, ycr []float64
	var recoloured []bool
	for i := 0; i < 300; i++ {
		h := float64(i) * 137.5 * math.Pi / 180
		c := 10 + float64(i%7)*6
		y0 := 25 + float64((i*37)%200)
		cb0, cr0 := c*math.Cos(h), c*math.Sin(h)
		r, g, b := clip(y0+1.402*cr0), clip(y0-0.344136*cb0-0.714136*cr0), clip(y0+1.772*cb0)
		y, cb, cr := toYCC(r, g, b)
		in = append(in, [3]float64{cb, cr, y})
		ey, ecb, ecr := toYCC(gamma(r), gamma(g), gamma(b))
		ecb, ecr = 1.3*ecb, 1.3*ecr
		re := i%29 == 0
		if re {
			ecb, ecr = -ecb, -ecr
		}
		xs, ys = append(xs, y), append(ys, ey)
		ym, ycb, ycr, recoloured = append(ym, ey), append(ycb, ecb), append(ycr, ecr), append(recoloured, re)
	}
	zero := make([]float64, len(xs))
	tc := fitTone(xs, xs, zero, ys, true)
	cbFit, crFit, used := fitColours(in, ycb, ycr, ym, tc)
	off := 0
	for i := range in {
		d := chromaMiss(ym[i], ycb[i], ycr[i], cbFit.at(used[i]), crFit.at(used[i]))
		switch {
		case !recoloured[i] && d > ChromaTolerance:
			off++
			t.Logf("off: block %d signed %.0f %.0f %.0f examined %.0f %.0f %.0f miss %.1f", i, in[i][0], in[i][1], in[i][2], ycb[i], ycr[i], ym[i], d)
		case recoloured[i] && d <= ChromaTolerance:
			t.Errorf("recoloured block %d within the fit (miss %.1f)", i, d)
		}
	}
	if off > 3 {
		t.Errorf("%d genuine blocks off the fit (tone %+v, fits %+v %+v)", off, tc, cbFit, crFit)
	}
	// The plain fit, from the signed colours themselves, leaves many off.
	cbPlain := fitColour(in, ycb, 0, gamut{y: ym, other: ycr, tone: tc})
	crPlain := fitColour(in, ycr, 1, gamut{y: ym, other: ycb, tone: tc})
	plainOff := 0
	for i := range in {
		if !recoloured[i] && chromaMiss(ym[i], ycb[i], ycr[i], cbPlain.at(in[i]), crPlain.at(in[i])) > ChromaTolerance {
			plainOff++
		}
	}
	t.Logf("through the curve: %d off; plain: %d off", off, plainOff)
	if plainOff <= 3*max(off, 1) {
		t.Errorf("the plain fit leaves %d off, the curved %d: the test does not exercise the curve", plainOff, off)
	}
}

// TestThroughCurveNeedsABend: a straight tone curve (gain and offset)
// gives no curved input; one bent by more than CurveBend levels does.
func TestThroughCurveNeedsABend(t *testing.T) {
	in := [][3]float64{{10, -20, 100}}
	// c·v·(v−255) peaks at v = 127.5 with c·127.5².
	bendBy := func(l float64) tone { return tone{b: 1 + 255*l/(127.5*127.5), c: -l / (127.5 * 127.5)} }
	if _, ok := throughCurve(in, tone{a: 10, b: 1.2}); ok {
		t.Errorf("a straight curve gave a curved input")
	}
	// CurveBend is 6 levels.
	if _, ok := throughCurve(in, bendBy(4.5)); ok {
		t.Errorf("a curve bent by 4.5 levels gave a curved input")
	}
	if _, ok := throughCurve(in, bendBy(7.5)); !ok {
		t.Errorf("a curve bent by 7.5 levels gave no curved input")
	}
}
