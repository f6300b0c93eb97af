package watermark

import (
	"slices"
	"testing"
)

// The radix-2 transform as it was before its passes were fused two stages
// at a time, kept as the reference the fused one must match bit for bit:
// every output of the search (strengths, z-scores) is compared by its
// exact bits in the goldens.

// fft1 transforms x (length n, stride 1) in place; inverse uses conjugate
// twiddles and does not scale. The first two stages (twiddles 1 and ∓i)
// are done without multiplications.
func (f *fft2) refFFT1(x []complex128, inverse bool) {
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
	tw := f.twiddles(inverse)
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
func (f *fft2) refTransform(data []complex128, inverse bool) {
	n := f.n
	for y := 0; y < n; y++ {
		f.refFFT1(data[y*n:(y+1)*n], inverse)
	}
	for i, r := range f.rev {
		if i < r {
			a, b := data[i*n:(i+1)*n], data[r*n:(r+1)*n]
			for x := range a {
				a[x], b[x] = b[x], a[x]
			}
		}
	}
	tw := f.twiddles(inverse)
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

// TestFusedFFTMatchesReference: the fused transform gives exactly the
// bits of the stage-by-stage one, rows and 2-D, both directions, at
// every size from 1 to 256 (odd and even stage counts).
func TestFusedFFTMatchesReference(t *testing.T) {
	for log2n := 0; log2n <= 8; log2n++ {
		n := 1 << log2n
		f := newFFT2(n)
		for _, inv := range []bool{false, true} {
			src := make([]complex128, n*n)
			rng := splitmix64(uint64(n)<<1 | 1)
			for i := range src {
				re := float64(int64(rng.next()>>11)) / (1 << 40)
				im := float64(int64(rng.next()>>11)) / (1 << 40)
				src[i] = complex(re, im)
			}
			got, want := slices.Clone(src), slices.Clone(src)
			f.transform(got, inv)
			f.refTransform(want, inv)
			if i, ok := sameBits(got, want, false); !ok {
				t.Fatalf("n=%d inverse=%v: element %d is %v, the stage-by-stage transform gives %v", n, inv, i, got[i], want[i])
			}
			row, refRow := slices.Clone(src[:n]), slices.Clone(src[:n])
			f.fft1(row, inv)
			f.refFFT1(refRow, inv)
			if i, ok := sameBits(row, refRow, false); !ok {
				t.Fatalf("fft1 n=%d inverse=%v: element %d is %v, want %v", n, inv, i, row[i], refRow[i])
			}
		}
	}
}
