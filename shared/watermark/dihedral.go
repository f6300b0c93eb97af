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
	out := src
	if d&4 != 0 {
		out = make([]float32, len(src))
		for y := 0; y < h; y++ {
			row, dst := src[y*w:(y+1)*w], out[y*w:(y+1)*w]
			for x, v := range row {
				dst[w-1-x] = v
			}
		}
	}
	for q := 0; q < int(d&3); q++ {
		// Clockwise: source (x, y) goes to (h-1-y, x) of an h×w plane.
		rot := make([]float32, len(out))
		for y := 0; y < h; y++ {
			row := out[y*w : (y+1)*w]
			for x, v := range row {
				rot[x*h+h-1-y] = v
			}
		}
		out, w, h = rot, h, w
	}
	if &out[0] == &src[0] {
		out = append([]float32(nil), src...)
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
	out := make([][]complex128, numDihedral)
	for d := dihedral(0); d < numDihedral; d++ {
		p, _, _ := d.apply(pilot, T, T)
		f := make([]complex128, T*T)
		for i, v := range p {
			f[i] = complex(float64(v), 0)
		}
		s.fft.transform(f, false)
		for i, v := range f {
			f[i] = complex(real(v), -imag(v))
		}
		out[d] = f
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
	p, det := s.decodeBest(nil, hp2, w2, h2, s.syncChips(hp2, w2, []float64{1}, []float64{0}, 0, 0, w2, h2), 1)
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
	src := make([]float32, l.Width*l.Height)
	for y := 0; y < l.Height; y++ {
		for x, v := range l.Pix[y*l.Stride : y*l.Stride+l.Width] {
			src[y*l.Width+x] = float32(v)
		}
	}
	out, w, h := t.inverse().apply(src, l.Width, l.Height)
	o := &imagex.Luma{Width: w, Height: h, Stride: w, Pix: make([]uint8, w*h)}
	for i, v := range out {
		o.Pix[i] = uint8(v)
	}
	return o
}
