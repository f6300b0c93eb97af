package watermark

import (
	"math"

	"github.com/provenant/provenant/shared/imagex"
)

// A horizontal flip (front cameras, re-posts) or a quarter turn (an EXIF
// orientation baked into the pixels, or lost) maps the tiled mark onto
// itself: the canonical working plane keeps its short side, so the tile
// keeps its size, and folding the edited plane gives the flipped or turned
// tile, cyclically shifted. So the eight transforms of the square's
// symmetry group are tested on the one fold the fast path already
// needs, against the pilot transformed the same way, instead of
// searching the plane eight times; only the winner, when its pilot
// z-score passes the gate, is turned back and decoded.

// dihedral numbers the eight transforms: bit 2 is a horizontal flip,
// applied first; bits 0–1 the clockwise quarter turns that follow.
type dihedral int

// numDihedral is the number of transforms (0 is the identity).
const numDihedral = 8

// apply returns src (w×h, row-major) transformed by d and its size.
func (d dihedral) apply(src []float32, w, h int) ([]float32, int, int) {
	return applyDihedral(d, src, w, h)
}

// applyDihedral returns a copy of src (w×h, row-major) transformed by d
// and its size.
func applyDihedral[E float32 | uint8](d dihedral, src []E, w, h int) ([]E, int, int) {
	out := append([]E(nil), src...)
	if d&4 != 0 {
		for y := 0; y < h; y++ {
			row, dst := src[y*w:(y+1)*w], out[y*w:(y+1)*w]
			for x, v := range row {
				dst[w-1-x] = v
			}
		}
	}
	if q := int(d & 3); q > 0 {
		// Clockwise: source (x, y) goes to (h-1-y, x) of an h×w plane; two
		// or three turns map (x, y) directly.
		in := out
		out = make([]E, len(in))
		for y := 0; y < h; y++ {
			row := in[y*w : (y+1)*w]
			switch q {
			case 1:
				for x, v := range row {
					out[x*h+h-1-y] = v
				}
			case 2:
				dst := out[(h-1-y)*w : (h-y)*w]
				for x, v := range row {
					dst[w-1-x] = v
				}
			case 3:
				for x, v := range row {
					out[(w-1-x)*h+y] = v
				}
			}
		}
		if q != 2 {
			w, h = h, w
		}
	}
	return out, w, h
}

// inverse returns the transform that undoes d.
func (d dihedral) inverse() dihedral {
	if d&4 != 0 {
		// A flip followed by turns is its own inverse.
		return d
	}
	return (4 - d&3) & 3
}

// turns returns the clockwise quarter turns and the flip of d.
func (d dihedral) turns() (quarter int, flip bool) { return int(d & 3), d&4 != 0 }

// dihedralPilots returns the conjugate spectra (T×T) of the pilot pattern
// transformed by each d, index d; index 0 is the pilot's own.
func (s *scheme) dihedralPilots() [][]complex128 {
	T := s.tile
	pilot := make([]float32, T*T)
	for y := 0; y < T; y++ {
		for x := 0; x < T; x++ {
			if k := (y/s.chip)*s.grid + x/s.chip; s.bitOf[k] < 0 {
				pilot[y*T+x] = s.pn[k]
			}
		}
	}
	return conjSpectra(pilot, T, s.fft)
}

// conjSpectra returns the conjugate spectra of the n×n pattern p
// transformed by each d, index d, through the n×n transform f.
func conjSpectra(p []float32, n int, f *fft2) [][]complex128 {
	out := make([][]complex128, numDihedral)
	for d := dihedral(0); d < numDihedral; d++ {
		q, _, _ := d.apply(p, n, n)
		c := make([]complex128, n*n)
		for i, v := range q {
			c[i] = complex(float64(v), 0)
		}
		f.transform(c, false)
		for i, v := range c {
			c[i] = complex(real(v), -imag(v))
		}
		out[d] = c
	}
	return out
}

// bestDihedral correlates the whole plane folded at scale 1 with the
// pilot under every transform but the identity (one forward FFT, an
// inverse per two transforms: both correlations are real) and returns the
// transform whose peak z-score is highest, with that z-score.
func (s *scheme) bestDihedral(hp []float32, w, h int) (dihedral, float64, []complex128) {
	T := s.tile
	acc := s.fold(hp, w, 1, 0, 0, w, h)
	spec := make([]complex128, T*T)
	for i, v := range acc {
		spec[i] = complex(v, 0)
	}
	s.fft.transform(spec, false)
	best, bestZ := dihedral(0), math.Inf(-1)
	buf := make([]complex128, T*T)
	for d := dihedral(1); d < numDihedral; d += 2 {
		p1, pair := s.dihedralPilotF[d], d+1 < numDihedral
		for i, v := range spec {
			// F·P1* + i·F·P2*: the inverse is corr1 + i·corr2.
			buf[i] = v * p1[i]
			if pair {
				buf[i] += complex(0, 1) * v * s.dihedralPilotF[d+1][i]
			}
		}
		s.fft.transform(buf, true)
		for k := range 2 {
			if k == 1 && !pair {
				break
			}
			var sum, ss float64
			peak := math.Inf(-1)
			for _, c := range buf {
				x := real(c)
				if k == 1 {
					x = imag(c)
				}
				sum += x
				ss += x * x
				peak = max(peak, x)
			}
			n := float64(len(buf))
			mean := sum / n
			z := (peak - mean) / math.Sqrt(math.Max(ss/n-mean*mean, 1e-30))
			if z > bestZ {
				best, bestZ = d+dihedral(k), z
			}
		}
	}
	return best, bestZ, spec
}

// foldGate carries, from one format's search to the next, the spectrum of
// the whole plane's high-pass folded at scale 1 (tile side tile), so that
// an older format with the same tile can test its own pilot on it with one
// inverse FFT before computing anything of its own.
type foldGate struct {
	spec []complex128
	tile int
}

// pilotZ is the z-score of the best cyclic alignment of s's pilot with the
// fold whose spectrum is spec (T×T).
func (s *scheme) pilotZ(spec []complex128) float64 {
	buf := make([]complex128, len(spec))
	for i, v := range spec {
		buf[i] = v * s.pilotF[i]
	}
	s.fft.transform(buf, true)
	var sum, ss float64
	peak := math.Inf(-1)
	for _, c := range buf {
		x := real(c)
		sum += x
		ss += x * x
		peak = max(peak, x)
	}
	n := float64(len(buf))
	mean := sum / n
	return (peak - mean) / math.Sqrt(math.Max(ss/n-mean*mean, 1e-30))
}

// detectDihedral decodes a flipped or quarter-turned, otherwise uncropped
// picture: the best transform by bestDihedral, if its z-score passes the
// gate, is undone on the high-passed plane and decoded once as the fast
// path would. The Detection's coordinates refer to the plane turned back
// (see [Detection.Quarter]).
func (s *scheme) detectDihedral(hp []float32, w, h int, g *foldGate) (Payload, Detection, bool) {
	d, z, spec := s.bestDihedral(hp, w, h)
	if g != nil {
		g.spec, g.tile = spec, s.tile
	}
	if z < s.minPilotZ {
		return 0, Detection{}, false
	}
	inv := d.inverse()
	hp2, w2, h2 := inv.apply(hp, w, h)
	// Without the alternative readings: their Detection would need this
	// stage's turn applied at the end of the search, where they belong.
	v := newViews(s, nil, hp2, w2, h2)
	v.alt = altOff
	p, det := s.decodeBest(v, s.syncChips(hp2, w2, []float64{1}, []float64{0}, 0, 0, w2, h2), 1)
	if !det.Found {
		return 0, det, true
	}
	// The examined picture is d applied to the signed one.
	det.Quarter, det.Flipped = d.turns()
	return p, det, true
}

// Orient returns l turned back into the signed picture's orientation when
// the watermark was found flipped or turned (d.Flipped, d.Quarter), and l
// itself otherwise, so that d's alignment applies to the result.
func Orient(l *imagex.Luma, d Detection) *imagex.Luma {
	if !d.Flipped && d.Quarter == 0 {
		return l
	}
	t := dihedral(d.Quarter & 3)
	if d.Flipped {
		t |= 4
	}
	return orientLuma(l, t.inverse())
}

// A flip or a quarter turn combined with a crop moves the scale as well
// as the orientation: the scale-1 test above then folds a smeared tile
// (a 2 % crop drifts the grid by 5 working pixels across a 256-px plane)
// and the crop search, which looked for the pilot in its own orientation
// only, never saw it. So the crop search's chip-level folds are each
// correlated with the pilot under all eight transforms (the chip grid
// maps onto itself like the tile), and a candidate carries its transform
// through refinement and decoding, which then run on the plane turned
// back. Eight correlations per fold cost one forward FFT per two folds
// and four inverse FFTs per fold (two real correlations per complex
// inverse) instead of one.

// dihedralChipPilots returns the conjugate spectra (G×G) of the pilot's
// chip pattern transformed by each d.
func (s *scheme) dihedralChipPilots() [][]complex128 {
	G := s.grid
	pilot := make([]float32, G*G)
	for _, k := range s.pilotChips {
		pilot[k] = s.pn[k]
	}
	return conjSpectra(pilot, G, s.fftChip)
}

// sync2Dihedral is sync2With on the chip grid for two folds at once, each
// correlated with the pilot under all eight transforms; each result is
// the fold's best transform (ties to the identity).
func (s *scheme) sync2Dihedral(a, b []float64) (r [2]syncResult) {
	return s.sync2DihedralBuf(a, b, newChipScratch(s.grid))
}

// chipScratch is the work space of a chip-level search over one window:
// two fold accumulators (2·G² each, see foldChipsTo) and the transforms'
// buffers (G² each). Reusing it across the window's scales gives the same
// results as fresh buffers (every one is overwritten before it is read)
// without an allocation per fold, which the garbage collector, and the
// WebAssembly build most of all, pays for.
type chipScratch struct {
	fold         [2][]float64
	z, buf       []complex128
	specA, specB []complex128
}

func newChipScratch(G int) *chipScratch {
	n := G * G
	f := make([]float64, 4*n)
	c := make([]complex128, 4*n)
	return &chipScratch{fold: [2][]float64{f[: 2*n : 2*n], f[2*n:]}, z: c[:n:n], buf: c[n : 2*n : 2*n], specA: c[2*n : 3*n : 3*n], specB: c[3*n:]}
}

// sync2DihedralBuf is sync2Dihedral with sc's transform buffers.
func (s *scheme) sync2DihedralBuf(a, b []float64, sc *chipScratch) (r [2]syncResult) {
	G := s.grid
	n := G * G
	z := sc.z[:n]
	packPair(z, a, b)
	s.fftChip.transform(z, false)
	// The spectra of the two real folds: A[k] = (Z[k] + conj Z[-k])/2,
	// B[k] = (Z[k] − conj Z[-k])/2i.
	spec := [2][]complex128{sc.specA[:n], sc.specB[:n]}
	for ky := 0; ky < G; ky++ {
		for kx := 0; kx < G; kx++ {
			k, m := ky*G+kx, ((G-ky)%G)*G+(G-kx)%G
			// Halving and dividing by 2i written out: a complex division
			// is a runtime call (the same values but for the sign of a
			// zero, which no sum below keeps).
			zr, zi, mr, mi := real(z[k]), imag(z[k]), real(z[m]), imag(z[m])
			spec[0][k] = complex((zr+mr)/2, (zi-mi)/2)
			spec[1][k] = complex((zi+mi)/2, -(zr-mr)/2)
		}
	}
	buf := sc.buf[:n]
	for f := 0; f < 2; f++ {
		if f == 1 && b == nil {
			break
		}
		best := syncResult{z: math.Inf(-1)}
		for d := dihedral(0); d < numDihedral; d += 2 {
			// q = P_d + i·P_{d+1}: the two correlations come back as the
			// real and imaginary parts of one inverse.
			q := s.dihedralChipQ[d/2][:n]
			mulInto(buf, spec[f], q)
			s.fftChip.transform(buf, true)
			z, idx := peakZ2(buf)
			for k := range 2 {
				if z[k] > best.z {
					best = syncResult{dx: idx[k] % G, dy: idx[k] / G, z: z[k], d: d + dihedral(k)}
				}
			}
		}
		r[f] = best
	}
	return r
}

// mulInto sets dst[i] = a[i]·b[i] (all of a's length).
func mulInto(dst, a, b []complex128) {
	mulKernel(dst[:len(a)], a, b[:len(a)])
}

// peakZ2 returns the z-scores of the largest real and the largest
// imaginary part of buf over all its entries, and their indices (one pass).
func peakZ2(buf []complex128) (z [2]float64, idx [2]int) {
	sr, si, ssr, ssi, br, bi, idx := peakScan(buf)
	n := float64(len(buf))
	mr, mi := sr/n, si/n
	z[0] = (br - mr) / math.Sqrt(math.Max(ssr/n-mr*mr, 1e-30))
	z[1] = (bi - mi) / math.Sqrt(math.Max(ssi/n-mi*mi, 1e-30))
	return z, idx
}

// views holds the search's planes turned back by the inverse of each
// transform a candidate was found under, computed when first needed: the
// high-passed working plane and, for a decode, the full-resolution
// luminance.
type views struct {
	s    *scheme
	l    *imagex.Luma
	hp   []float32
	w, h int
	byD  map[dihedral]*view
	// noDihedral keeps the search to the picture's own orientation.
	noDihedral bool
	// alt says when decodeBest tries the alternative readings; later
	// collects them under altDefer.
	alt   altMode
	later []reading
	// work is the working plane hp was computed from (nil when the search
	// has none): the whitened reading's source, whitened once per
	// orientation and only when a candidate gets that far.
	work      []float32
	whitenedD map[dihedral][]float32
}

// whitened returns the whitened plane (whiten.go) turned back from d, or
// nil when it cannot be computed.
func (v *views) whitened(d dihedral) []float32 {
	if wp, ok := v.whitenedD[d]; ok {
		return wp
	}
	if v.whitenedD == nil {
		v.whitenedD = map[dihedral][]float32{}
	}
	wp, ok := v.whitenedD[0]
	if !ok {
		wp = v.s.whitenedPlane(v.work, v.w, v.h)
		v.whitenedD[0] = wp
	}
	if d != 0 && wp != nil {
		wp, _, _ = d.inverse().apply(wp, v.w, v.h)
		v.whitenedD[d] = wp
	}
	return wp
}

// view is one orientation of the examined picture.
type view struct {
	l    *imagex.Luma
	hp   []float32
	w, h int
}

func newViews(s *scheme, l *imagex.Luma, hp []float32, w, h int) *views {
	return &views{s: s, l: l, hp: hp, w: w, h: h, byD: map[dihedral]*view{0: {l: l, hp: hp, w: w, h: h}}}
}

// get returns the examined picture turned back from d.
func (v *views) get(d dihedral) *view {
	if o, ok := v.byD[d]; ok {
		return o
	}
	hp, w, h := d.inverse().apply(v.hp, v.w, v.h)
	o := &view{hp: hp, w: w, h: h}
	v.byD[d] = o
	return o
}

// luma returns the full-resolution luminance turned back from d (nil when
// the search has none), computed only when a candidate under d is decoded:
// turning 12 MP costs more than the whole search on the working plane.
func (v *views) luma(d dihedral) *imagex.Luma {
	o := v.get(d)
	if o.l == nil && v.l != nil {
		o.l = orientLuma(v.l, d.inverse())
	}
	return o.l
}

// orientLuma returns l transformed by t.
func orientLuma(l *imagex.Luma, t dihedral) *imagex.Luma {
	src := l.Pix
	if l.Stride != l.Width {
		src = make([]uint8, l.Width*l.Height)
		for y := 0; y < l.Height; y++ {
			copy(src[y*l.Width:], l.Pix[y*l.Stride:y*l.Stride+l.Width])
		}
	}
	out, w, h := applyDihedral(t, src, l.Width, l.Height)
	return &imagex.Luma{Width: w, Height: h, Stride: w, Pix: out}
}

// packPair puts two real planes into one complex one, a as the real part
// and b (nil for zeros) as the imaginary part, so that one transform
// gives both spectra.
func packPair(z []complex128, a, b []float64) {
	if len(z) < len(a) || (b != nil && len(b) < len(a)) {
		panic("watermark: packPair: bad shape")
	}
	if len(a) > 0 {
		packPairImpl(z, a, b)
	}
}

func packPairGo(z []complex128, a, b []float64) {
	for i, v := range a {
		var im float64
		if b != nil {
			im = b[i]
		}
		z[i] = complex(v, im)
	}
}
