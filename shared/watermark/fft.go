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
	swaps      []int        // revSwaps(rev, n)
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
	f.swaps = revSwaps(f.rev, n)
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
	f.rows(x[:f.n], inverse)
}

// rows transforms each row of n values of x (len(x) a multiple of n) in
// place, as fft1. Every pass runs over all the rows at once: a stage's
// groups tile each row, so one kernel call covers the whole matrix.
func (f *fft2) rows(x []complex128, inverse bool) {
	n := f.n
	if n < 4 {
		for ; len(x) >= n && n > 1; x = x[n:] {
			// n == 2: the permutation is the identity.
			a, b := x[0], x[1]
			x[0], x[1] = a+b, a-b
		}
		return
	}
	permuteFirstStages(x, n, f.rev, f.swaps, inverse)
	tw := f.twiddles(inverse)
	total := len(x)
	size := 8
	if (f.log2n-2)%2 == 1 {
		// An odd number of stages left: the first one alone.
		butterflies2(x, 0, 4, 4, total/8, 8, tw, 0, n/8)
		size = 16
	}
	for ; 2*size <= n; size <<= 2 {
		h := size / 2
		s1, s2 := n/size, n/(2*size)
		butterflies4(x, 0, h, h, total/(2*size), 2*size, tw, 0, s1, 0, s2, h*s2, s2)
	}
}

// twiddles is the twiddle table of the direction asked for.
func (f *fft2) twiddles(inverse bool) []complex128 {
	if inverse {
		return f.twiddleInv
	}
	return f.twiddle
}

// transform applies the 2-D FFT to the row-major n×n data in place. The
// column transforms run the same radix-2 passes on whole rows at once
// (contiguous, one twiddle per row pair) instead of copying each column
// out, two stages per pass as in fft1: the four rows a pair of stages
// combines are read and written once.
func (f *fft2) transform(data []complex128, inverse bool) {
	n := f.n
	data = data[:n*n]
	f.rows(data, inverse)
	swapRows(data, n, f.rev)
	tw := f.twiddles(inverse)
	size := 2
	if f.log2n%2 == 1 {
		// An odd number of stages: the first (twiddle 1) alone.
		sumDiff(data, 0, n, n, n/2, 2*n)
		size = 4
	}
	for ; 2*size <= n; size <<= 2 {
		h := size / 2
		s1, s2 := n/size, n/(2*size)
		// For each k, the rows k, k+h, k+2h, k+3h of every block of 2·size
		// rows share their twiddles: one call for all the blocks. Rows
		// 0 and 2 of a block have twiddle 1 in both stages: no
		// multiplication, as in the stages one at a time.
		blocks := n / (2 * size)
		butterflies4One(data, 0, h*n, n, blocks, 2*size*n, tw[h*s2])
		for k := 1; k < h; k++ {
			butterflies4(data, k*n, h*n, n, blocks, 2*size*n, tw, k*s1, 0, k*s2, 0, (k+h)*s2, 0)
		}
	}
}
