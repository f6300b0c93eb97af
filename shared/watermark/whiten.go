package watermark

import "math"

// The whitened reading. The decoder's high-pass (x minus its 3×3 mean)
// leaves most of a strongly structured texture in the plane: on a wood
// grain the lines survive it at many times the mark's power, and a
// candidate the pilot finds (z ≈ 10) is read with 54–98 of 294 coded bits
// wrong, beyond what the code corrects, even unattacked. Such a texture is
// predictable from its neighbours along its own direction, and the mark is
// not: its chips are 2×2 working pixels with independent keyed signs, so a
// pixel two working pixels away always lies in another chip. The whitened
// reading therefore subtracts from each working pixel its least-squares
// prediction from the 16 pixels at Chebyshev distance 2, with weights
// fitted on the picture itself (the mark is far too weak to sway the fit),
// then divides by the local power and clips as the usual high-pass does,
// and folds the result with the candidate's alignment. The host's
// predictable part goes, the mark keeps its full amplitude (the 3×3 mean
// removes 4/9 of it), and the neighbours' chips add only a little noise.
// It is worse than the usual reading on smooth pictures, whose host the
// 3×3 mean already removes and whose informed embedding was computed
// against the usual high-pass, so it is the last reading tried.

// whitenRing is the predictor's support: the 16 offsets at Chebyshev
// distance 2, none of which shares a 2×2 chip with the predicted pixel.
var whitenRing = func() (r [16][2]int) {
	n := 0
	for dy := -2; dy <= 2; dy++ {
		for dx := -2; dx <= 2; dx++ {
			if max(dx, -dx, dy, -dy) == 2 {
				r[n] = [2]int{dx, dy}
				n++
			}
		}
	}
	return r
}()

// whitenedResidual returns work minus its least-squares prediction from
// whitenRing, the weights fitted over a quarter of the pixels whose
// support lies in the plane (edges clamp). It returns nil when the fit is singular (a
// constant plane).
func whitenedResidual(work []float32, w, h int) []float32 {
	const n = len(whitenRing)
	if w < 5 || h < 5 {
		return nil
	}
	var a [n * n]float64
	var b [n]float64
	var f [n]float64
	// The fit reads a quarter of the pixels, every other row and every
	// other column with alternate rows shifted by one (a sampling on one
	// parity only fitted a fine grain 2.6 times worse): thousands of
	// samples for 16 weights still.
	for y := 2; y < h-2; y += 2 {
		for x := 2 + (y>>1)&1; x < w-2; x += 2 {
			for k, o := range whitenRing {
				f[k] = float64(work[(y+o[1])*w+x+o[0]])
			}
			c := float64(work[y*w+x])
			for i := 0; i < n; i++ {
				fi := f[i]
				b[i] += fi * c
				row := a[i*n+i : i*n+n]
				for j, fj := range f[i:] {
					row[j] += fi * fj
				}
			}
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			a[i*n+j] = a[j*n+i]
		}
		// A touch of ridge keeps the fit defined on pictures whose
		// neighbours are exactly collinear (a linear gradient).
		a[i*n+i] *= 1 + 1e-6
	}
	wt, ok := solveLinear(a[:], b[:], n)
	if !ok {
		return nil
	}
	out := make([]float32, len(work))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var p float64
			if y >= 2 && y < h-2 && x >= 2 && x < w-2 {
				for k, o := range whitenRing {
					p += wt[k] * float64(work[(y+o[1])*w+x+o[0]])
				}
			} else {
				for k, o := range whitenRing {
					yy, xx := min(max(y+o[1], 0), h-1), min(max(x+o[0], 0), w-1)
					p += wt[k] * float64(work[yy*w+xx])
				}
			}
			out[y*w+x] = work[y*w+x] - float32(p)
		}
	}
	return out
}

// solveLinear solves a·x = b for an n×n system by Gaussian elimination with
// partial pivoting (a and b are overwritten); ok is false when a pivot
// vanishes.
func solveLinear(a, b []float64, n int) (x []float64, ok bool) {
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(a[r*n+c]) > math.Abs(a[p*n+c]) {
				p = r
			}
		}
		if a[p*n+c] == 0 || math.IsNaN(a[p*n+c]) {
			return nil, false
		}
		if p != c {
			for k := 0; k < n; k++ {
				a[c*n+k], a[p*n+k] = a[p*n+k], a[c*n+k]
			}
			b[c], b[p] = b[p], b[c]
		}
		for r := c + 1; r < n; r++ {
			f := a[r*n+c] / a[c*n+c]
			for k := c; k < n; k++ {
				a[r*n+k] -= f * a[c*n+k]
			}
			b[r] -= f * b[c]
		}
	}
	x = make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		v := b[r]
		for k := r + 1; k < n; k++ {
			v -= a[r*n+k] * x[k]
		}
		x[r] = v / a[r*n+r]
	}
	return x, true
}

// whitenedPlane is the whitened high-pass of the working plane (work,
// w×h) normalised as highpass normalises its own, or nil when the
// predictor cannot be fitted.
func (s *scheme) whitenedPlane(work []float32, w, h int) []float32 {
	r := whitenedResidual(work, w, h)
	if r == nil {
		return nil
	}
	out, _ := s.normaliseHP(r, work, w, h, false)
	return out
}

// whitenedSoft reads the candidate (scale, angle, phase px, py, offset
// dx, dy) from the whitened plane wp of the same orientation and size as
// the plane it was found on.
func (s *scheme) whitenedSoft(wp []float32, w, h int, scale, angle, px, py float64, dx, dy int) []float64 {
	acc := s.foldRotTo(make([]float64, s.tile*s.tile), wp, w, scale, angle, px, py, 0, 0, w, h)
	return s.soft(acc, dx, dy)
}
