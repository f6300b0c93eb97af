package watermark

import (
	"math"
	"testing"
)

// TestFFTMatchesDFT checks fft1 against the direct DFT for every size the
// package uses, both directions.
func TestFFTMatchesDFT(t *testing.T) {
	for _, n := range []int{1, 2, 4, 8, 32, 64} {
		f := newFFT2(n)
		for _, inv := range []bool{false, true} {
			x := make([]complex128, n)
			for i := range x {
				x[i] = complex(float64(dither(i, n)), float64(dither(n, i)))
			}
			sign := -1.0
			if inv {
				sign = 1
			}
			want := make([]complex128, n)
			for k := range want {
				for j, v := range x {
					a := sign * 2 * math.Pi * float64(j*k) / float64(n)
					want[k] += v * complex(math.Cos(a), math.Sin(a))
				}
			}
			f.fft1(x, inv)
			for k := range x {
				if d := x[k] - want[k]; math.Hypot(real(d), imag(d)) > 1e-9 {
					t.Fatalf("n=%d inverse=%v: X[%d] = %v, want %v", n, inv, k, x[k], want[k])
				}
			}
		}
	}
}

// TestTransformIsSeparable checks the 2-D transform against fft1 applied to
// every row and then every column.
func TestTransformIsSeparable(t *testing.T) {
	for _, n := range []int{2, 32, 64} {
		f := newFFT2(n)
		for _, inv := range []bool{false, true} {
			got := make([]complex128, n*n)
			for i := range got {
				got[i] = complex(float64(dither(i, 3)), float64(dither(5, i)))
			}
			want := append([]complex128(nil), got...)
			f.transform(got, inv)
			for y := 0; y < n; y++ {
				f.fft1(want[y*n:(y+1)*n], inv)
			}
			col := make([]complex128, n)
			for x := 0; x < n; x++ {
				for y := range col {
					col[y] = want[y*n+x]
				}
				f.fft1(col, inv)
				for y, v := range col {
					want[y*n+x] = v
				}
			}
			for i := range got {
				if d := got[i] - want[i]; math.Hypot(real(d), imag(d)) > 1e-9 {
					t.Fatalf("n=%d inverse=%v: [%d] = %v, want %v", n, inv, i, got[i], want[i])
				}
			}
		}
	}
}

// TestFoldChipsSATMatchesFold checks the summed-area fold against the
// per-pixel one on whole planes and windows, at scales across the search.
func TestFoldChipsSATMatchesFold(t *testing.T) {
	s := schemes()[0]
	w, h := 384, 256
	hp := make([]float32, w*h)
	for i := range hp {
		hp[i] = 3 * dither(i, 7)
	}
	for _, win := range [][4]int{{16, 48, 176, 208}, {0, 0, w, h}, {200, 40, 360, 200}} {
		sat := summedArea(hp, w, win[0], win[1], win[2], win[3])
		for _, sc := range []float64{1, 1.012, 1.05, 1.33, 1.52} {
			got := s.foldChipsSAT(sat, sc, win[0], win[1], win[2], win[3])
			want := s.foldChips(hp, w, sc, 0, win[0], win[1], win[2], win[3])
			for i := range got {
				if d := got[i] - want[i]; math.Abs(d) > 1e-9 {
					t.Fatalf("window %v scale %v: bin %d = %v, want %v", win, sc, i, got[i], want[i])
				}
			}
		}
	}
}
