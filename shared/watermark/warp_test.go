package watermark

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
)

// warpQuads are the robustness bench's straightened-print corners
// (top-left, top-right, bottom-right, bottom-left, in fractions of the
// side): each corner within 2 % (3 %) of its place, in different
// directions.
var warpQuads = map[string][4][2]float64{
	"perspective2": {{0.02, 0.01}, {0.99, -0.01}, {1.01, 0.98}, {-0.01, 1.02}},
	"perspective3": {{-0.03, 0.02}, {1.02, 0.03}, {0.98, 0.97}, {0.01, 1.03}},
}

// applyHomography maps (x, y) by the projective map h0…h7 of
// testHomography.
func applyHomography(H [8]float64, x, y float64) (float64, float64) {
	d := H[6]*x + H[7]*y + 1
	return (H[0]*x + H[1]*y + H[2]) / d, (H[3]*x + H[4]*y + H[5]) / d
}

// warpLuma maps l onto the quadrilateral q (fractions of the output, which
// has l's size) by the homography through the corners, bilinear; pixels
// outside the picture are black.
func warpLuma(l *imagex.Luma, q [4][2]float64) *imagex.Luma {
	w, h := l.Width, l.Height
	var dst [4][2]float64
	for i, c := range q {
		dst[i] = [2]float64{c[0] * float64(w), c[1] * float64(h)}
	}
	src := [4][2]float64{{0, 0}, {float64(w), 0}, {float64(w), float64(h)}, {0, float64(h)}}
	H := testHomography(dst, src)
	out := &imagex.Luma{Width: w, Height: h, Stride: w, Pix: make([]uint8, w*h)}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			// The source pixel's centre, in index coordinates.
			sx, sy := applyHomography(H, float64(x)+0.5, float64(y)+0.5)
			sx, sy = sx-0.5, sy-0.5
			if sx < -0.5 || sy < -0.5 || sx > float64(w)-0.5 || sy > float64(h)-0.5 {
				continue
			}
			x0 := min(max(int(math.Floor(sx)), 0), w-2)
			y0 := min(max(int(math.Floor(sy)), 0), h-2)
			ax := min(max(sx-float64(x0), 0), 1)
			ay := min(max(sy-float64(y0), 0), 1)
			p := func(x, y int) float64 { return float64(l.Pix[y*l.Stride+x]) }
			top := (1-ax)*p(x0, y0) + ax*p(x0+1, y0)
			bot := (1-ax)*p(x0, y0+1) + ax*p(x0+1, y0+1)
			out.Pix[y*w+x] = uint8(min(max(math.Round((1-ay)*top+ay*bot), 0), 255))
		}
	}
	return out
}

// testHomography returns h0…h7 of the projective map taking a[i] to b[i].
func testHomography(a, b [4][2]float64) [8]float64 {
	A := make([]float64, 64)
	r := make([]float64, 8)
	for i := 0; i < 4; i++ {
		x, y, u, v := a[i][0], a[i][1], b[i][0], b[i][1]
		copy(A[16*i:], []float64{x, y, 1, 0, 0, 0, -u * x, -u * y})
		copy(A[16*i+8:], []float64{0, 0, 0, x, y, 1, -v * x, -v * y})
		r[2*i], r[2*i+1] = u, v
	}
	x, _ := solveLinear(A, r, 8)
	var h [8]float64
	copy(h[:], x)
	return h
}

// warpHard is a residual perspective past what the similarity search
// absorbs on the test photos: corners 2–4 % off their place.
var warpHard = [4][2]float64{{0.04, 0.01}, {0.98, -0.02}, {1.02, 0.97}, {-0.02, 1.03}}

// TestWarpRecoversResidualPerspective: a marked photo warped by a residual
// perspective and re-encoded at JPEG 85 is not found by the similarity
// search (crop, rotation, aspect) and is found, with its payload, by the
// warp stage; the unmarked photo warped alike is not.
func TestWarpRecoversResidualPerspective(t *testing.T) {
	base := schemes()[0]
	p := Payload(0x0123456789abcdef)
	for _, name := range []string{"flower.jpg", "meadow.jpg", "water.jpg"} {
		img, marked := markedTestPhoto(t, name, p)
		l := jpegLuma(warpLuma(lumaOf(marked), warpHard), 85)
		ww, wh := base.workDims(l.Width, l.Height)
		work := resampleLuma(l, ww, wh)
		off := *base
		off.warp = false
		if _, d := off.detect(l, work, ww, wh, &foldGate{}); d.Found {
			t.Errorf("%s: found without the warp stage (z %.1f); the case does not test it", name, d.Strength)
		}
		got, d := base.detect(l, work, ww, wh, &foldGate{})
		if !d.Found || got != p {
			t.Errorf("%s: detect = %v found %v (z %.1f), want %v", name, got, d.Found, d.Strength, p)
		}
		if d.Scale != 1 || d.Angle != 0 || d.Strength < base.minPilotZ {
			t.Errorf("%s: detection %+v, want scale 1, angle 0, strength over the gate", name, d)
		}
		u := jpegLuma(warpLuma(lumaOf(img), warpHard), 85)
		uw := resampleLuma(u, ww, wh)
		_, m := base.warpSearch(base.highpass(uw, ww, wh), ww, wh, identityWarp())
		if m.z >= base.minPilotZ {
			t.Errorf("%s unmarked: warp fit reaches z %.2f, over the gate", name, m.z)
		}
		_, ud := base.detect(u, uw, ww, wh, &foldGate{})
		_, ud0 := off.detect(u, uw, ww, wh, &foldGate{})
		if ud.Found || ud.Strength != ud0.Strength {
			t.Errorf("%s unmarked: found %v, strength %v, want not found and the similarity search's %v", name, ud.Found, ud.Strength, ud0.Strength)
		}
	}
}

// TestWarpReadsTheBilinearMapFirst: the warp stage fits a bilinear map
// (no quadratic terms) and a quadratic one past a single first level, and
// a copy the bilinear map's fold reads is reported from it, as the stage
// did before it had quadratic terms.
func TestWarpReadsTheBilinearMapFirst(t *testing.T) {
	base := schemes()[0]
	p := Payload(0x0123456789abcdef)
	read := 0
	for _, name := range []string{"flower.jpg", "meadow.jpg", "water.jpg"} {
		_, marked := markedTestPhoto(t, name, p)
		l := jpegLuma(warpLuma(lumaOf(marked), warpHard), 85)
		ww, wh := base.workDims(l.Width, l.Height)
		work := resampleLuma(l, ww, wh)
		hp := base.highpass(work, ww, wh)
		c := base.warpCandidates(hp, ww, wh, identityWarp(), bilinearTerms, warpTerms)
		if len(c) != 2 {
			t.Fatalf("%s: %d candidates, want the bilinear and the quadratic map", name, len(c))
		}
		if c[0].m.ux[4] != 0 || c[0].m.ux[5] != 0 || c[0].m.uy[4] != 0 || c[0].m.uy[5] != 0 {
			t.Errorf("%s: first map %+v has quadratic terms", name, c[0].m)
		}
		if c[1].m.ux[4] == 0 && c[1].m.ux[5] == 0 && c[1].m.uy[4] == 0 && c[1].m.uy[5] == 0 {
			t.Errorf("%s: second map %+v has no quadratic term", name, c[1].m)
		}
		if _, _, ok := base.readWarp(newViews(base, l, hp, ww, wh), c[0].m, c[0].r, identityWarp(), ptr(warpChecks)); !ok {
			continue
		}
		read++
		fits := 0
		base.warpFits(hp, ww, wh, []warpMap{identityWarp()}, []int{bilinearTerms, warpTerms}, func(m warpMap, r syncResult, m0 warpMap) bool {
			fits++
			_, _, ok := base.readWarp(newViews(base, l, hp, ww, wh), m, r, m0, ptr(warpChecks))
			return ok
		})
		if fits != 1 {
			t.Errorf("%s: %d maps fitted, want the bilinear one only when it reads", name, fits)
		}
		if _, d := base.detect(l, work, ww, wh, &foldGate{}); d.Strength != c[0].r.z {
			t.Errorf("%s: detection strength %.3f, the bilinear map's fold %.3f (quadratic %.3f)", name, d.Strength, c[0].r.z, c[1].r.z)
		}
	}
	if read == 0 {
		t.Fatal("no copy read through the bilinear map: the case does not test the order")
	}
}

// TestWarpMinusIsTheField: subtracting a quadratic field from a map moves
// every point by the field's value there.
func TestWarpMinusIsTheField(t *testing.T) {
	const w, h = 341, 256
	f := field{cx: [warpTerms]float64{1.5, -2, 0.75, 3, 0.5, -1.25}, cy: [warpTerms]float64{-0.5, 1, 2.5, -4, -2, 0.75}}
	m0 := warpMap{ux: [warpTerms]float64{3, 1.01, 0.02}, uy: [warpTerms]float64{-2, -0.02, 0.99}}
	m := m0.minus(f, w, h)
	for _, pt := range [][2]float64{{0, 0}, {w, h}, {w / 2, h / 2}, {17.5, 200.25}, {300, 3}} {
		ax, ay := m0.at(pt[0], pt[1])
		bx, by := m.at(pt[0], pt[1])
		fx, fy := f.at(pt[0]/(w/2.0)-1, pt[1]/(h/2.0)-1)
		if math.Abs(ax-fx-bx) > 1e-9 || math.Abs(ay-fy-by) > 1e-9 {
			t.Errorf("at %v: map moved by (%g, %g), field is (%g, %g)", pt, ax-bx, ay-by, fx, fy)
		}
	}
}

// wavePlane is a w×h plane of two waves, a fine one and a slow one.
func wavePlane(w, h int) []float32 {
	hp := make([]float32, w*h)
	for i := range hp {
		hp[i] = float32(math.Sin(float64(i)*0.37) + math.Cos(float64(i)*0.011))
	}
	return hp
}

// foldDiff returns the summed absolute difference of two folds and the
// summed magnitude of want.
func foldDiff(got, want []float64) (diff, tot float64) {
	for i := range want {
		diff += math.Abs(got[i] - want[i])
		tot += math.Abs(want[i])
	}
	return diff, tot
}

// TestFoldWarpIsTheRotatedFold: under the map of a similarity
// (similarityWarp, a start of the warp stage), the warp fold puts every
// pixel where the rotated fold does.
func TestFoldWarpIsTheRotatedFold(t *testing.T) {
	s := schemes()[0]
	const w, h = 300, 200
	hp := wavePlane(w, h)
	scale, angle, px, py := 1.07, 2.5, 0.5, 0.25
	m := similarityWarp(scale, angle)
	m.ux[0], m.uy[0] = px, py
	a := s.foldRot(hp, w, scale, angle, px, py, 10, 5, w-7, h-3)
	b := s.foldWarpTo(make([]float64, s.tile*s.tile), hp, w, m, 10, 5, w-7, h-3)
	if diff, tot := foldDiff(b, a); diff > 1e-6*tot {
		t.Errorf("warp fold differs from the rotated fold: %g of %g", diff, tot)
	}
}

// TestFoldWarpIsThePointwiseFold: under a map with every quadratic term
// set (a perspective's curvature: a few pixels over the plane), the
// fixed-point fold puts the pixels where the map, evaluated at each
// pixel, puts them.
func TestFoldWarpIsThePointwiseFold(t *testing.T) {
	s := schemes()[0]
	const w, h = 300, 200
	hp := wavePlane(w, h)
	m := warpMap{ux: [warpTerms]float64{3.3, 1.02, 0.015, 2e-5, 6e-5, -4e-5}, uy: [warpTerms]float64{-1.7, -0.01, 0.98, -3e-5, -5e-5, 7e-5}}
	T := s.tile
	want := make([]float64, T*T)
	for y := 5; y < h-3; y++ {
		for x := 10; x < w-7; x++ {
			ux, uy := m.at(float64(x)+0.5, float64(y)+0.5)
			want[(int(math.Floor(uy))&(T-1))*T+int(math.Floor(ux))&(T-1)] += float64(hp[y*w+x])
		}
	}
	got := s.foldWarpTo(make([]float64, T*T), hp, w, m, 10, 5, w-7, h-3)
	if diff, tot := foldDiff(got, want); diff > 1e-3*tot {
		t.Errorf("warp fold differs from the pointwise fold: %g of %g", diff, tot)
	}
}

// TestWarpPolishRaisesTheFold: on the warped marked photos the polish on
// the whole plane raises the pilot's z-score over the blocks' fit and
// adds no more than a few coded-bit errors (meadow: 5 → 3).
func TestWarpPolishRaisesTheFold(t *testing.T) {
	s := schemes()[0]
	p := Payload(0x0123456789abcdef)
	truth := convEncode(message(p, s.version))
	wrong := func(r syncResult) (n int) {
		for i, v := range s.soft(r.acc, r.dx, r.dy) {
			if (v > 0) != (truth[i] == 1) {
				n++
			}
		}
		return n
	}
	for _, name := range []string{"flower.jpg", "meadow.jpg", "water.jpg"} {
		_, marked := markedTestPhoto(t, name, p)
		l := jpegLuma(warpLuma(lumaOf(marked), warpHard), 85)
		ww, wh := s.workDims(l.Width, l.Height)
		hp := s.highpass(resampleLuma(l, ww, wh), ww, wh)
		_, fit := s.warpFit(hp, ww, wh, identityWarp())
		_, pol := s.warpSearch(hp, ww, wh, identityWarp())
		if fit.z < warpPolishZ {
			t.Fatalf("%s: fit z %.2f under the polish gate", name, fit.z)
		}
		if pol.z <= fit.z || wrong(pol) > wrong(fit)+3 {
			t.Errorf("%s: polish z %.2f (%d bit errors), fit alone %.2f (%d)", name, pol.z, wrong(pol), fit.z, wrong(fit))
		}
		t.Logf("%s: fit z %.2f (%d bit errors), polished %.2f (%d)", name, fit.z, wrong(fit), pol.z, wrong(pol))
	}
}

// TestWarpGateClosesOnUnmarked: the fit stops after its first level on
// the unmarked test photos (plain and warped) and goes on for the warped
// marked ones.
func TestWarpGateClosesOnUnmarked(t *testing.T) {
	s := schemes()[0]
	for _, name := range []string{"flower.jpg", "meadow.jpg", "night.jpg", "water.jpg"} {
		img, marked := markedTestPhoto(t, name, 0x0123456789abcdef)
		for _, c := range []struct {
			l      *imagex.Luma
			marked bool
		}{{lumaOf(img), false}, {jpegLuma(warpLuma(lumaOf(img), warpHard), 85), false}, {jpegLuma(warpLuma(lumaOf(marked), warpHard), 85), true}} {
			ww, wh := s.workDims(c.l.Width, c.l.Height)
			hp := s.highpass(resampleLuma(c.l, ww, wh), ww, wh)
			_, r := s.warpFit(hp, ww, wh, identityWarp())
			if open := r.acc != nil; open != c.marked {
				t.Errorf("%s marked=%v: fit went past the first level: %v (z %.2f)", name, c.marked, open, r.z)
			}
		}
	}
}

// TestCyclicMaxIsTheDirectMax: the running-max filter gives exactly the
// direct loop's result, wrap-around included.
func TestCyclicMaxIsTheDirectMax(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	for _, c := range [][2]int{{64, 6}, {64, 3}, {32, 3}, {64, 0}, {16, 7}, {8, 9}} {
		n, rad := c[0], c[1]
		src := make([]float32, n)
		for i := range src {
			src[i] = float32(r.NormFloat64())
		}
		got := make([]float32, n)
		newCyclicMax(n, rad).apply(got, src)
		for x := 0; x < n; x++ {
			want := float32(math.Inf(-1))
			for k := -rad; k <= rad; k++ {
				want = max(want, src[((x+k)%n+n)%n])
			}
			if got[x] != want {
				t.Fatalf("n %d r %d: at %d got %v, want %v", n, rad, x, got[x], want)
			}
		}
	}
}

// warpCand is a fitted map and its whole-plane fold's alignment.
type warpCand struct {
	m warpMap
	r syncResult
}

// warpCandidates is warpFits with every map of ns fitted and kept (none
// read); nil when the gate closes.
func (s *scheme) warpCandidates(hp []float32, w, h int, m0 warpMap, ns ...int) []warpCand {
	var out []warpCand
	s.warpFits(hp, w, h, []warpMap{m0}, ns, func(m warpMap, r syncResult, _ warpMap) bool {
		out = append(out, warpCand{m, r})
		return false
	})
	return out
}

// warpSearch is the quadratic map's fit and polish alone from m: m and a
// zero syncResult when the gate closes.
func (s *scheme) warpSearch(hp []float32, w, h int, m warpMap) (warpMap, syncResult) {
	c := s.warpCandidates(hp, w, h, m, warpTerms)
	if c == nil {
		return m, syncResult{}
	}
	return c[0].m, c[0].r
}

// warpFit is the quadratic map's coarse-to-fine fit alone, unpolished (a
// zero syncResult when the first level shows no offset the blocks agree
// on).
func (s *scheme) warpFit(hp []float32, w, h int, m0 warpMap) (warpMap, syncResult) {
	b, dx, dy, z := s.warpFirstLevel(hp, w, h, m0)
	if z < warpPooledGate {
		return m0, syncResult{}
	}
	return s.warpFitFrom(hp, w, h, m0, b, dx, dy, warpTerms)
}

// printAt is l seen as the quadrilateral q (warpLuma), grey outside the
// print as on the bench's table, then JPEG 85.
func printAt(l *imagex.Luma, q [4][2]float64) *imagex.Luma {
	wl := warpLuma(l, q)
	hm := quadHomography(q, l.Width, l.Height)
	for y := 0; y < l.Height; y++ {
		for x := 0; x < l.Width; x++ {
			if sx, sy := applyHomography(hm, float64(x)+0.5, float64(y)+0.5); sx < 0 || sy < 0 || sx > float64(l.Width) || sy > float64(l.Height) {
				wl.Pix[y*wl.Stride+x] = 96
			}
		}
	}
	return jpegLuma(wl, 85)
}

// quadHomography is the map warpLuma's output pixel coordinates to its
// input's for the quadrilateral q over a w×h picture.
func quadHomography(q [4][2]float64, w, h int) [8]float64 {
	var dst [4][2]float64
	for i, c := range q {
		dst[i] = [2]float64{c[0] * float64(w), c[1] * float64(h)}
	}
	return testHomography(dst, [4][2]float64{{0, 0}, {float64(w), 0}, {float64(w), float64(h)}, {0, float64(h)}})
}

// wrongBits returns a count of the coded bits a soft reading gets wrong
// against payload p in s's format.
func wrongBits(s *scheme, p Payload) func([]float64) int {
	truth := convEncode(message(p, s.version))
	return func(soft []float64) (n int) {
		for i, b := range truth {
			if (soft[i] > 0) != (b == 1) {
				n++
			}
		}
		return n
	}
}

// printSmall is a print seen at an angle, milder than the bench's
// print-angle (which the search misses on the small test photos): scale
// about 0.88–0.94 across it, not straightened.
var printSmall = [4][2]float64{{0.08, 0.05}, {0.92, 0.03}, {0.96, 0.95}, {0.04, 0.97}}

// upscale2 doubles l's size (bilinear): the bench's pictures are larger
// than the working plane, the test photos are not.
func upscale2(l *imagex.Luma) *imagex.Luma {
	w, h := 2*l.Width, 2*l.Height
	out := &imagex.Luma{Width: w, Height: h, Stride: w, Pix: make([]uint8, w*h)}
	for y := 0; y < h; y++ {
		sy := min(max(float64(y)/2-0.25, 0), float64(l.Height-1))
		y0 := min(int(sy), l.Height-2)
		ay := sy - float64(y0)
		for x := 0; x < w; x++ {
			sx := min(max(float64(x)/2-0.25, 0), float64(l.Width-1))
			x0 := min(int(sx), l.Width-2)
			ax := sx - float64(x0)
			p := func(x, y int) float64 { return float64(l.Pix[y*l.Stride+x]) }
			v := (1-ay)*((1-ax)*p(x0, y0)+ax*p(x0+1, y0)) + ay*((1-ax)*p(x0, y0+1)+ax*p(x0+1, y0+1))
			out.Pix[y*w+x] = uint8(math.Round(v))
		}
	}
	return out
}

// TestWarpStartsFromThePrintsScale: a print seen at an angle (scale
// 0.81–0.94 across it) does not pool at the warp stage's first level from
// scale 1, and is found, with its payload, from the similarity search's
// candidate near the print's scale; the unmarked copy is not found.
func TestWarpStartsFromThePrintsScale(t *testing.T) {
	testWarpStarts(t, printSmall, 4)
}

// TestWarpScanFindsThePrint: the bench's print seen at an angle (scale
// 0.81–0.94), where the search's best candidates on the test photos are
// far from the print's scale (1.1–2.2): found from the scan's scales.
func TestWarpScanFindsThePrint(t *testing.T) {
	testWarpStarts(t, printAngleQuad, 2)
}

// testWarpStarts marks the test photos, shows them as the print q (each
// upscaled twice, as the bench's pictures are larger than the working
// plane) and checks that those neither scale 1's first level nor the
// stages before the warp find are found, at the print's scale, by the
// warp stage (at least want of the 4); their unmarked copies are not
// found.
func testWarpStarts(t *testing.T, q [4][2]float64, want int) {
	s := schemes()[0]
	p := Payload(0x0123456789abcdef)
	found := 0
	for _, name := range []string{"flower.jpg", "meadow.jpg", "water.jpg", "night.jpg"} {
		img, marked := markedTestPhoto(t, name, p)
		l := printAt(upscale2(lumaOf(marked)), q)
		ww, wh := s.workDims(l.Width, l.Height)
		work := resampleLuma(l, ww, wh)
		hp := s.highpass(work, ww, wh)
		if _, _, _, z := s.warpFirstLevel(hp, ww, wh, identityWarp()); z >= warpPooledGate {
			t.Logf("%s: scale 1 pools (z %.2f); not a case for the seeds", name, z)
			continue
		}
		off := *s
		off.warp = false
		if _, d := off.detect(l, work, ww, wh, &foldGate{}); d.Found {
			t.Logf("%s: found without the warp stage (z %.1f); not a case for the seeds", name, d.Strength)
			continue
		}
		got, d := s.detect(l, work, ww, wh, &foldGate{})
		if !d.Found || got != p {
			t.Logf("%s: detect = %v found %v (z %.1f scale %.3f)", name, got, d.Found, d.Strength, d.Scale)
			continue
		}
		t.Logf("%s: found at z %.1f, scale %.3f, angle %.2f, %d bits wrong", name, d.Strength, d.Scale, d.Angle, d.BitErrors)
		if d.Scale < 0.8 || d.Scale > 0.97 {
			t.Errorf("%s: found at scale %.3f, want the print's (0.81–0.94)", name, d.Scale)
		}
		found++
		u := printAt(upscale2(lumaOf(img)), q)
		if _, ud := s.detect(u, resampleLuma(u, ww, wh), ww, wh, &foldGate{}); ud.Found {
			t.Errorf("%s unmarked: found (z %.1f)", name, ud.Strength)
		}
	}
	if found < want {
		t.Fatalf("%d photos found at the print's scale, want at least %d", found, want)
	}
}

// TestWarpSeedsAreTheSearchsBest: the starts are scale 1, then the best
// own-orientation candidate off scale 1 (flipped candidates left out),
// then the scan's scales.
func TestWarpSeedsAreTheSearchsBest(t *testing.T) {
	cands := []syncResult{
		{scale: 0.95, z: 4}, {scale: 1, z: 9}, {scale: 0.9, d: 1, z: 8},
		{scale: 0.921, angle: 2, z: 5}, {scale: 0.92, angle: 2, z: 6}, {scale: 1.2, z: 3},
	}
	want := []warpMap{identityWarp(), similarityWarp(0.92, 2)}
	for _, sc := range warpScanScales {
		want = append(want, similarityWarp(sc, 0))
	}
	got := warpSeeds(cands)
	if len(got) != len(want) {
		t.Fatalf("%d seeds, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("seed %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if got := warpSeeds(cands[1:3]); len(got) != 1+len(warpScanScales) {
		t.Errorf("%d seeds from scale 1 and a flipped candidate, want scale 1 and the scan", len(got))
	}
}

// TestWarpTriesScaleOneFirst: when scale 1's blocks pass the gate, the
// fit starts there even if another start pools better (every copy the
// stage read from scale 1 alone reads the same).
func TestWarpTriesScaleOneFirst(t *testing.T) {
	s := schemes()[0]
	cases := 0
	for _, name := range []string{"flower.jpg", "meadow.jpg", "water.jpg"} {
		_, marked := markedTestPhoto(t, name, 0x0123456789abcdef)
		l := jpegLuma(warpLuma(lumaOf(marked), warpHard), 85)
		ww, wh := s.workDims(l.Width, l.Height)
		hp := s.highpass(resampleLuma(l, ww, wh), ww, wh)
		_, _, _, z1 := s.warpFirstLevel(hp, ww, wh, identityWarp())
		if z1 < warpPooledGate {
			continue
		}
		for _, sc := range []float64{0.98, 0.99, 1.01, 1.02} {
			for _, a := range []float64{-1, 0, 1} {
				seed := similarityWarp(sc, a)
				if _, _, _, z := s.warpFirstLevel(hp, ww, wh, seed); z <= z1 {
					continue
				}
				cases++
				s.warpFits(hp, ww, wh, []warpMap{identityWarp(), seed}, []int{bilinearTerms}, func(_ warpMap, _ syncResult, m0 warpMap) bool {
					if m0 != identityWarp() {
						t.Errorf("%s: fit from %+v, want scale 1 (pooled z %.2f)", name, m0, z1)
					}
					return true
				})
				// When scale 1's maps do not read, the next start is
				// fitted, and no more than warpFitStarts in all.
				var from []warpMap
				s.warpFits(hp, ww, wh, []warpMap{identityWarp(), seed, seed}, []int{bilinearTerms}, func(_ warpMap, _ syncResult, m0 warpMap) bool {
					from = append(from, m0)
					return false
				})
				if len(from) != 2 || from[0] != identityWarp() || from[1] != seed {
					t.Errorf("%s: fitted from %+v, want scale 1, then the seed", name, from)
				}
				// Past scale 1's first map, the maps are tried by their
				// folds' z-scores.
				var zs []float64
				s.warpFits(hp, ww, wh, []warpMap{identityWarp(), seed}, []int{bilinearTerms, warpTerms}, func(_ warpMap, r syncResult, _ warpMap) bool {
					zs = append(zs, r.z)
					return false
				})
				if len(zs) != 4 || !sort.IsSorted(sort.Reverse(sort.Float64Slice(zs[1:]))) {
					t.Errorf("%s: fold z-scores in the order tried %.2f, want 4, the last 3 best first", name, zs)
				}
				// When scale 1 does not pass the gate, at most
				// warpFitStarts starts are fitted.
				if _, _, _, z := s.warpFirstLevel(hp, ww, wh, similarityWarp(0.5, 0)); z >= warpPooledGate {
					t.Fatalf("%s: scale 0.5 pools at z %.2f, past the gate: the case does not test a first start under it", name, z)
				}
				n := 0
				s.warpFits(hp, ww, wh, []warpMap{similarityWarp(0.5, 0), seed, seed, seed}, []int{bilinearTerms}, func(_ warpMap, _ syncResult, m0 warpMap) bool {
					n++
					return false
				})
				if n != warpFitStarts {
					t.Errorf("%s: %d starts fitted, want %d", name, n, warpFitStarts)
				}
			}
		}
	}
	if cases == 0 {
		t.Fatal("no start pools better than scale 1: the case does not test the order")
	}
}

// TestReadWarpSpendsItsChecks: a reading is a CRC check taken from the
// stage's allowance, and none is made when none is left.
func TestReadWarpSpendsItsChecks(t *testing.T) {
	s := schemes()[0]
	_, marked := markedTestPhoto(t, "flower.jpg", 0x0123456789abcdef)
	l := jpegLuma(warpLuma(lumaOf(marked), warpHard), 85)
	ww, wh := s.workDims(l.Width, l.Height)
	hp := s.highpass(resampleLuma(l, ww, wh), ww, wh)
	c := s.warpCandidates(hp, ww, wh, identityWarp(), bilinearTerms)
	if len(c) == 0 {
		t.Fatal("no map fitted")
	}
	v := newViews(s, l, hp, ww, wh)
	left := 0
	if _, _, ok := s.readWarp(v, c[0].m, c[0].r, identityWarp(), &left); ok || left != 0 {
		t.Errorf("read with no check left: ok %v, left %d", ok, left)
	}
	left = warpChecks
	if _, _, ok := s.readWarp(v, c[0].m, c[0].r, identityWarp(), &left); !ok || left != warpChecks-1 {
		t.Errorf("read: ok %v, %d checks left, want found with %d left", ok, left, warpChecks-1)
	}
}

// TestSimilarityAtIsTheMapsScale: the similarity closest to a
// similarity's map is that map (without its phase), and at a point of a
// quadratic map it has the map's local scale.
func TestSimilarityAtIsTheMapsScale(t *testing.T) {
	m := similarityWarp(0.9, 2)
	m.ux[0], m.uy[0] = 3, 4
	got := m.similarityAt(100, 80)
	want := similarityWarp(0.9, 2)
	for i := range want.ux {
		if math.Abs(got.ux[i]-want.ux[i]) > 1e-12 || math.Abs(got.uy[i]-want.uy[i]) > 1e-12 {
			t.Fatalf("similarityAt = %+v, want %+v", got, want)
		}
	}
	// u = x/0.9 + x²/2000 along x: du/dx at x = 100 is 1/0.9 + 0.1.
	q := similarityWarp(0.9, 0)
	q.ux[4] = 1.0 / 2000
	if d := q.similarityAt(100, 0).ux[1] - (1/0.9 + 0.05); math.Abs(d) > 1e-12 {
		t.Errorf("similarityAt's scale off by %g", d)
	}
}
