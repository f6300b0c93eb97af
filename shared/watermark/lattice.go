package watermark

import "math"

// The rotation search folds both coarse windows at every (scale, angle)
// pair it tries (84 pairs, 168 rotated folds and their FFTs, then 10
// whole-plane folds): 40 % of the cost of a search that finds nothing.
// A much cheaper statistic says on most pictures whether any of those
// pairs holds a mark: the mark is one tile repeated over the picture, so
// its power spectrum sits on a lattice (1/T cycle per embedding pixel)
// that a rotation turns and a crop stretches, while a photo's spectrum is
// smooth there. The whitened power spectrum of the high-passed plane,
// averaged over the lattice's points of each pair, is a z-score that
// costs two 256×256 FFTs. It grows with the square of the mark's
// signal-to-host ratio (the fold's correlation with the ratio itself), so
// it is trusted only on pictures with enough quiet pixels, where a
// rotated mark lifts it far above the gate; on dense texture the search
// runs as before. The README ("Search cost on unmarked pictures") has the
// measurements behind both bounds.

const (
	// latticeN is the side of the squares transformed (the working
	// plane's short side).
	latticeN = 256
	// latticeRMin, latticeRMax: the band of spatial frequencies, in bins
	// of the latticeN-point transform, whose lattice points are averaged
	// (below: the high-pass removed the mark with the host; above: the
	// chips' own envelope and the resampling leave little).
	latticeRMin, latticeRMax = 12, 56
	// latticeTaper is the width, in pixels, of the cosine taper at the
	// edges of each transformed square.
	latticeTaper = 16
	// latticeWhiten is the half-side of the square of bins whose mean
	// power whitens a bin.
	latticeWhiten = 4
	// latticeNullTurn: the null statistic of a pair is taken at its angle
	// plus this many degrees, where no lattice of the search lies.
	latticeNullTurn = 30
	// latticeGate is the lattice z-score from which the rotation search
	// runs. Unmarked development pictures with quiet areas: 1.8–6.6 (over
	// 5 only with periodic structure, where the search then runs);
	// rotated marked copies of them: 9.8 and up.
	latticeGate = 5.0
	// latticeQuiet is the fraction of quiet pixels (latticeQuietPower)
	// below which the lattice is not trusted and the rotation search
	// always runs: the statistic grows with the square of the mark's
	// signal-to-host ratio, so on dense texture (measured: 1–6 % quiet)
	// a mark the search recovers at pilot z 9–16 leaves the lattice at
	// noise level (2.3–5.5). Over the development set no rotated copy on
	// a picture with 15 % quiet pixels or more came under 9.8.
	latticeQuiet = 0.15
	// latticeQuietPower: a pixel is quiet when its local high-pass power
	// is under this many times the decoder's power floor and its
	// luminance is off the clipping levels (flat black or white carries
	// no mark: measured on translucent wallpapers flattened over black,
	// 82 % of whose pixels are flat black).
	latticeQuietPower            = 4
	latticeLumaLo, latticeLumaHi = 4, 251
)

// latticeMap is the whitened power spectrum of the transformed squares,
// averaged.
type latticeMap struct {
	p []float64 // latticeN², bin (kx, ky) at ky·latticeN + kx
}

// newLatticeMap transforms latticeN squares covering the w×h plane (one
// at each end of the long side, overlapping), each with a cosine taper of
// latticeTaper pixels at its edges, whitens each one's power by the mean
// over (2·latticeWhiten+1)² neighbouring bins, and averages the two: the
// mark is spread over the whole picture, and a dense texture in the
// centre (the decoder's coarse windows are off-centre for the same
// reason) must not hide it. ok false when the plane is smaller than a
// square.
func (s *scheme) newLatticeMap(hp []float32, w, h int) (*latticeMap, bool) {
	const N = latticeN
	if w < N || h < N || s.latticeFFT == nil {
		return nil, false
	}
	win := make([]float64, N)
	for i := range win {
		win[i] = 1
		if d := min(i, N-1-i); d < latticeTaper {
			win[i] = 0.5 - 0.5*math.Cos(math.Pi*(float64(d)+0.5)/latticeTaper)
		}
	}
	f := s.latticeFFT
	m := &latticeMap{p: make([]float64, N*N)}
	buf := make([]complex128, N*N)
	p := make([]float64, N*N)
	tmp := make([]float64, N*N)
	origins := [][2]int{{0, 0}, {w - N, h - N}}
	const r = latticeWhiten
	inv := float64((2*r+1)*(2*r+1)) / float64(len(origins))
	// add[i], sub[i]: the indices entering and leaving a cyclic window
	// of half-side r as it moves from i to i+1.
	add, sub := make([]int, N), make([]int, N)
	for i := range add {
		add[i], sub[i] = (i+r+1)%N, (i-r+N)%N
	}
	col := make([]float64, N)
	for _, o := range origins {
		x0, y0 := o[0], o[1]
		for y := 0; y < N; y++ {
			row := hp[(y+y0)*w+x0 : (y+y0)*w+x0+N]
			dst := buf[y*N : (y+1)*N]
			for x, v := range row {
				dst[x] = complex(float64(v)*win[x]*win[y], 0)
			}
		}
		f.transform(buf, false)
		powerOf(p, buf)
		// Cyclic box mean, rows then columns (running sums; the columns'
		// sums are kept per column and advanced a row at a time, so the
		// passes read memory in order).
		boxRows(tmp, p, N, r, add, sub)
		clear(col)
		for d := -r; d <= r; d++ {
			src := tmp[((d+N)%N)*N : ((d+N)%N+1)*N]
			for x, v := range src {
				col[x] += v
			}
		}
		// Whitened (power over its neighbourhood's mean), averaged over
		// the squares.
		whitenCols(m.p, p, tmp, col, add, sub, inv)
	}
	return m, true
}

// stat is the mean whitened power at the points of the tile lattice of a
// mark at this scale and angle (degrees) within the frequency band, one
// of each pair of opposite points (the spectrum of a real plane is
// symmetric).
func (m *latticeMap) stat(tile int, scale, angle float64) float64 {
	const N = latticeN
	sin, cos := math.Sincos(angle * math.Pi / 180)
	step := float64(N) / (float64(tile) * scale)
	lim := int(latticeRMax / step)
	var sum float64
	n := 0
	for q := 0; q <= lim; q++ {
		for k := -lim; k <= lim; k++ {
			if q == 0 && k <= 0 {
				continue
			}
			fx, fy := float64(k)*step, float64(q)*step
			if r2 := fx*fx + fy*fy; r2 < latticeRMin*latticeRMin || r2 > latticeRMax*latticeRMax {
				continue
			}
			// The lattice turned as the search's angle turns the fold
			// (measured: a picture found at angle −3° peaks here at −3°).
			rx, ry := cos*fx-sin*fy, sin*fx+cos*fy
			ix, iy := int(math.Floor(rx+0.5))&(N-1), int(math.Floor(ry+0.5))&(N-1)
			sum += m.p[iy*N+ix]
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// latticeZ returns the largest z-score of the lattice statistic over the
// (scale, angle) pairs, each against the same statistics at the pairs
// turned by latticeNullTurn (mean and spread over all pairs); ok false
// when the plane is too small for the map.
func (s *scheme) latticeZ(hp []float32, w, h int, scales, angles []float64) (float64, bool) {
	m, ok := s.newLatticeMap(hp, w, h)
	if !ok || len(scales) < 2 {
		return 0, false
	}
	var sum, ss float64
	for i, sc := range scales {
		v := m.stat(s.tile, sc, angles[i]+latticeNullTurn)
		sum += v
		ss += v * v
	}
	n := float64(len(scales))
	mean := sum / n
	sd := math.Sqrt(math.Max(ss/n-mean*mean, 1e-30))
	best := math.Inf(-1)
	for i, sc := range scales {
		best = max(best, (m.stat(s.tile, sc, angles[i])-mean)/sd)
	}
	return best, true
}

// rotationLatticeZ is the largest lattice z-score over the rotation
// search's pairs and their angle refinements (ok false without a map).
func (s *scheme) rotationLatticeZ(hp []float32, w, h int) (float64, bool) {
	scales, angles := s.rotationPairs(w, h)
	n := len(scales)
	for i := 0; i < n; i++ {
		for _, da := range s.refineAngles {
			scales, angles = append(scales, scales[i]), append(angles, angles[i]+da)
		}
	}
	return s.latticeZ(hp, w, h, scales, angles)
}

// rotationShows reports whether the rotation search may find a mark on
// the picture (high-passed working plane hp, w×h, whose fraction of quiet
// pixels is quiet, see quietShare): true unless the format has the gate,
// at least latticeQuiet of the pixels are quiet and no pair of the search
// reaches latticeGate.
func (s *scheme) rotationShows(quiet float64, hp []float32, w, h int) bool {
	if s.latticeFFT == nil || quiet < latticeQuiet {
		return true
	}
	z, ok := s.rotationLatticeZ(hp, w, h)
	return !ok || z >= latticeGate
}

// quietShare is the fraction of the working plane's pixels whose local
// high-pass power loc (the decoder's, before its normalisation) is under
// latticeQuietPower times the decoder's floor and whose luminance work is
// within [latticeLumaLo, latticeLumaHi].
func quietShare(work, loc []float32, floor float32) float64 {
	if len(loc) == 0 {
		return 0
	}
	work = work[:len(loc)]
	n := 0
	for i, v := range loc {
		if v < latticeQuietPower*floor && work[i] >= latticeLumaLo && work[i] <= latticeLumaHi {
			n++
		}
	}
	return float64(n) / float64(len(loc))
}
