package watermark

import (
	"math"
	"math/cmplx"
)

// fft2 is an in-place 2-D radix-2 complex FFT of a fixed n×n size. Its
// tables are filled by newFFT2 and never written afterwards, so one value is
// safe for concurrent use.
type fft2 struct {
	n          int
	log2n      int
	twiddle    []complex128 // exp(-2πik/n), k < n/2
	twiddleInv []complex128 // conjugates of twiddle
	rev        []int        // bit-reversal permutation
}

func newFFT2(n int) *fft2 {
	f := &fft2{n: n}
	for 1<<f.log2n < n {
		f.log2n++
	}
	f.twiddle = make([]complex128, n/2)
	f.twiddleInv = make([]complex128, n/2)
	for k := range f.twiddle {
		f.twiddle[k] = cmplx.Exp(complex(0, -2*math.Pi*float64(k)/float64(n)))
		f.twiddleInv[k] = cmplx.Conj(f.twiddle[k])
	}
	f.rev = make([]int, n)
	for i := range f.rev {
		r := 0
		for b := 0; b < f.log2n; b++ {
			if i&(1<<b) != 0 {
				r |= 1 << (f.log2n - 1 - b)
			}
		}
		f.rev[i] = r
	}
	return f
}

// fft1 transforms x (length n, stride 1) in place; inverse uses conjugate
// twiddles and does not scale. The first two stages (twiddles 1 and ∓i)
// are done without multiplications.
func (f *fft2) fft1(x []complex128, inverse bool) {
	n := f.n
	x = x[:n]
	for i, r := range f.rev {
		if i < r {
			x[i], x[r] = x[r], x[i]
		}
	}
	if n < 2 {
		return
	}
	for i := 0; i+1 < n; i += 2 {
		a, b := x[i], x[i+1]
		x[i], x[i+1] = a+b, a-b
	}
	if n < 4 {
		return
	}
	for i := 0; i+3 < n; i += 4 {
		a0, a1, b0, b1 := x[i], x[i+1], x[i+2], x[i+3]
		// b1 × (−i) forward, b1 × (+i) inverse.
		t := complex(imag(b1), -real(b1))
		if inverse {
			t = -t
		}
		x[i], x[i+2] = a0+b0, a0-b0
		x[i+1], x[i+3] = a1+t, a1-t
	}
	tw := f.twiddle
	if inverse {
		tw = f.twiddleInv
	}
	for size := 8; size <= n; size <<= 1 {
		half := size / 2
		step := n / size
		for start := 0; start < n; start += size {
			lo, hi := x[start:start+half:start+half], x[start+half:start+size:start+size]
			for k := range lo {
				a, b := lo[k], hi[k]*tw[k*step]
				lo[k], hi[k] = a+b, a-b
			}
		}
	}
}

// transform applies the 2-D FFT to the row-major n×n data in place. The
// column transforms run the same radix-2 passes on whole rows at once
// (contiguous, one twiddle per row pair) instead of copying each column out.
func (f *fft2) transform(data []complex128, inverse bool) {
	n := f.n
	for y := 0; y < n; y++ {
		f.fft1(data[y*n:(y+1)*n], inverse)
	}
	for i, r := range f.rev {
		if i < r {
			a, b := data[i*n:(i+1)*n], data[r*n:(r+1)*n]
			for x := range a {
				a[x], b[x] = b[x], a[x]
			}
		}
	}
	tw := f.twiddle
	if inverse {
		tw = f.twiddleInv
	}
	for size := 2; size <= n; size <<= 1 {
		half := size / 2
		step := n / size
		for start := 0; start < n; start += size {
			for k := 0; k < half; k++ {
				lo := data[(start+k)*n : (start+k+1)*n : (start+k+1)*n]
				hi := data[(start+k+half)*n : (start+k+half+1)*n : (start+k+half+1)*n]
				if k == 0 {
					for x, a := range lo {
						b := hi[x]
						lo[x], hi[x] = a+b, a-b
					}
					continue
				}
				w := tw[k*step]
				for x, a := range lo {
					b := hi[x] * w
					lo[x], hi[x] = a+b, a-b
				}
			}
		}
	}
}
