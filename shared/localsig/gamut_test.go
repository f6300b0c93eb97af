package localsig

import (
	"math"
	"testing"
)

// TestDetailChangeFollowsSlope: a block's expected change of detail is
// the log2 of the tone curve's slope at its mean, within ×SlopeRange
// (2) either way.
func TestDetailChangeFollowsSlope(t *testing.T) {
	cases := []struct {
		name string
		t    tone
		m    float64
		want float64
	}{
		{"identity", tone{b: 1}, 30, 0},
		{"gain", tone{b: 1.5}, 200, math.Log2(1.5)},
		{"gamma-like, shadows", tone{b: 1.8, c: -0.8 / 255}, 0, math.Log2(1.8)},
		{"gamma-like, where the slope is 1", tone{b: 1.8, c: -0.8 / 255}, 0.8 * 255 / 1.6, 0},
		{"steep, bounded", tone{b: 2.5}, 100, 1},
		{"flat, bounded", tone{b: 0.3}, 100, -1},
		{"toe", tone{b: 1, f: 0.5}, 10, -1},
		{"above the toe", tone{b: 1, f: 0.5}, 100, 0},
		{"shoulder", tone{b: 1, h: -0.5}, 230, -1},
	}
	for _, c := range cases {
		if got := c.t.detailChange(c.m); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: detailChange(%v) = %.4f, want %.4f", c.name, c.m, got, c.want)
		}
	}
}

// TestBoostShortfall: a boosted saturated block whose pixels reach the
// gamut's edge may fall short of its predicted chroma anywhere along the
// segment back to its signed chroma, in the predicted hue only; a block
// not boosted by BoostMin (4 levels), or whose pixels (its mean ±
// ClipReach (3) times its detail) stay inside the gamut, has no segment.
func TestBoostShortfall(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		name                               string
		y, cb, cr, scb, scr, pcb, pcr, det float64
		want                               float64 // +Inf: no segment
	}{
		// A blue at luminance 56 predicted at Cb 102: its blue channel
		// passes 255 (by more than a level of chroma) from luminance 76.3.
		{"short of the boost", 56, 74.6, 0, 55, -2, 102, 0, 8, 1.164},
		{"beyond the prediction", 56, 120, 0, 55, -2, 102, 0, 8, 18},
		{"below the signed chroma", 56, 40, -2, 55, -2, 102, 0, 8, 15},
		{"another hue", 56, 74.6, 40, 55, -2, 102, 0, 8, 41.092},
		{"pixels inside the gamut", 56, 74.6, 0, 55, -2, 102, 0, 6, inf},
		{"not boosted (fit lowers chroma)", 56, 74.6, 0, 55, -2, 50, 0, 8, inf},
		// At luminance 130 a Cb of 58.5 clips at 130 + 24.
		{"boost under BoostMin", 130, 57, -2, 55, -2, 58.5, -2, 8, inf},
		{"boost over BoostMin", 130, 57, -2, 55, -2, 59.5, -2, 8, 0},
	}
	for _, c := range cases {
		got := math.Inf(1)
		if ecb, ecr, ok := shortfall(c.y, c.cb, c.cr, c.scb, c.scr, c.pcb, c.pcr, c.det); ok {
			got = max(math.Abs(ecb), math.Abs(ecr))
		}
		if math.IsInf(c.want, 1) != math.IsInf(got, 1) || (!math.IsInf(got, 1) && math.Abs(got-c.want) > 0.01) {
			t.Errorf("%s: shortfall = %.3f, want %.3f", c.name, got, c.want)
		}
	}
}

// TestGamutMean: the mean is judged against the span from the tone
// prediction to the luminance the predicted colour keeps once clipped,
// and to the clipped luminance without the fit's saturation term only
// when that colour clips.
func TestGamutMean(t *testing.T) {
	cases := []struct {
		name                  string
		m, pred, bare, cb, cr float64
		want                  float64
	}{
		{"in the gamut", 100, 128, 128, 10, 20, 128},
		{"a red past 255", 91.6, 108.1, 108.1, 9.3, 127, 98.785},
		{"within the span", 102, 108.1, 108.1, 9.3, 127, 102},
		{"bare clips", 100, 127.6, 112.6, -1.7, 104.8, 111.246},
		{"bare inside the gamut", 100, 130, 112, 0, 10, 130},
	}
	for _, c := range cases {
		if got := gamutMean(c.m, c.pred, c.bare, c.cb, c.cr); math.Abs(got-c.want) > 0.01 {
			t.Errorf("%s: gamutMean = %.3f, want %.3f", c.name, got, c.want)
		}
	}
}

// TestDetailResiduals: a change of detail counts only when neither the
// picture's median change nor the tone curve's slope explains it.
func TestDetailResiduals(t *testing.T) {
	cases := []struct {
		name                              string
		signed, examined, dt, dMed, dMed0 float64
		wantLoss, wantGain, wantExpected  float64
	}{
		// A flat highlight under a knee fitted at slope 0.5 keeps its
		// noise: the median explains it, the slope alone would not.
		{"flat highlight", 2, 2.1, -1, -0.05, 0, 1.0971, 0.0477, 2},
		// A textured shadow doubles under a slope of 2: the slope
		// explains it, the median alone would not.
		{"lifted shadow", 8, 16, 1, 0, 0.1, 0.8181, -0.0819, 16},
		{"blurred", 20, 5, 0, 0, 0, -1.8074, -1.8074, 20},
	}
	for _, c := range cases {
		loss, gain, expected := detailResiduals(c.signed, c.examined, c.dt, c.dMed, c.dMed0)
		if math.Abs(loss-c.wantLoss) > 1e-3 || math.Abs(gain-c.wantGain) > 1e-3 || math.Abs(expected-c.wantExpected) > 1e-3 {
			t.Errorf("%s: detailResiduals = %.4f, %.4f, %.4f, want %.4f, %.4f, %.4f", c.name, loss, gain, expected, c.wantLoss, c.wantGain, c.wantExpected)
		}
	}
}
