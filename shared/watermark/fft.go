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
// twiddles and does not scale.
func (f *fft2) fft1(x []complex128, inverse bool) {
	n := f.n
	for i, r := range f.rev {
		if i < r {
			x[i], x[r] = x[r], x[i]
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
			lo, hi := x[start:start+half], x[start+half:start+size]
			for k := range lo {
				a, b := lo[k], hi[k]*tw[k*step]
				lo[k], hi[k] = a+b, a-b
			}
		}
	}
}

// transform applies the 2-D FFT to the row-major n×n data in place.
func (f *fft2) transform(data []complex128, inverse bool) {
	n := f.n
	for y := 0; y < n; y++ {
		f.fft1(data[y*n:(y+1)*n], inverse)
	}
	col := make([]complex128, n)
	for x := 0; x < n; x++ {
		for y := 0; y < n; y++ {
			col[y] = data[y*n+x]
		}
		f.fft1(col, inverse)
		for y := 0; y < n; y++ {
			data[y*n+x] = col[y]
		}
	}
}
