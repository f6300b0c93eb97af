package watermark

import (
	"math"
)

// The warp search: a print straightened by hand, or photographed and
// squared up imperfectly, keeps the picture in its frame at about scale 1,
// but its corners sit a few per cent off their place in different
// directions. The residual map from the examined plane to the embedding
// grid is then no similarity: over a 256-pixel plane the corners move by
// up to 5–14 working pixels (2–7 chips) against each other, the
// whole-plane fold smears the pilot (z 4–6, under the gate, on pictures
// whose unattacked mark shows at z 14–17), and neither the crop nor the
// rotation search has a hypothesis that fits.
//
// A small perspective is, to a fraction of a pixel over such a plane, a
// quadratic displacement field. (Not a bilinear one: when the corners move
// in different directions, the homography's denominator varies by a few
// per cent across the plane, and the bilinear map that fits it best is
// still 3 pixels off on average and 7 at worst at 3 % corners: too far
// for the 294 coded bits. The quadratic that fits best is 0.2 pixel off
// on average, 1 at worst.) So the search cuts the plane into blocks,
// folds each block on its own under the current map and correlates it
// with the pilot at every offset (one FFT per two blocks), and fits the
// twelve coefficients of a quadratic correction that maximises the sum
// of the blocks' normalised correlations at the displacement the field
// predicts for each block's centre (after the eight of a bilinear one,
// see detectWarp). Each block on its own is weak (a sixteenth of the
// plane); their joint evidence through a smooth field is not. The fit
// runs coarse to fine (fewer, larger blocks and a wide displacement range
// first, and only when the first level's blocks agree on an offset),
// is polished on the whole plane, and the whole plane is folded under the
// final map: that fold's pilot z-score over all offsets must pass the same
// gate (≥ 6) as any other candidate before it is read (twice, see
// detectWarp). A print seen at an angle and not straightened sits at
// scale 0.8–0.95 in its photograph: the search also starts from the
// similarity search's best candidate and from a scan of scales
// (warpSeeds).

// warpTerms is the number of coefficients per axis of a warp: the
// terms 1, x, y, x·y, x², y² of a quadratic in the plane's coordinates.
const warpTerms = 6

// bilinearTerms is the first four of them, a bilinear map: the map the
// search fits first (see warpFits).
const bilinearTerms = 4

// terms returns the warp's terms at (x, y).
func terms(x, y float64) [warpTerms]float64 { return [...]float64{1, x, y, x * y, x * x, y * y} }

// quad evaluates the coefficients c at (x, y), the bilinear part in the
// order of operations the bilinear search had (a bilinear fit evaluates
// to the same bits).
func quad(c *[warpTerms]float64, x, y float64) float64 {
	return c[0] + c[1]*x + c[2]*y + c[3]*x*y + c[4]*x*x + c[5]*y*y
}

// warpMap maps a working pixel's centre (fx, fy) = (x+0.5, y+0.5) to tile
// coordinates: u = a0 + a1·fx + a2·fy + a3·fx·fy + a4·fx² + a5·fy² per
// axis (a quadratic along a row, folded by fixed-point second differences,
// so a fold costs what a rotated fold costs).
type warpMap struct {
	ux, uy [warpTerms]float64
}

// at returns the tile coordinates of the point (fx, fy).
func (m warpMap) at(fx, fy float64) (float64, float64) {
	return quad(&m.ux, fx, fy), quad(&m.uy, fx, fy)
}

// identityWarp is scale 1, no rotation, phase 0.
func identityWarp() warpMap {
	return warpMap{ux: [warpTerms]float64{0, 1}, uy: [warpTerms]float64{0, 0, 1}}
}

// field is a quadratic displacement over a w×h plane in normalised
// coordinates X, Y ∈ [−1, 1] (the centre at 0): c0 + c1·X + c2·Y + c3·X·Y
// + c4·X² + c5·Y² per axis, in tile pixels.
type field struct {
	cx, cy [warpTerms]float64
}

func (f field) at(X, Y float64) (float64, float64) {
	return quad(&f.cx, X, Y), quad(&f.cy, X, Y)
}

// minus returns the map m − f on a w×h plane (the content a block shows
// displaced by f(X, Y) from where m puts it is brought back).
func (m warpMap) minus(f field, w, h int) warpMap {
	hw, hh := float64(w)/2, float64(h)/2
	conv := func(c [warpTerms]float64) [warpTerms]float64 {
		// X = fx/hw − 1, Y = fy/hh − 1.
		return [warpTerms]float64{
			c[0] - c[1] - c[2] + c[3] + c[4] + c[5],
			(c[1] - c[3] - 2*c[4]) / hw,
			(c[2] - c[3] - 2*c[5]) / hh,
			c[3] / (hw * hh),
			c[4] / (hw * hw),
			c[5] / (hh * hh),
		}
	}
	dx, dy := conv(f.cx), conv(f.cy)
	for i := range m.ux {
		m.ux[i] -= dx[i]
		m.uy[i] -= dy[i]
	}
	return m
}

// foldWarpTo folds the window [x0,x1)×[y0,y1) of hp (row stride w) into
// acc (T² values, overwritten) under the map m.
func (s *scheme) foldWarpTo(acc []float64, hp []float32, w int, m warpMap, x0, y0, x1, y1 int) []float64 {
	T := s.tile
	acc = acc[:T*T]
	clear(acc)
	// Keep coordinates positive so that truncation is a floor.
	bias := float64(64 * T)
	// Along a row u is a quadratic in fx, b + s·fx + q·fx²: from one
	// pixel to the next it moves by s + q·(2fx+1), a step that itself
	// moves by 2q. (Both steps rounded to fixed point drift by under
	// 10⁻⁴ pixel over a row.)
	qx, qy := m.ux[4], m.uy[4]
	ddux, dduy := int64(math.Round(2*qx*fixOne)), int64(math.Round(2*qy*fixOne))
	for y := y0; y < y1; y++ {
		fy := float64(y) + 0.5
		sx, sy := m.ux[1]+m.ux[3]*fy, m.uy[1]+m.uy[3]*fy
		fx := float64(x0) + 0.5
		ux := int64((m.ux[0] + m.ux[2]*fy + m.ux[5]*fy*fy + sx*fx + qx*fx*fx + bias) * fixOne)
		uy := int64((m.uy[0] + m.uy[2]*fy + m.uy[5]*fy*fy + sy*fx + qy*fx*fx + bias) * fixOne)
		dux := int64(math.Round((sx + qx*(2*fx+1)) * fixOne))
		duy := int64(math.Round((sy + qy*(2*fx+1)) * fixOne))
		warpRow(acc, T, hp[y*w+x0:y*w+x1], ux, uy, dux, duy, ddux, dduy)
	}
	return acc
}

// warpLevel is one step of the coarse-to-fine fit: blocks per short side
// and the largest displacement (tile pixels) a block may show.
type warpLevel struct {
	n     int
	reach float64
}

// warpLevels: 3 blocks per short side with a reach of 6 pixels finds the
// field's large terms; 4 per side then refine it where a block of the
// first level still spanned a pixel or two of displacement.
func warpLevels() [3]warpLevel { return [...]warpLevel{{3, 6}, {4, 3}, {4, 2}} }

// warpBlocks is the blocks' evidence at one level: each block's
// correlation with the pilot at every offset, as z-scores.
type warpBlocks struct {
	z      [][]float32 // per block, T² values
	cx, cy []float64   // block centres in normalised coordinates
}

// blocks folds the plane's blocks under m and correlates each with the
// pilot (two blocks per complex FFT).
func (s *scheme) warpBlocksOf(hp []float32, w, h int, m warpMap, n int) warpBlocks {
	T := s.tile
	short := min(w, h)
	nx := max(1, int(math.Round(float64(n)*float64(w)/float64(short))))
	ny := max(1, int(math.Round(float64(n)*float64(h)/float64(short))))
	var b warpBlocks
	type rect struct{ x0, y0, x1, y1 int }
	var rs []rect
	for j := 0; j < ny; j++ {
		for i := 0; i < nx; i++ {
			r := rect{i * w / nx, j * h / ny, (i + 1) * w / nx, (j + 1) * h / ny}
			rs = append(rs, r)
			b.cx = append(b.cx, (float64(r.x0+r.x1)/2)/(float64(w)/2)-1)
			b.cy = append(b.cy, (float64(r.y0+r.y1)/2)/(float64(h)/2)-1)
		}
	}
	b.z = make([][]float32, len(rs))
	fa, fb := make([]float64, T*T), make([]float64, T*T)
	buf := make([]complex128, T*T)
	for i := 0; i < len(rs); i += 2 {
		a := s.foldWarpTo(fa, hp, w, m, rs[i].x0, rs[i].y0, rs[i].x1, rs[i].y1)
		var bb []float64
		if i+1 < len(rs) {
			bb = s.foldWarpTo(fb, hp, w, m, rs[i+1].x0, rs[i+1].y0, rs[i+1].x1, rs[i+1].y1)
		}
		packPair(buf, a, bb)
		s.fft.transform(buf, false)
		mulInto(buf, buf, s.pilotF)
		s.fft.transform(buf, true)
		b.z[i] = zScores(buf, false)
		if bb != nil {
			b.z[i+1] = zScores(buf, true)
		}
	}
	return b
}

// zScores returns the real (or imaginary) parts of buf as z-scores over
// all entries.
func zScores(buf []complex128, useImag bool) []float32 {
	out := make([]float32, len(buf))
	var sum, ss float64
	for i, c := range buf {
		v := real(c)
		if useImag {
			v = imag(c)
		}
		out[i] = float32(v)
		sum += v
		ss += v * v
	}
	n := float64(len(buf))
	mean := sum / n
	sd := math.Sqrt(math.Max(ss/n-mean*mean, 1e-30))
	for i, v := range out {
		out[i] = float32((float64(v) - mean) / sd)
	}
	return out
}

// interp is the block's z-score at the fractional offset (ox, oy),
// bilinear, cyclic over the T×T offsets.
func interp(z []float32, T int, ox, oy float64) float64 {
	fx, fy := math.Floor(ox), math.Floor(oy)
	ax, ay := ox-fx, oy-fy
	m := T - 1
	x0, y0 := int(fx)&m, int(fy)&m
	x1, y1 := (x0+1)&m, (y0+1)&m
	top := (1-ax)*float64(z[y0*T+x0]) + ax*float64(z[y0*T+x1])
	bot := (1-ax)*float64(z[y1*T+x0]) + ax*float64(z[y1*T+x1])
	return (1-ay)*top + ay*bot
}

// pooledOffset returns the offset d at which the blocks agree best when
// each may move by up to r pixels (the sum over blocks of each block's
// largest z-score within r of d), and that sum's z-score over all offsets.
func pooledOffset(b warpBlocks, T, r int) (dx, dy int, z float64) {
	sum := make([]float64, T*T)
	rows := make([]float32, T*T)
	line, out := make([]float32, T), make([]float32, T)
	mx := newCyclicMax(T, r)
	for _, zb := range b.z {
		poolMax(sum, zb, rows, line, out, mx)
	}
	var s, ss float64
	best, bi := math.Inf(-1), 0
	for i, v := range sum {
		s += v
		ss += v * v
		if v > best {
			best, bi = v, i
		}
	}
	n := float64(len(sum))
	mean := s / n
	return bi % T, bi / T, (best - mean) / math.Sqrt(math.Max(ss/n-mean*mean, 1e-30))
}

// cyclicMax computes, for every i of a cyclic line of n values, the
// largest value within r of i (van Herk / Gil-Werman: about three
// comparisons per value whatever r, where the direct loop makes 2r+1; the
// first level's pooling was most of the warp stage's cost on an unmarked
// picture).
type cyclicMax struct {
	n, r     int
	ext      []float32 // the line extended by r on each side (wrapped)
	pre, suf []float32 // running maxima within segments of 2r+1
}

func newCyclicMax(n, r int) *cyclicMax {
	m := n + 2*r
	return &cyclicMax{n: n, r: r, ext: make([]float32, m), pre: make([]float32, m), suf: make([]float32, m)}
}

// apply writes into dst (n values) the cyclic max filter of src.
func (c *cyclicMax) apply(dst, src []float32) {
	n, r, W := c.n, c.r, 2*c.r+1
	if r <= n {
		copy(c.ext, src[n-r:])
		copy(c.ext[r:], src)
		copy(c.ext[r+n:], src[:r])
	} else {
		for i := range c.ext {
			c.ext[i] = src[((i-r)%n+n)%n]
		}
	}
	maxRuns(dst[:n], c.ext, c.pre, c.suf, W)
}

// fitField returns the fields in the first n terms per axis (2n
// coefficients; displacements within reach of the offset (dx, dy)) that
// maximise the blocks' summed z-score at the displacement each predicts
// for each block's centre: the best local maxima, at most k of them, best
// first, no two within a pixel of each other at every block centre.
func fitField(b warpBlocks, T, dx, dy int, reach float64, k, n int) []field {
	score := func(f field) float64 {
		var sum float64
		for i, zb := range b.z {
			ex, ey := f.at(b.cx[i], b.cy[i])
			if math.Abs(ex) > reach+0.5 || math.Abs(ey) > reach+0.5 {
				// Out of reach: what the block shows there is not
				// evidence this level can weigh.
				ex, ey = math.Max(-reach, math.Min(reach, ex)), math.Max(-reach, math.Min(reach, ey))
				sum--
			}
			sum += interp(zb, T, float64(dx)+ex, float64(dy)+ey)
		}
		return sum
	}
	// Start from a least-squares fit through each block's own best
	// displacement, weighted by how far its peak stands out, from no
	// displacement and from a grid of the cross terms (the part of a
	// perspective no similarity absorbs) within reach; climb from each.
	starts := []field{{}, lsField(b, T, dx, dy, int(reach), n)}
	for _, gx := range [...]float64{-6, -3, 0, 3, 6} {
		for _, gy := range [...]float64{-6, -3, 0, 3, 6} {
			if (gx != 0 || gy != 0) && math.Abs(gx) <= reach && math.Abs(gy) <= reach {
				starts = append(starts, field{cx: [warpTerms]float64{0, 0, 0, gx}, cy: [warpTerms]float64{0, 0, 0, gy}})
			}
		}
	}
	type fit struct {
		f field
		s float64
	}
	var fits []fit
	for _, f0 := range starts {
		f, sc := climb(f0, score, n)
		fits = append(fits, fit{f, sc})
	}
	sortBy(len(fits), func(i, j int) bool { return fits[i].s > fits[j].s }, func(i, j int) { fits[i], fits[j] = fits[j], fits[i] })
	var out []field
	for _, c := range fits {
		distinct := true
		for _, o := range out {
			near := true
			for i := range b.cx {
				ax, ay := c.f.at(b.cx[i], b.cy[i])
				bx, by := o.at(b.cx[i], b.cy[i])
				if math.Abs(ax-bx) > 1 || math.Abs(ay-by) > 1 {
					near = false
					break
				}
			}
			if near {
				distinct = false
				break
			}
		}
		if distinct {
			out = append(out, c.f)
			if len(out) == k {
				break
			}
		}
	}
	return out
}

// climb is a coordinate ascent of score over the field's first n terms
// per axis (2n coefficients), steps halving from 1 pixel to 1/8.
func climb(best field, score func(field) float64, n int) (field, float64) {
	return ascend(best, score, ascent{from: 1, to: 0.125, rounds: 20, eps: 1e-9, n: n})
}

// ascent is a schedule of coordinate ascent: steps halving from from to
// to, at most rounds passes over the coefficients per step, a gain
// counted only above eps, and with firstGain a coefficient's second
// direction tried only when its first gained nothing.
type ascent struct {
	from, to  float64
	rounds    int
	eps       float64
	firstGain bool
	n         int // coefficients per axis moved: the first n terms
}

// ascend runs the ascent a of score from best.
func ascend(best field, score func(field) float64, a ascent) (field, float64) {
	bestS := score(best)
	for step := a.from; step >= a.to; step /= 2 {
		for round := 0; round < a.rounds; round++ {
			moved := false
			for p := 0; p < 2*a.n; p++ {
				for _, sgn := range [2]float64{1, -1} {
					f := best
					if p < a.n {
						f.cx[p] += sgn * step
					} else {
						f.cy[p-a.n] += sgn * step
					}
					if sc := score(f); sc > bestS+a.eps {
						best, bestS, moved = f, sc, true
						if a.firstGain {
							break
						}
					}
				}
			}
			if !moved {
				break
			}
		}
	}
	return best, bestS
}

// lsField fits the field in the first n terms per axis (2n coefficients)
// through each block's best displacement within r of (dx, dy), each
// weighted by its peak z-score above 2 (blocks with no clear peak count
// nothing).
func lsField(b warpBlocks, T, dx, dy, r, n int) field {
	ata := make([]float64, n*n)
	atx, aty := make([]float64, n), make([]float64, n)
	for i, zb := range b.z {
		bv, bx, by := math.Inf(-1), 0, 0
		for ey := -r; ey <= r; ey++ {
			for ex := -r; ex <= r; ex++ {
				if v := float64(zb[((dy+ey)&(T-1))*T+(dx+ex)&(T-1)]); v > bv {
					bv, bx, by = v, ex, ey
				}
			}
		}
		wt := bv - 2
		if wt <= 0 {
			continue
		}
		X, Y := b.cx[i], b.cy[i]
		row := terms(X, Y)
		for p := 0; p < n; p++ {
			for q := 0; q < n; q++ {
				ata[p*n+q] += wt * row[p] * row[q]
			}
			atx[p] += wt * row[p] * float64(bx)
			aty[p] += wt * row[p] * float64(by)
		}
	}
	for p := 0; p < n; p++ {
		ata[p*n+p] += 1e-3
	}
	cx, okx := solveLinear(append([]float64(nil), ata...), atx, n)
	cy, oky := solveLinear(append([]float64(nil), ata...), aty, n)
	var f field
	if okx && oky {
		copy(f.cx[:], cx)
		copy(f.cy[:], cy)
	}
	return f
}

// warpFits runs the first level from the starts in m0s (the first
// level's blocks folded under that map) and fits from at most
// warpFitStarts of those whose blocks pass the gate, handing each fitted
// map (one per number of terms in ns, fitted and polished) to try: the
// first try that returns true ends the search, and warpFits reports
// whether one did.
//
// The first start (scale 1), when its blocks pass the gate, is fitted
// before any other is examined and its first map is tried first, so
// every copy the stage read from scale 1's first map reads the same
// (going from the best pooled start instead lost one, `Honeywave` at
// print-angle). When that map does not read, its other maps and those of
// the best other start past the gate are fitted and tried in the order
// of their folds' z-scores: scale 1's blocks can pass the gate on a print
// seen at an angle and fit wrong maps whose folds still pass the pilot
// gate, and read first they would spend the stage's CRC checks (`Sway`
// at print-angle: scale 1's maps at z 6–12, the scan's at z 22). When
// scale 1's blocks do not pass, the others are fitted best pooled first,
// each map tried as soon as it is fitted.
func (s *scheme) warpFits(hp []float32, w, h int, m0s []warpMap, ns []int, try func(m warpMap, r syncResult, m0 warpMap) bool) bool {
	type start struct {
		m      warpMap
		b      warpBlocks
		dx, dy int
		z      float64
	}
	type fitted struct {
		m, m0 warpMap
		r     syncResult
	}
	first := func(m warpMap) start {
		b, dx, dy, z := s.warpFirstLevel(hp, w, h, m)
		return start{m, b, dx, dy, z}
	}
	fitN := func(st start, n int) fitted {
		m, r := s.warpFitFrom(hp, w, h, st.m, st.b, st.dx, st.dy, n)
		if r.z >= warpPolishZ {
			m = s.polishWarp(hp, w, h, m, r.dx, r.dy, n)
			r = s.warpFold(hp, w, h, m)
		}
		return fitted{m, st.m, r}
	}
	if len(m0s) == 0 || len(ns) == 0 {
		return false
	}
	st0 := first(m0s[0])
	var pending []fitted
	if st0.z >= warpPooledGate {
		if f := fitN(st0, ns[0]); try(f.m, f.r, f.m0) {
			return true
		}
		for _, n := range ns[1:] {
			pending = append(pending, fitN(st0, n))
		}
	}
	var rest []start
	for _, m := range m0s[1:] {
		if st := first(m); st.z >= warpPooledGate {
			rest = append(rest, st)
		}
	}
	stableBy(len(rest), func(i, j int) bool { return rest[i].z > rest[j].z }, func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	if st0.z >= warpPooledGate {
		if len(rest) > 0 {
			for _, n := range ns {
				pending = append(pending, fitN(rest[0], n))
			}
		}
		stableBy(len(pending), func(i, j int) bool { return pending[i].r.z > pending[j].r.z }, func(i, j int) { pending[i], pending[j] = pending[j], pending[i] })
		for _, f := range pending {
			if try(f.m, f.r, f.m0) {
				return true
			}
		}
		return false
	}
	for i, st := range rest {
		if i == warpFitStarts {
			break
		}
		for _, n := range ns {
			if f := fitN(st, n); try(f.m, f.r, f.m0) {
				return true
			}
		}
	}
	return false
}

// warpFitStarts is how many starts past the gate the warp stage fits at
// most (each fit is a few tens of milliseconds; a picture past the gate
// is nearly always marked).
const warpFitStarts = 2

// warpFirstLevel folds the first level's blocks under m0 and pools them:
// the pooled offset and its z-score (pooledOffset), which must pass
// warpPooledGate for the fit to go on.
func (s *scheme) warpFirstLevel(hp []float32, w, h int, m0 warpMap) (b warpBlocks, dx, dy int, z float64) {
	lv := warpLevels()
	b = s.warpBlocksOf(hp, w, h, m0, lv[0].n)
	dx, dy, z = pooledOffset(b, s.tile, int(lv[0].reach))
	return b, dx, dy, z
}

// similarityWarp is the map of a fold at scale and angle (degrees) with
// no phase: foldRot's map (the pooled offset of the first level takes
// the phase up).
func similarityWarp(scale, angle float64) warpMap {
	sin, cos := math.Sincos(angle * math.Pi / 180)
	cs, ss := cos/scale, sin/scale
	return warpMap{ux: [warpTerms]float64{0, cs, ss}, uy: [warpTerms]float64{0, -ss, cs}}
}

// warpSeeds are the starts of the warp stage: scale 1 (a print
// straightened by hand), then the similarity search's best candidate on
// the picture's own orientation off scale 1, then warpScanScales (a print
// seen at an angle and not straightened: the bench's print-angle column
// has it at scale 0.81–0.94 across the picture, so from scale 1 the first
// level's blocks are up to 15 pixels apart at the edges and mostly do not
// pool, or fit wrong maps where they do; the search's best candidate is near the print's scale on about two
// pictures in three, the scan's best on all but a dense texture).
func warpSeeds(cands []syncResult) []warpMap {
	seeds := []warpMap{identityWarp()}
	best := syncResult{z: math.Inf(-1)}
	for _, c := range cands {
		if c.d == 0 && c.scale > 0 && (c.scale != 1 || c.angle != 0) && c.z > best.z {
			best = c
		}
	}
	if best.scale > 0 {
		seeds = append(seeds, similarityWarp(best.scale, best.angle))
	}
	for _, sc := range warpScanScales {
		seeds = append(seeds, similarityWarp(sc, 0))
	}
	return seeds
}

// warpScanScales are the scales the warp stage starts from whatever the
// search found: 6 % apart, so that the print's mean scale is within 3 %
// (4 working pixels at the plane's edge, within the first level's reach)
// of one of them from 0.81 to 0.99. Each costs an unmarked picture one
// first level (about 2 ms).
var warpScanScales = [...]float64{0.84, 0.90, 0.96}

// warpFitFrom is the blocks' coarse-to-fine fit past the first level
// (its blocks b and pooled offset), fitting the first n terms per axis of
// the map (2n coefficients). The first level's evidence is the weakest
// (its blocks span the most displacement), so its warpStarts best
// distinct fits are each carried through the finer levels and the one
// whose whole-plane fold aligns best is kept.
func (s *scheme) warpFitFrom(hp []float32, w, h int, m0 warpMap, b warpBlocks, dx, dy, n int) (warpMap, syncResult) {
	T := s.tile
	lv := warpLevels()
	var best warpMap
	bestR := syncResult{z: math.Inf(-1)}
	for _, f0 := range fitField(b, T, dx, dy, lv[0].reach, warpStarts, n) {
		m := m0.minus(f0, w, h)
		for _, l := range lv[1:] {
			f := fitField(s.warpBlocksOf(hp, w, h, m, l.n), T, dx, dy, l.reach, 1, n)
			m = m.minus(f[0], w, h)
		}
		if r := s.warpFold(hp, w, h, m); r.z > bestR.z {
			best, bestR = m, r
		}
	}
	return best, bestR
}

// warpStarts is how many first-level fits the finer levels refine.
const warpStarts = 3

// warpPooledGate: the fit goes on past the first level's blocks only when
// their pooled offset (pooledOffset) stands out by this z-score. Over the
// development pictures, unmarked and unmarked after the perspective
// attacks, it reached at most 3.8 (package README); the marked copies the
// warp stage decodes start at 5.0. Below it an unmarked picture pays for
// the first level's folds and transforms only.
const warpPooledGate = 4.3

// warpFold folds the whole plane under m and aligns it with the pilot.
func (s *scheme) warpFold(hp []float32, w, h int, m warpMap) syncResult {
	T := s.tile
	acc := s.foldWarpTo(make([]float64, T*T), hp, w, m, 0, 0, w, h)
	return s.sync2WithBuf(T, s.fft, s.pilotF, acc, nil, make([]complex128, T*T))[0]
}

// warpPolishZ is the z-score from which the block fit's map is polished
// on the whole plane (each step of the polish is a whole-plane fold;
// unmarked pictures stay under it, see the package README).
const warpPolishZ = 6.0

// polishWarp refines m by a coordinate ascent of the whole plane's pilot
// correlation at offset (dx, dy) over the first n terms per axis of a
// correction (2n coefficients), steps from half a pixel to an eighth.
func (s *scheme) polishWarp(hp []float32, w, h int, m warpMap, dx, dy, n int) warpMap {
	acc := make([]float64, s.tile*s.tile)
	score := func(f field) float64 {
		return s.pilotCorr(s.foldWarpTo(acc, hp, w, m.minus(f, w, h), 0, 0, w, h), dx, dy)
	}
	best, _ := ascend(field{}, score, ascent{from: 0.5, to: 0.125, rounds: 6, firstGain: true, n: n})
	return m.minus(best, w, h)
}

// detectWarp runs the warp search on the picture's own orientation from
// the starts of warpSeeds (scale 1; the best of the similarity search's
// candidates cands; the scan's scales), fitting from at most two of them
// (warpFits): from each a bilinear map (the first four terms; from scale
// 1 exactly the search before the quadratic terms, so every copy that
// search read reads the same: a quadratic fit can land elsewhere on a
// picture no quadratic fits, `MilkyWay` seen at an angle), then, only
// when that map's fold does not read, the quadratic. The fold under each
// fitted map that passes the pilot gate is read up to twice with one CRC
// check each, warpChecks in all: the high-passed plane's fold, then the
// whitened plane's (whiten.go; on dense texture it keeps more of the
// mark, `meadow` in the tests: 41 coded bits wrong against 74). Reading
// the full-resolution luminance resampled onto the warped embedding grid,
// as regrid.go does for a similarity, was tried: fewer bit errors on some
// copies, no copy of the development set decoded that these two readings
// miss; not kept. The Detection's alignment is a similarity through the
// map's point at the plane's centre (Scale 1, Angle 0 from scale 1, else
// the map's scale and angle there): exact there, a few pixels off towards
// the corners.
func (s *scheme) detectWarp(v *views, cands []syncResult) (Payload, Detection, bool) {
	var p Payload
	var d Detection
	found, left := false, warpChecks
	read := func(m warpMap, r syncResult, m0 warpMap) bool {
		p, d, found = s.readWarp(v, m, r, m0, &left)
		return found || left == 0
	}
	if s.warpFits(v.hp, v.w, v.h, warpSeeds(cands), []int{bilinearTerms, warpTerms}, read); !found {
		return 0, Detection{}, false
	}
	return p, d, true
}

// warpChecks is how many CRC checks the warp stage makes at most, over
// every map of every start (package README, "Safety": two maps read twice
// each, what the stage made when it had a single start).
const warpChecks = 4

// similarityAt is the similarity (no phase) closest to m's derivative at
// (x, y): its scale and rotation are those of the map there.
func (m warpMap) similarityAt(x, y float64) warpMap {
	jxx := m.ux[1] + m.ux[3]*y + 2*m.ux[4]*x
	jxy := m.ux[2] + m.ux[3]*x + 2*m.ux[5]*y
	jyx := m.uy[1] + m.uy[3]*y + 2*m.uy[4]*x
	jyy := m.uy[2] + m.uy[3]*x + 2*m.uy[5]*y
	a, b := (jxx+jyy)/2, (jxy-jyx)/2
	return warpMap{ux: [warpTerms]float64{0, a, b}, uy: [warpTerms]float64{0, -b, a}}
}

// readWarp reads the fold under the fitted map m (alignment r) when it
// passes the pilot gate: up to twice, one CRC check each, while *left
// (the checks left, decremented) allows. The Detection's scale and angle
// are 1 and 0 from scale 1 (as before the other starts), else the map's
// at the plane's centre (similarityAt); its offsets those of that
// similarity through the map's point there.
func (s *scheme) readWarp(v *views, m warpMap, r syncResult, m0 warpMap, left *int) (Payload, Detection, bool) {
	w, h := v.w, v.h
	if r.z < s.minPilotZ || *left <= 0 {
		return 0, Detection{}, false
	}
	cx, cy := float64(w)/2, float64(h)/2
	ux, uy := m.at(cx, cy)
	if m0 != identityWarp() {
		m0 = m.similarityAt(cx, cy)
	}
	a, c := m0.ux[1], m0.ux[2]
	det := Detection{Found: true, Version: int(s.version), Strength: r.z, CodedBits: codedBits,
		Scale: 1 / math.Hypot(a, c), Angle: math.Atan2(c, a) * 180 / math.Pi,
		OffsetX: ux - (a*cx + c*cy) - float64(r.dx), OffsetY: uy - (m0.uy[1]*cx + m0.uy[2]*cy) - float64(r.dy),
		WorkWidth: w, WorkHeight: h, Period: s.tile}
	*left--
	if p, ver, errs, ok := s.decodeSoft(s.soft(r.acc, r.dx, r.dy)); ok {
		det.BitErrors, det.Version = errs, int(ver)
		return p, det, true
	}
	if v.work == nil || *left <= 0 {
		return 0, Detection{}, false
	}
	wp := v.whitened(0)
	if wp == nil {
		return 0, Detection{}, false
	}
	acc := s.foldWarpTo(make([]float64, s.tile*s.tile), wp, w, m, 0, 0, w, h)
	*left--
	if p, ver, errs, ok := s.decodeSoft(s.soft(acc, r.dx, r.dy)); ok {
		det.BitErrors, det.Version = errs, int(ver)
		return p, det, true
	}
	return 0, Detection{}, false
}
