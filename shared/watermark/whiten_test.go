package watermark

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"testing"
)

// grainImage is a w×h picture of a fine oriented grain (period per pixels
// at angle deg, its phase wandering slowly as wood's does) with a little
// noise: structured texture the 3×3 high-pass keeps.
func grainImage(w, h int, period, deg, amp float64, seed uint64) *image.Gray {
	r := rand.New(rand.NewPCG(seed, 11))
	m := image.NewGray(image.Rect(0, 0, w, h))
	sin, cos := math.Sincos(deg * math.Pi / 180)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			u := float64(x)*cos + float64(y)*sin
			v := -float64(x)*sin + float64(y)*cos
			ph := 2*math.Pi*u/period + 2.5*math.Sin(v/53) + 1.5*math.Sin(u/97)
			l := 128 + amp*math.Sin(ph) + 2*r.NormFloat64()
			m.SetGray(x, y, color.Gray{Y: uint8(min(max(math.Round(l), 0), 255))})
		}
	}
	return m
}

// TestWhitenedReadingRecoversGrain checks what the whitened reading is
// for: on a fine oriented grain (a period of 16 px at full resolution,
// 4 working pixels) the pilot is found but every usual reading fails, and
// the whitened one decodes the payload. Without readWhitened the same
// pictures are not found.
func TestWhitenedReadingRecoversGrain(t *testing.T) {
	base := schemes()[0]
	p := Payload(0x0123456789abcdef)
	for _, amp := range []float64{30, 60} {
		marked, err := Embed(grainImage(1024, 768, 16, 20, amp, 1), p)
		if err != nil {
			t.Fatal(err)
		}
		l := lumaOf(marked)
		ww, wh := base.workDims(l.Width, l.Height)
		work := resampleLuma(l, ww, wh)
		off := *base
		// The warp stage reads the whitened plane too.
		off.readWhitened, off.warp = false, false
		if _, d := off.detect(l, work, ww, wh, &foldGate{}); d.Found {
			t.Errorf("amp %v: found without the whitened reading (%d bit errors); the grain is too easy to test it", amp, d.BitErrors)
		}
		got, d := base.detect(l, work, ww, wh, &foldGate{})
		if !d.Found || got != p {
			t.Errorf("amp %v: detect = %v found %v (z %.1f), want %v through the whitened reading", amp, got, d.Found, d.Strength, p)
		}
		if gp, gd, err := Extract(l); err != nil || !gd.Found || gp != p {
			t.Errorf("amp %v: Extract = %v %v %v, want %v", amp, gp, gd.Found, err, p)
		}
	}
}

// TestWhitenedResidualKeepsTheMark checks the predictor's support: on a
// working plane of an oriented grain plus a ±1 chip pattern (2×2 chips,
// independent signs), the residual keeps the chips at nearly full
// amplitude while removing nearly all of the grain, and keeps more of the
// chips than the 3×3 high-pass does. A support reaching into the chip
// (distance 1) predicts part of the mark away.
func TestWhitenedResidualKeepsTheMark(t *testing.T) {
	const w, h = 256, 192
	r := rand.New(rand.NewPCG(3, 5))
	chips := make([]float32, w*h)
	signs := make([]float32, (w/2)*(h/2))
	for i := range signs {
		signs[i] = float32(2*r.IntN(2) - 1)
	}
	work := make([]float32, w*h)
	sin, cos := math.Sincos(20 * math.Pi / 180)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := signs[(y/2)*(w/2)+x/2]
			chips[y*w+x] = c
			u := float64(x)*cos + float64(y)*sin
			work[y*w+x] = float32(128+30*math.Sin(2*math.Pi*u/4+2.5*math.Sin((float64(y)*cos-float64(x)*sin)/53))) + c
		}
	}
	res := whitenedResidual(work, w, h)
	if res == nil {
		t.Fatal("whitenedResidual = nil on a textured plane")
	}
	// Gain of the residual on the chips (least squares), and the power
	// left once the chips are taken out: the host's remainder.
	gain := func(p []float32) (g, rest float64) {
		var pc, cc float64
		for i, v := range p {
			pc += float64(v) * float64(chips[i])
			cc += float64(chips[i]) * float64(chips[i])
		}
		g = pc / cc
		for i, v := range p {
			d := float64(v) - g*float64(chips[i])
			rest += d * d
		}
		return g, rest / float64(len(p))
	}
	gw, restW := gain(res)
	if gw < 0.85 {
		t.Errorf("whitened residual keeps %.2f of the chips' amplitude, want ≥ 0.85", gw)
	}
	if restW > 5 {
		t.Errorf("whitened residual leaves %.2f level² of grain (its power is 450), want ≤ 5", restW)
	}
	b := boxBlur(work, w, h, 1)
	for i, v := range work {
		b[i] = v - b[i]
	}
	gh, restH := gain(b)
	if !(gw > gh+0.2) {
		t.Errorf("chip gain whitened %.2f, 3×3 high-pass %.2f: want the whitened reading to keep clearly more", gw, gh)
	}
	t.Logf("chip gain %.2f (3×3 high-pass %.2f), grain left %.3f level² (3×3 high-pass %.1f)", gw, gh, restW, restH)
}

// TestWhitenedResidualDegenerate: a plane too small for the predictor's
// support gives no residual (and so no reading), and a constant plane,
// whose fit the ridge keeps defined, a residual of nothing.
func TestWhitenedResidualDegenerate(t *testing.T) {
	const w, h = 64, 64
	work := make([]float32, w*h)
	for i := range work {
		work[i] = 77
	}
	r := whitenedResidual(work, w, h)
	if r == nil {
		t.Fatal("whitenedResidual of a constant plane = nil")
	}
	for i, v := range r {
		if math.Abs(float64(v)) > 0.01 || math.IsNaN(float64(v)) {
			t.Fatalf("residual of a constant plane at %d = %v, want ≈ 0", i, v)
		}
	}
	if r := whitenedResidual(work[:16], 4, 4); r != nil {
		t.Errorf("whitenedResidual of a 4×4 plane = non-nil")
	}
	s := schemes()[0]
	v := newViews(s, nil, make([]float32, 16), 4, 4)
	v.work = work[:16]
	if wp := v.whitened(0); wp != nil {
		t.Errorf("views.whitened of a 4×4 plane = non-nil")
	}
}

// TestWhitenedReadingWeighsByLocalPower checks that the whitened plane is
// divided by its local power as the usual high-pass is: a mark on a quiet
// left half is read through a right half of loud unpredictable noise
// (grain the predictor cannot remove), which the raw residual lets swamp
// the fold.
func TestWhitenedReadingWeighsByLocalPower(t *testing.T) {
	s := schemes()[0]
	p := Payload(0x0ddba11cafe00001)
	signs := s.chipSigns(convEncode(message(p, s.version)))
	const w, h = 512, 384
	for seed := uint64(1); seed <= 4; seed++ {
		r := rand.New(rand.NewPCG(seed, 9))
		work := make([]float32, w*h)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				k := ((y%s.tile)/s.chip)*s.grid + (x%s.tile)/s.chip
				v := 100 + 1.2*float64(signs[k]) + 0.5*r.NormFloat64()
				if x >= w/2 {
					v += 40 * r.NormFloat64()
				}
				work[y*w+x] = float32(v)
			}
		}
		wp := s.whitenedPlane(work, w, h)
		if got, _, _, ok := s.decodeSoft(s.whitenedSoft(wp, w, h, 1, 0, 0, 0, 0, 0)); !ok || got != p {
			t.Errorf("seed %d: whitened reading = %v %v, want %v", seed, got, ok, p)
		}
		raw := whitenedResidual(work, w, h)
		if _, _, _, ok := s.decodeSoft(s.whitenedSoft(raw, w, h, 1, 0, 0, 0, 0, 0)); ok {
			t.Errorf("seed %d: the raw residual decodes too; the noise is too weak to test the weighting", seed)
		}
	}
}

// BenchmarkWhitenedPlane times the whitened reading's plane (the fit, the
// residual and the normalisation) on a 3:2 working plane of a grain: the
// cost a candidate pays once its other readings have all failed.
func BenchmarkWhitenedPlane(b *testing.B) {
	img := grainImage(384, 256, 16, 20, 30, 1)
	work := make([]float32, 384*256)
	for i, v := range img.Pix {
		work[i] = float32(v)
	}
	s := schemes()[0]
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if s.whitenedPlane(work, 384, 256) == nil {
			b.Fatal("nil plane")
		}
	}
}
