package phash

import "github.com/provenant/provenant/shared/imagex"

// Transform is one of the eight symmetries of a rectangle's pixel grid
// (the dihedral group of the square): an optional transposition (swap x
// and y), then an optional left-right mirror, then an optional top-bottom
// flip. The eight combinations are every mirror and quarter turn.
type Transform uint8

// The flags a Transform combines; Identity is none of them.
const (
	Identity  Transform = 0
	MirrorX   Transform = 1 << 0
	FlipY     Transform = 1 << 1
	Transpose Transform = 1 << 2
	// Transforms is the number of elements of the group.
	Transforms = 8
)

// String names t as a reader sees the picture changed.
func (t Transform) String() string {
	switch t & 7 {
	case Identity:
		return "as is"
	case MirrorX:
		return "mirrored"
	case FlipY:
		return "flipped upside down"
	case MirrorX | FlipY:
		return "turned 180°"
	case Transpose:
		return "transposed"
	case Transpose | MirrorX:
		return "turned 90° clockwise"
	case Transpose | FlipY:
		return "turned 90° counter-clockwise"
	}
	return "transposed and turned 180°"
}

// Inverse returns the transform that undoes t.
func (t Transform) Inverse() Transform {
	// Only the quarter turns are not their own inverse: transposing then
	// mirroring is undone by flipping then transposing.
	switch t & 7 {
	case Transpose | MirrorX:
		return Transpose | FlipY
	case Transpose | FlipY:
		return Transpose | MirrorX
	}
	return t & 7
}

// EXIFOrientation returns the EXIF orientation (1..8) whose display
// transform is t, so that imagex.Orient(img, t.EXIFOrientation()) is img
// under t.
func (t Transform) EXIFOrientation() int {
	return [Transforms]int{
		Identity: 1, MirrorX: 2, FlipY: 4, MirrorX | FlipY: 3,
		Transpose: 5, Transpose | MirrorX: 6, Transpose | FlipY: 8, Transpose | MirrorX | FlipY: 7,
	}[t&7]
}

// Dihedral returns the hashes of l under every Transform, indexed by the
// Transform: element t is, up to floating-point rounding, the Hash of l
// transformed by t. Element Identity is exactly Compute(l).
//
// The variants come from the one DCT Compute makes: the area-averaged
// planes are square, so a transposition of the picture transposes the
// coefficient block, and a mirror along an axis multiplies the
// coefficients of odd frequency along that axis by −1 (DCT-II:
// x[N−1−n] ↦ (−1)^k X[k]). Only the medians are recomputed. Cost: one
// Compute plus 8 medians.
func Dihedral(l *imagex.Luma) ([Transforms]Hash, error) {
	var out [Transforms]Hash
	if l == nil || l.Width <= 0 || l.Height <= 0 {
		return out, ErrEmpty
	}
	s256 := imagex.Downscale(l, Side256, Side256)
	s64 := imagex.Downscale(s256, Side64, Side64)
	c64, c256 := coeffs64(s64), coeffs256(s256)
	t64, t256 := make([]float64, 64), make([]float64, 256)
	for t := Transform(0); t < Transforms; t++ {
		if t == Identity {
			// Exactly Compute's operations, so the identity is its bits.
			out[t] = Hash{P64: bits64(c64), P256: bits256(c256[:])}
			continue
		}
		transformBlock(t64, c64, 8, t)
		transformBlock(t256, c256[:], 16, t)
		out[t] = Hash{P64: bits64(t64), P256: bits256(t256)}
	}
	return out, nil
}

// transformBlock writes into dst the n×n coefficient block src (row-major,
// vertical frequency first) of a picture transformed by t.
func transformBlock(dst, src []float64, n int, t Transform) {
	for v := 0; v < n; v++ {
		for u := 0; u < n; u++ {
			c := src[v*n+u]
			if t&Transpose != 0 {
				c = src[u*n+v]
			}
			if t&MirrorX != 0 && u%2 == 1 {
				c = -c
			}
			if t&FlipY != 0 && v%2 == 1 {
				c = -c
			}
			dst[v*n+u] = c
		}
	}
}

// Dihedral returns the approximate hashes of the picture h is the hash of
// under every Transform, from h's bits alone (a registration sends hashes,
// not pixels). A transposition permutes the bits exactly; a mirror negates
// the odd-frequency coefficients, which inverts their bits exactly when
// the median is zero. The median of a natural picture's low-frequency
// coefficients is near zero, so the result stays within a few bits of
// the exact variant (bench/README.md gives the measured distances);
// element Identity is h itself.
func (h Hash) Dihedral() [Transforms]Hash {
	var out [Transforms]Hash
	for t := Transform(0); t < Transforms; t++ {
		out[t] = Hash{P64: bitsTransform64(h.P64, t), P256: bitsTransform256(h.P256, t)}
	}
	return out
}

func bitsTransform64(h uint64, t Transform) uint64 {
	var out uint64
	for v := 0; v < 8; v++ {
		for u := 0; u < 8; u++ {
			sv, su := v, u
			if t&Transpose != 0 {
				sv, su = u, v
			}
			b := h >> uint(63-(sv*8+su)) & 1
			if (t&MirrorX != 0 && u%2 == 1) != (t&FlipY != 0 && v%2 == 1) {
				b ^= 1
			}
			out |= b << uint(63-(v*8+u))
		}
	}
	return out
}

func bitsTransform256(h [4]uint64, t Transform) [4]uint64 {
	var out [4]uint64
	for v := 0; v < 16; v++ {
		for u := 0; u < 16; u++ {
			sv, su := v, u
			if t&Transpose != 0 {
				sv, su = u, v
			}
			i := sv*16 + su
			b := h[i/64] >> uint(63-i%64) & 1
			if (t&MirrorX != 0 && u%2 == 1) != (t&FlipY != 0 && v%2 == 1) {
				b ^= 1
			}
			j := v*16 + u
			out[j/64] |= b << uint(63-j%64)
		}
	}
	return out
}

// NearestVariant returns the Transform of vs (the Dihedral variants of
// one picture) nearest to h by 256-bit distance, and that distance.
func NearestVariant(vs [Transforms]Hash, h Hash) (Transform, int) {
	best, bd := Identity, Bits256+1
	for t, v := range vs {
		if d := Distance256(v.P256, h.P256); d < bd {
			best, bd = Transform(t), d
		}
	}
	return best, bd
}
