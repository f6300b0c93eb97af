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
//
// The radix-2 stages run two at a time: stages of size S and 2S touch the
// same four elements (k, k+S/2, k+S, k+3S/2 of each block of 2S) and no
// others, so each group is loaded once, put through both butterflies in
// registers and stored once. Every output is the same sequence of
// floating-point operations as stage after stage (the goldens compare
// strengths by their exact bits); only the loads, stores, bounds checks and
// loop jumps between the stages are gone, which is what WebAssembly pays
// most for.
func (f *fft2) fft1(x []complex128, inverse bool) {
	f.fft1With(x, make([]complex128, f.n), inverse)
}

// fft1With is fft1 with tmp (n values, overwritten) as work space: the
// bit-reversal permutation reads x's copy in tmp while the first two
// stages write x, one pass instead of a pass of swaps (a branch per
// element) and a pass of butterflies.
func (f *fft2) fft1With(x, tmp []complex128, inverse bool) {
	n := f.n
	x = x[:n]
	if n < 4 {
		for i, r := range f.rev {
			if i < r {
				x[i], x[r] = x[r], x[i]
			}
		}
		if n == 2 {
			a, b := x[0], x[1]
			x[0], x[1] = a+b, a-b
		}
		return
	}
	tmp = tmp[:n]
	copy(tmp, x)
	rev := f.rev[:n]
	for i := 0; i+3 < n; i += 4 {
		q, r := x[i:i+4:i+4], rev[i:i+4:i+4]
		a0, b0 := tmp[r[0]], tmp[r[1]]
		a1, b1 := tmp[r[2]], tmp[r[3]]
		a0, b0 = a0+b0, a0-b0
		a1, b1 = a1+b1, a1-b1
		// b1 × (−i) forward, b1 × (+i) inverse.
		t := complex(imag(b1), -real(b1))
		if inverse {
			t = -t
		}
		q[0], q[2] = a0+a1, a0-a1
		q[1], q[3] = b0+t, b0-t
	}
	tw := f.twiddle
	if inverse {
		tw = f.twiddleInv
	}
	size := 8
	if (f.log2n-2)%2 == 1 {
		// An odd number of stages left: the first one alone.
		for start := 0; start < n; start += 8 {
			lo, hi := x[start:start+4:start+4], x[start+4:start+8:start+8]
			for k := range lo {
				a, b := lo[k], hi[k]*tw[k*(n/8)]
				lo[k], hi[k] = a+b, a-b
			}
		}
		size = 16
	}
	for ; 2*size <= n; size <<= 2 {
		h := size / 2
		s1, s2 := n/size, n/(2*size)
		tw1 := tw[: (h-1)*s1+1 : (h-1)*s1+1]
		for start := 0; start < n; start += 2 * size {
			g := x[start : start+2*size : start+2*size]
			q0, q1, q2, q3 := g[:h:h], g[h:size:size], g[size:size+h:size+h], g[size+h:]
			q1, q2, q3 = q1[:len(q0)], q2[:len(q0)], q3[:len(q0)]
			for k, a := range q0 {
				w1 := tw1[k*s1]
				b := q1[k] * w1
				c, d := q2[k], q3[k]*w1
				a, b = a+b, a-b
				c, d = c+d, c-d
				c, d = c*tw[k*s2], d*tw[(k+h)*s2]
				q0[k], q2[k] = a+c, a-c
				q1[k], q3[k] = b+d, b-d
			}
		}
	}
}

// transform applies the 2-D FFT to the row-major n×n data in place. The
// column transforms run the same radix-2 passes on whole rows at once
// (contiguous, one twiddle per row pair) instead of copying each column
// out, two stages per pass as in fft1: the four rows a pair of stages
// combines are read and written once.
func (f *fft2) transform(data []complex128, inverse bool) {
	n := f.n
	data = data[:n*n]
	tmp := make([]complex128, n)
	for y := 0; y < n; y++ {
		f.fft1With(data[y*n:(y+1)*n], tmp, inverse)
	}
	for i, r := range f.rev {
		if i < r {
			a, b := data[i*n:(i+1)*n], data[r*n:(r+1)*n]
			b = b[:len(a)]
			for x := range a {
				a[x], b[x] = b[x], a[x]
			}
		}
	}
	tw := f.twiddle
	if inverse {
		tw = f.twiddleInv
	}
	row := func(i int) []complex128 { return data[i*n : (i+1)*n : (i+1)*n] }
	size := 2
	if f.log2n%2 == 1 {
		// An odd number of stages: the first (twiddle 1) alone.
		for start := 0; start < n; start += 2 {
			lo, hi := row(start), row(start+1)
			hi = hi[:len(lo)]
			for x, a := range lo {
				b := hi[x]
				lo[x], hi[x] = a+b, a-b
			}
		}
		size = 4
	}
	for ; 2*size <= n; size <<= 2 {
		h := size / 2
		s1, s2 := n/size, n/(2*size)
		for start := 0; start < n; start += 2 * size {
			for k := 0; k < h; k++ {
				r0, r1, r2, r3 := row(start+k), row(start+k+h), row(start+k+size), row(start+k+size+h)
				r1, r2, r3 = r1[:len(r0)], r2[:len(r0)], r3[:len(r0)]
				w3 := tw[(k+h)*s2]
				if k == 0 {
					// Twiddle 1 in both stages for rows 0 and 2: no
					// multiplication, as in the stages one at a time.
					for x, a := range r0 {
						b, c, d := r1[x], r2[x], r3[x]
						a, b = a+b, a-b
						c, d = c+d, c-d
						d *= w3
						r0[x], r2[x] = a+c, a-c
						r1[x], r3[x] = b+d, b-d
					}
					continue
				}
				w1, w2 := tw[k*s1], tw[k*s2]
				for x, a := range r0 {
					b := r1[x] * w1
					c, d := r2[x], r3[x]*w1
					a, b = a+b, a-b
					c, d = c+d, c-d
					c, d = c*w2, d*w3
					r0[x], r2[x] = a+c, a-c
					r1[x], r3[x] = b+d, b-d
				}
			}
		}
	}
}
