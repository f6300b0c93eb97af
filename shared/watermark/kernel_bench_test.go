package watermark

import (
	"github.com/provenant/provenant/internal/cputime"
	"math"
	"math/bits"
	"strconv"
	"testing"
)

// benchPlane is a w×h high-passed-like plane with a deterministic texture,
// for the kernel benchmarks.
func benchPlane(w, h int) []float32 {
	hp := make([]float32, w*h)
	for i := range hp {
		hp[i] = 3 * dither(i, 7)
	}
	return hp
}

// cpuPerOp runs body b.N times on one locked thread and reports that
// thread's CPU time per run (see threadCPU), which is steadier than the
// wall time when the machine is shared.
func cpuPerOp(b *testing.B, body func()) {
	b.Helper()
	cpu := cputime.Thread(func() {
		for i := 0; i < b.N; i++ {
			body()
		}
	})
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// BenchmarkKernels times the search's inner kernels on their own, so a
// change to one of them is measured without the decode and the search
// around it.
func BenchmarkKernels(b *testing.B) {
	s := schemes()[len(schemes())-1]
	const w, h = 1024, 1024
	hp := benchPlane(w, h)
	b.Run("FoldChipsRot", func(b *testing.B) {
		cpuPerOp(b, func() { s.foldChips(hp, w, 1.03, 1.5, 0, 0, w, h) })
	})
	b.Run("FoldChips0", func(b *testing.B) {
		cpuPerOp(b, func() { s.foldChips(hp, w, 1.03, 0, 0, 0, w, h) })
	})
	b.Run("FoldRot", func(b *testing.B) {
		cpuPerOp(b, func() { s.foldRot(hp, w, 1.03, 1.5, 0.25, 0.5, 0, 0, w, h) })
	})
	for _, n := range []int{32, 64} {
		f := newFFT2(n)
		src, data := make([]complex128, n*n), make([]complex128, n*n)
		for i := range src {
			src[i] = complex(float64(dither(i, 3)), float64(dither(i, 5)))
		}
		b.Run("FFT"+strconv.Itoa(n), func(b *testing.B) {
			inv := false
			cpuPerOp(b, func() {
				// Fresh input each time: unscaled round trips would grow
				// the values without bound.
				copy(data, src)
				f.transform(data, inv)
				inv = !inv
			})
		})
	}
}

// refFoldChipsRot is the rotated chip fold written plainly (index
// multiply, bounds-checked scatter), kept as the reference the optimised
// kernel must match bit for bit.
func refFoldChipsRot(s *scheme, hp []float32, w int, scale, angle float64, x0, y0, x1, y1 int) []float64 {
	T, C, G := s.tile, s.chip, s.grid
	acc, odd := make([]float64, G*G), make([]float64, G*G)
	sh, gm := 32+bits.TrailingZeros(uint(C)), int64(G-1)
	for y := y0; y < y1; y++ {
		ux, uy, dux, duy := refRotRow(T, scale, angle, x0, y, 0, 0)
		for i, v := range hp[y*w+x0 : y*w+x1] {
			dst := acc
			if i%2 == 1 {
				dst = odd
			}
			dst[int((uy>>sh)&gm)*G+int((ux>>sh)&gm)] += float64(v)
			ux += dux
			uy += duy
		}
	}
	return addInto(acc, odd)
}

// refTransform is the 2-D FFT written plainly (strided twiddle lookups,
// bounds-checked butterflies, the same order of operations), the
// reference the optimised transform must match bit for bit.
func refTransform(f *fft2, data []complex128, inverse bool) {
	n := f.n
	tw := f.twiddles(inverse)
	row := func(x []complex128) {
		for i, r := range f.rev {
			if i < r {
				x[i], x[r] = x[r], x[i]
			}
		}
		for i := 0; i+1 < n; i += 2 {
			x[i], x[i+1] = x[i]+x[i+1], x[i]-x[i+1]
		}
		for i := 0; i+3 < n; i += 4 {
			b1 := x[i+3]
			t := complex(imag(b1), -real(b1))
			if inverse {
				t = -t
			}
			x[i], x[i+2] = x[i]+x[i+2], x[i]-x[i+2]
			x[i+1], x[i+3] = x[i+1]+t, x[i+1]-t
		}
		for size := 8; size <= n; size <<= 1 {
			for start := 0; start < n; start += size {
				for k := 0; k < size/2; k++ {
					a, b := x[start+k], x[start+k+size/2]*tw[k*(n/size)]
					x[start+k], x[start+k+size/2] = a+b, a-b
				}
			}
		}
	}
	for y := 0; y < n; y++ {
		row(data[y*n : (y+1)*n])
	}
	for i, r := range f.rev {
		if i < r {
			for x := 0; x < n; x++ {
				data[i*n+x], data[r*n+x] = data[r*n+x], data[i*n+x]
			}
		}
	}
	for size := 2; size <= n; size <<= 1 {
		for start := 0; start < n; start += size {
			for k := 0; k < size/2; k++ {
				for x := 0; x < n; x++ {
					lo, hi := (start+k)*n+x, (start+k+size/2)*n+x
					b := data[hi]
					if k > 0 {
						b *= tw[k*(n/size)]
					}
					data[lo], data[hi] = data[lo]+b, data[lo]-b
				}
			}
		}
	}
}

// TestTransformBitExact checks the FFT against the plain reference bit for
// bit, forward and inverse, at the sizes the schemes use and the small
// sizes with special-cased stages.
func TestTransformBitExact(t *testing.T) {
	for _, n := range []int{1, 2, 4, 8, 16, 32, 64} {
		f := newFFT2(n)
		for _, inv := range []bool{false, true} {
			got, want := make([]complex128, n*n), make([]complex128, n*n)
			for i := range got {
				got[i] = complex(float64(dither(i, 3)), float64(dither(i, 5)))
				want[i] = got[i]
			}
			f.transform(got, inv)
			refTransform(f, want, inv)
			if i, ok := sameBits(got, want, false); !ok {
				t.Fatalf("n=%d inverse=%v: [%d] = %v, want %v", n, inv, i, got[i], want[i])
			}
		}
	}
}

// refFoldRot is foldRot (and foldPhase at angle 0) written plainly, the
// reference for TestFoldsBitExact.
func refFoldRot(s *scheme, hp []float32, w int, scale, angle, px, py float64, x0, y0, x1, y1 int) []float64 {
	T := s.tile
	acc := make([]float64, T*T)
	if angle == 0 {
		for y := y0; y < y1; y++ {
			ty := int((float64(y)+0.5)/scale+py) % T
			for x := x0; x < x1; x++ {
				acc[ty*T+int((float64(x)+0.5)/scale+px)%T] += float64(hp[y*w+x])
			}
		}
		return acc
	}
	m := int64(T - 1)
	for y := y0; y < y1; y++ {
		ux, uy, dux, duy := refRotRow(T, scale, angle, x0, y, px, py)
		for x := x0; x < x1; x++ {
			acc[int((uy>>32)&m)*T+int((ux>>32)&m)] += float64(hp[y*w+x])
			ux += dux
			uy += duy
		}
	}
	return acc
}

// refRotRow is the rotated folds' fixed-point walk (32 fraction bits)
// written out for the references: where the centre of pixel (x, y) falls
// in tiles of T pixels, for a plane scaled by 1/scale, rotated by angle
// degrees and shifted by (px, py), offset by 64 tiles so that truncation
// is a floor, and the step one pixel to the right.
func refRotRow(T int, scale, angle float64, x, y int, px, py float64) (ux, uy, dux, duy int64) {
	sin, cos := math.Sincos(angle * math.Pi / 180)
	cs, ss := cos/scale, sin/scale
	const one = 1 << 32
	fx, fy, bias := float64(x)+0.5, float64(y)+0.5, float64(64*T)
	return int64((ss*fy + cs*fx + px + bias) * one), int64((cs*fy - ss*fx + py + bias) * one),
		int64(math.Round(cs * one)), int64(math.Round(-ss * one))
}

// refFoldChips0 is foldChips at angle 0 written plainly.
func refFoldChips0(s *scheme, hp []float32, w int, scale float64, x0, y0, x1, y1 int) []float64 {
	T, C, G := s.tile, s.chip, s.grid
	acc, odd := make([]float64, G*G), make([]float64, G*G)
	for y := y0; y < y1; y++ {
		cy := (int((float64(y)+0.5)/scale) % T) / C
		for x := x0; x < x1; x++ {
			dst := acc
			if (x-x0)%2 == 1 {
				dst = odd
			}
			dst[cy*G+(int((float64(x)+0.5)/scale)%T)/C] += float64(hp[y*w+x])
		}
	}
	return addInto(acc, odd)
}

// TestFoldsBitExact checks foldRot, foldPhase and the chip fold (straight
// and rotated both ways) against the plain references bit for bit: same
// bins, same order of additions, on odd and even window widths and every
// scheme.
func TestFoldsBitExact(t *testing.T) {
	w, h := 301, 211
	hp := benchPlane(w, h)
	for _, s := range schemes() {
		for _, win := range [][4]int{{0, 0, w, h}, {17, 9, 290, 200}, {3, 5, 4, 6}} {
			for _, sc := range []float64{1, 1.037, 1.5, 2.4} {
				if i, ok := sameFloat64Bits(s.foldChips(hp, w, sc, 0, win[0], win[1], win[2], win[3]), refFoldChips0(s, hp, w, sc, win[0], win[1], win[2], win[3]), false); !ok {
					t.Fatalf("foldChips v%d window %v scale %v: bin %d differs", s.version, win, sc, i)
				}
				for _, a := range []float64{-7, -0.5, 0.25, 3, 45} {
					got := s.foldChips(hp, w, sc, a, win[0], win[1], win[2], win[3])
					want := refFoldChipsRot(s, hp, w, sc, a, win[0], win[1], win[2], win[3])
					if i, ok := sameFloat64Bits(got, want, false); !ok {
						t.Fatalf("foldChips v%d window %v scale %v angle %v: bin %d = %v, want %v", s.version, win, sc, a, i, got[i], want[i])
					}
				}
				for _, a := range []float64{0, -2, 0.5, 30} {
					for _, ph := range [][2]float64{{0, 0}, {0.5, 0}, {0, 0.5}, {37, 5}} {
						got := s.foldRot(hp, w, sc, a, ph[0], ph[1], win[0], win[1], win[2], win[3])
						want := refFoldRot(s, hp, w, sc, a, ph[0], ph[1], win[0], win[1], win[2], win[3])
						if i, ok := sameFloat64Bits(got, want, false); !ok {
							t.Fatalf("foldRot v%d window %v scale %v angle %v phase %v: bin %d = %v, want %v", s.version, win, sc, a, ph, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}
