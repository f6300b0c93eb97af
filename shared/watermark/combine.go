package watermark

import "math"

// Soft combining of the tiles' evidence. The fold sums every pixel of the
// picture with the same weight, which is the best combination when the
// mark survives evenly. After a lossy re-encode it does not: JPEG at
// quality 50 or below flattens the mark on smooth areas (a block reduced
// to a few coefficients keeps a distorted, partly sign-flipped remnant)
// while textured areas keep it, and the folded sum then mixes the good
// blocks with blocks that carry only quantisation noise. The decoder
// therefore has a second reading of an aligned candidate: the plane is cut
// into blocks of one tile, each block is folded on its own, its pilot
// correlation at the candidate's offset estimates how much mark it kept,
// and the blocks' soft bits are summed with the maximum-ratio weight
// (estimated amplitude over noise power, nothing for a block whose pilot
// disagrees). The pilot chips and the data chips are disjoint, so the
// weights carry no information about the data bits: on an unmarked picture
// the weighted soft bits are as random as the plain ones and the CRC
// rejects them alike.

// combineBlock is the side of the blocks, in pixels of the folded plane:
// one tile, so that every block holds each chip of the tile at least once
// at scales ≥ 1.
const combineBlock = 64

// weightedSoft returns the soft bits of the candidate (scale, angle, phase
// px, py, offset dx, dy) on the w×h high-passed plane hp, with each block's
// evidence weighted by its own pilot correlation over its power.
func (s *scheme) weightedSoft(hp []float32, w, h int, scale, angle, px, py float64, dx, dy int) []float64 {
	soft := make([]float64, codedBits)
	acc := make([]float64, s.tile*s.tile)
	for y0 := 0; y0 < h; y0 += combineBlock {
		y1 := min(y0+combineBlock, h)
		for x0 := 0; x0 < w; x0 += combineBlock {
			x1 := min(x0+combineBlock, w)
			var e float64
			for y := y0; y < y1; y++ {
				for _, v := range hp[y*w+x0 : y*w+x1] {
					e += float64(v) * float64(v)
				}
			}
			if e == 0 {
				continue
			}
			acc = s.foldRotTo(acc, hp, w, scale, angle, px, py, x0, y0, x1, y1)
			r := s.pilotCorr(acc, dx, dy)
			if r <= 0 {
				continue
			}
			wt := r / e
			for k, b := range s.bitOf {
				if b < 0 {
					continue
				}
				soft[b] += wt * s.chipSum(acc, k, dx, dy) * float64(s.pn[k])
			}
		}
	}
	return soft
}

// chipSum is the folded tile's sum over chip k at pixel offset (dx, dy).
func (s *scheme) chipSum(acc []float64, k, dx, dy int) float64 {
	T, C := s.tile, s.chip
	cy, cx := (k/s.grid)*C, (k%s.grid)*C
	var v float64
	for i := 0; i < C; i++ {
		row := acc[((cy+i+dy)%T)*T:]
		for j := 0; j < C; j++ {
			v += row[(cx+j+dx)%T]
		}
	}
	return v
}

// addUnit returns a/‖a‖ + b/‖b‖: two readings of the same bits on
// different scales, given equal say.
func addUnit(a, b []float64) []float64 {
	na, nb := math.Sqrt(sumSq(a)), math.Sqrt(sumSq(b))
	out := make([]float64, len(a))
	for i := range a {
		if na > 0 {
			out[i] += a[i] / na
		}
		if nb > 0 {
			out[i] += b[i] / nb
		}
	}
	return out
}

func sumSq(a []float64) (s float64) {
	for _, v := range a {
		s += v * v
	}
	return s
}
