package watermark

import (
	"math"

	"github.com/provenant/provenant/shared/imagex"
)

// A picture whose aspect ratio was changed (stretched or squeezed along
// one axis by 10–20 %: a fixed-size template, a careless resize) keeps its
// short side as the short side, so the canonical working plane normalises
// that axis back to scale 1 exactly and only the long axis has another
// scale r. The isotropic search cannot follow: at r = 1.15 its folds drift
// by a tile across the long side. So the aspect search uses that the short
// axis is known: the high-passed plane is folded along the short axis once
// (at chip resolution, two phases), and each candidate r then folds only
// the long axis of that profile, over a window of the long side, into the
// chip grid correlated with the pilot, as the crop search does. The best
// r is refined on the whole long side at chip level (cheap, from the same
// profile), and only a candidate whose z-score passes the gate costs
// pixel-level folds of the whole plane, the alignment and one decode from
// the full-resolution luminance resampled onto the embedding grid with a
// scale per axis.

const (
	// aspectMin and aspectMax bound the long axis's scale relative to the
	// short one (squeezed or stretched by up to 20–25 %).
	aspectMin, aspectMax = 0.8, 1.25
	// aspectStep is the coarse step of r: over the window (aspectHalf on
	// each side of the centre) half a step drifts the grid by under a pixel.
	aspectStep = 1.02
	aspectHalf = 80
	// aspectSkip: ratios this close to 1 are the isotropic search's.
	aspectSkip = 0.012
	// aspectRefineZ is the chip-level whole-axis z-score a candidate needs
	// before any pixel-level work (unmarked pictures stay under it, see
	// bench/README.md).
	aspectRefineZ = 6
	// aspectRefineTop coarse ratios are refined.
	aspectRefineTop = 1
)

// aspectRatios lists the coarse long-axis scales.
func aspectRatios() []float64 {
	var rs []float64
	for r := aspectMin; r <= aspectMax*1.001; r *= aspectStep {
		if math.Abs(math.Log(r)) >= aspectSkip {
			rs = append(rs, r)
		}
	}
	return rs
}

// shortProfile folds hp along the short axis at scale 1 into chip rows:
// for phase ph (0 or 1 pixel), out[ph][i*G+c] sums the pixels at long
// coordinate i whose short coordinate, shifted by ph, falls in chip c
// (long-major, so that a long-axis fold adds whole G-vectors).
func (s *scheme) shortProfile(hp []float32, w, h int) (prof [2][]float64, long int) {
	T, C, G := s.tile, s.chip, s.grid
	landscape := w >= h
	long = h
	if landscape {
		long = w
	}
	short := w
	if landscape {
		short = h
	}
	bins := make([]int, short)
	for ph := 0; ph < 2; ph++ {
		p := make([]float64, G*long)
		for i := range bins {
			bins[i] = ((i + ph) % T) / C
		}
		profileFold(p, G, hp[:w*h], w, bins, landscape)
		prof[ph] = p
	}
	return prof, long
}

// aspectFold folds the long-axis range [i0, i1) of a short-axis profile at
// long-axis scale r into the G×G chip grid (rows are the y chips).
func (s *scheme) aspectFold(p []float64, long int, landscape bool, r float64, i0, i1 int) []float64 {
	T, C, G := s.tile, s.chip, s.grid
	// Sum runs of the long axis that share a chip first (long-major:
	// accT[cl] is the G-vector of long chip cl), then lay out as y rows.
	accT := make([]float64, G*G)
	foldAspect(accT, p, G, T, C, r, i0, i1)
	if !landscape {
		return accT
	}
	acc := make([]float64, G*G)
	for cl := 0; cl < G; cl++ {
		for c := 0; c < G; c++ {
			acc[c*G+cl] = accT[cl*G+c]
		}
	}
	return acc
}

// aspectCand is a chip-level candidate of the aspect search.
type aspectCand struct {
	r  float64
	ph int
	z  float64
}

// aspectSearch returns the long-axis scales worth a pixel-level look: the
// coarse ratios folded over a window of the long side, the best refined on
// the whole long side at chip level, kept when the refined z-score reaches
// aspectRefineZ.
func (s *scheme) aspectSearch(hp []float32, w, h int) []aspectCand {
	prof, long := s.shortProfile(hp, w, h)
	landscape := w >= h
	half := min(aspectHalf, long/2)
	i0, i1 := long/2-half, long/2+half
	var coarse []aspectCand
	for _, r := range aspectRatios() {
		a := s.aspectFold(prof[0], long, landscape, r, i0, i1)
		b := s.aspectFold(prof[1], long, landscape, r, i0, i1)
		res := s.sync2With(s.grid, s.fftChip, s.pilotChipF, a, b)
		for ph := 0; ph < 2; ph++ {
			coarse = append(coarse, aspectCand{r: r, ph: ph, z: res[ph].z})
		}
	}
	sortBy(len(coarse), func(i, j int) bool { return coarse[i].z > coarse[j].z }, func(i, j int) { coarse[i], coarse[j] = coarse[j], coarse[i] })
	var out []aspectCand
	seen := map[float64]bool{}
	for _, c := range coarse {
		if len(seen) == aspectRefineTop {
			break
		}
		if seen[c.r] {
			continue
		}
		seen[c.r] = true
		// Whole long side, chip level, around the coarse ratio: four
		// ratios per FFT pair of the two phases.
		best := aspectCand{z: math.Inf(-1)}
		for _, f := range []float64{0.99, 0.995, 1, 1.005, 1.01} {
			r := c.r * f
			a := s.aspectFold(prof[0], long, landscape, r, 0, long)
			b := s.aspectFold(prof[1], long, landscape, r, 0, long)
			res := s.sync2With(s.grid, s.fftChip, s.pilotChipF, a, b)
			for ph := 0; ph < 2; ph++ {
				if res[ph].z > best.z {
					best = aspectCand{r: r, ph: ph, z: res[ph].z}
				}
			}
		}
		if best.z >= aspectRefineZ {
			out = append(out, best)
		}
	}
	return out
}

// foldAniso folds the whole w×h plane into one T×T tile with decoder pixel
// (x, y) at embedding coordinate (x/sx + px, y/sy + py).
func (s *scheme) foldAniso(hp []float32, w, h int, sx, sy, px, py float64) []float64 {
	T := s.tile
	acc := make([]float64, T*T)
	tx := make([]int, w)
	for x := range tx {
		tx[x] = int((float64(x)+0.5)/sx+px) % T
	}
	for y := 0; y < h; y++ {
		ty := int((float64(y)+0.5)/sy+py) % T
		row := acc[ty*T : (ty+1)*T]
		for i, v := range hp[y*w : (y+1)*w] {
			row[tx[i]] += float64(v)
		}
	}
	return acc
}

// detectAspect runs the aspect search and decodes its candidates (at most
// maxAspectDecodes): a pixel-level fold of the whole plane at three
// long-axis scales around the candidate's, the best aligned to the
// half-pixel and refined to 0.1 %, then decoded from the luminance
// resampled onto the embedding grid. The Detection reports the examined
// picture's working plane as WorkWidth×WorkHeight with the long axis
// divided by r, so that its offsets and Scale 1 place it on the signed
// picture's grid as an isotropic alignment would.
func (s *scheme) detectAspect(l *imagex.Luma, hp []float32, w, h int) (Payload, Detection, bool) {
	cands := s.aspectSearch(hp, w, h)
	if len(cands) == 0 {
		return 0, Detection{}, false
	}
	landscape := w >= h
	scales := func(r float64) (float64, float64) {
		if landscape {
			return r, 1
		}
		return 1, r
	}
	var best Detection
	for k, c := range cands {
		if k >= maxAspectDecodes {
			break
		}
		// Pixel level, whole plane: three ratios, two per FFT.
		rs := []float64{c.r * 0.998, c.r, c.r * 1.002}
		var top syncResult
		top.z = math.Inf(-1)
		var topR float64
		for i := 0; i < len(rs); i += 2 {
			sx, sy := scales(rs[i])
			a := s.foldAniso(hp, w, h, sx, sy, 0, 0)
			var b []float64
			if i+1 < len(rs) {
				sx, sy = scales(rs[i+1])
				b = s.foldAniso(hp, w, h, sx, sy, 0, 0)
			}
			res := s.sync2(a, b)
			for j := 0; j < 2 && i+j < len(rs); j++ {
				if res[j].z > top.z {
					top, topR = res[j], rs[i+j]
				}
			}
		}
		if top.z > best.Strength {
			best = Detection{Strength: top.z, Scale: 1}
		}
		if top.z < s.minPilotZ {
			continue
		}
		// Align to the half pixel and refine r to 0.1 %.
		var ac []float64
		bestCorr := math.Inf(-1)
		var dx, dy int
		var px, py, r float64
		for _, f := range []float64{0.999, 1, 1.001} {
			for _, ph := range [4][2]float64{{0, 0}, {0.5, 0}, {0, 0.5}, {0.5, 0.5}} {
				sx, sy := scales(topR * f)
				acc := s.foldAniso(hp, w, h, sx, sy, ph[0], ph[1])
				if v, bx, by := s.pilotNear(acc, top.dx, top.dy); v > bestCorr {
					bestCorr, ac, dx, dy, px, py, r = v, acc, bx, by, ph[0], ph[1], topR*f
				}
			}
		}
		sx, sy := scales(r)
		soft := s.soft(ac, dx, dy)
		if l != nil {
			if g, ok := s.regridAniso(l, w, h, sx, sy, dx, dy, px, py); ok {
				soft = g
			}
		}
		p, ver, errs, ok := s.decodeSoft(soft)
		if !ok {
			continue
		}
		ww, wh := w, h
		if landscape {
			ww = int(math.Round(float64(w) / r))
		} else {
			wh = int(math.Round(float64(h) / r))
		}
		return p, Detection{Found: true, Version: int(ver), Strength: top.z, BitErrors: errs, CodedBits: codedBits, Scale: 1,
			OffsetX: px - float64(dx), OffsetY: py - float64(dy), WorkWidth: ww, WorkHeight: wh, Period: s.tile}, true
	}
	return 0, best, true
}

// maxAspectDecodes bounds the decode attempts of the aspect search.
const maxAspectDecodes = 1

// regridAniso is regridSoft for a candidate with a scale per axis.
func (s *scheme) regridAniso(l *imagex.Luma, w, h int, sx, sy float64, dx, dy int, px, py float64) (soft []float64, ok bool) {
	g, ok := s.regridPlane(l, w, h, sx, sy, dx, dy, px, py)
	if !ok {
		return nil, false
	}
	return s.soft(g.acc, g.dx, g.dy), true
}

// regridded is the full-resolution luminance resampled onto a candidate's
// embedding grid and high-passed (hp, w×h), its fold at phase (px, py) and
// the offset (dx, dy) that aligns the fold with the pilot.
type regridded struct {
	hp     []float32
	w, h   int
	px, py float64
	acc    []float64
	dx, dy int
}

// regridPlane resamples l onto the embedding grid of the candidate found on
// a w×h working plane with a scale per axis, high-passes and folds it and
// re-aligns by up to one pixel. ok is false when the grid is too small to
// fold.
func (s *scheme) regridPlane(l *imagex.Luma, w, h int, sx, sy float64, dx, dy int, px, py float64) (g regridded, ok bool) {
	ex, mw, ox, qx := gridAxis(l.Width, w, sx, dx, px)
	ey, mh, oy, qy := gridAxis(l.Height, h, sy, dy, py)
	if mw < s.tile || mh < s.tile {
		return g, false
	}
	r := resampleTaps(l, areaTaps(l.Width, mw, ox, qx), areaTaps(l.Height, mh, oy, qy), float32(1/qy))
	T := s.tile
	g = regridded{hp: s.highpass(r, mw, mh), w: mw, h: mh, px: float64(((ex % T) + T) % T), py: float64(((ey % T) + T) % T)}
	g.acc = s.foldPhase(g.hp, mw, 1, g.px, g.py, 0, 0, mw, mh)
	_, g.dx, g.dy = s.pilotNear(g.acc, 0, 0)
	return g, true
}

// decodeSoft runs the Viterbi decoder on soft bit values and checks the
// CRC and the version (the scheme's own, or the format that shares its
// signal, see scheme.sibling), which it returns; errs counts the coded bits
// the soft values got wrong.
func (s *scheme) decodeSoft(soft []float64) (p Payload, v uint8, errs int, ok bool) {
	msg := viterbi(soft)
	p, v, ok = parseMessage(msg)
	if !ok || (v != s.version && (s.sibling == 0 || v != s.sibling)) {
		return 0, 0, 0, false
	}
	for j, b := range convEncode(msg) {
		if (soft[j] > 0) != (b == 1) {
			errs++
		}
	}
	return p, v, errs, true
}
