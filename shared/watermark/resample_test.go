package watermark

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
)

// refResampleLuma is the plain float version resampleLuma must match.
func refResampleLuma(l *imagex.Luma, w, h int) []float32 {
	tx := newTaps(l.Width, w)
	ty := newTaps(l.Height, h)
	out := make([]float32, w*h)
	acc := make([]float32, l.Width)
	for y := 0; y < h; y++ {
		clear(acc)
		for k, wy := range ty.w[ty.off[y]:ty.off[y+1]] {
			src := l.Pix[(ty.start[y]+k)*l.Stride:]
			src = src[:len(acc)]
			for x, v := range src {
				acc[x] += wy * float32(v)
			}
		}
		dst := out[y*w : (y+1)*w]
		for x := range dst {
			a := tx.start[x]
			var s float32
			for j, wx := range tx.w[tx.off[x]:tx.off[x+1]] {
				s += wx * acc[a+j]
			}
			dst[x] = s
		}
	}
	return out
}

// refBoxBlur is the plain version boxBlur must match: a running mean per
// row, then per column, dividing by the clamped window's count.
func refBoxBlur(src []float32, w, h, r int) []float32 {
	tmp := make([]float32, w*h)
	out := make([]float32, w*h)
	for y := 0; y < h; y++ {
		refBoxLine(src[y*w:(y+1)*w], tmp[y*w:(y+1)*w], 1, w, r)
	}
	for x := 0; x < w; x++ {
		refBoxLine(tmp[x:], out[x:], w, h, r)
	}
	return out
}

func refBoxLine(src, dst []float32, st, n, r int) {
	var s float64
	cnt := 0
	for i := 0; i <= r && i < n; i++ {
		s += float64(src[i*st])
		cnt++
	}
	for i := 0; i < n; i++ {
		dst[i*st] = float32(s / float64(cnt))
		if j := i + r + 1; j < n {
			s += float64(src[j*st])
			cnt++
		}
		if j := i - r; j >= 0 {
			s -= float64(src[j*st])
			cnt--
		}
	}
}

// refHighpass is the plain version of (*scheme).highpass.
func refHighpass(s *scheme, work []float32, w, h int) []float32 {
	b := refBoxBlur(work, w, h, s.hpRadius)
	var ss float64
	for i, v := range work {
		d := v - b[i]
		b[i] = d
		ss += float64(d) * float64(d)
	}
	if s.localNorm > 0 {
		sq := make([]float32, len(b))
		for i, v := range b {
			sq[i] = v * v
		}
		loc := refBoxBlur(sq, w, h, s.localNorm)
		floor := max(float32(ss/float64(len(b)+1))*0.01, 1)
		ss = 0
		for i, v := range b {
			d := v / (loc[i] + floor)
			b[i] = d
			ss += float64(d) * float64(d)
		}
	}
	c := float32(3 * math.Sqrt(ss/float64(len(b)+1)))
	for i, v := range b {
		b[i] = min(max(v, -c), c)
	}
	return b
}

// randomLuma returns a w×h plane of uniform noise whose rows are stride
// apart; the padding is noise too, and Pix ends right after the last pixel,
// so reading past a row shows up as a wrong value or a panic.
func randomLuma(rng *rand.Rand, w, h, stride int) *imagex.Luma {
	pix := make([]uint8, (h-1)*stride+w)
	for i := range pix {
		pix[i] = uint8(rng.IntN(256))
	}
	return &imagex.Luma{Width: w, Height: h, Stride: stride, Pix: pix}
}

// maxAbsDiff returns max |a-b|, or +Inf if any difference is NaN.
func maxAbsDiff(a, b []float32) float64 {
	var m float64
	for i := range a {
		d := math.Abs(float64(a[i]) - float64(b[i]))
		if math.IsNaN(d) {
			return math.Inf(1)
		}
		m = max(m, d)
	}
	return m
}

const resampleTol = 1e-3 // on 0–255 data; rounding alone stays below 1e-4

func TestResampleLumaMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct{ W, H, w, h int }{
		{2448, 1632, 384, 256}, // the usual 4 MP → 256 case, ratio 6.375
		{301, 211, 200, 150},   // ratios between 1 and 2
		{257, 255, 255, 254},   // just above 1: a whole row only now and then
		{100, 90, 100, 90},     // ratio 1: every row whole
		{3072, 3072, 256, 256}, // ratio 12
		{10240, 8, 256, 2},     // ratio 40 horizontally, 4 vertically
		{20, 600, 5, 2},        // 300 whole rows per output row: too many for 16-bit lanes
		{17, 514, 3, 2},        // 257 whole rows: as many as 16-bit lanes hold
		{17, 516, 3, 2},        // 258 whole rows: one too many
		{13, 7, 31, 29},        // enlarging
		{7, 40, 15, 10},        // enlarging horizontally, shrinking vertically
		{50, 9, 10, 20},        // shrinking horizontally, enlarging vertically
		{1, 1, 3, 2},
		{9, 17, 1, 1},
		{8, 8, 3, 3},   // exactly one 8-pixel group
		{15, 31, 4, 7}, // one group plus a 7-pixel tail
		{517, 389, 73, 61},
	}
	for _, c := range cases {
		for _, pad := range []int{0, 5} {
			t.Run(fmt.Sprintf("%dx%d→%dx%d/stride+%d", c.W, c.H, c.w, c.h, pad), func(t *testing.T) {
				l := randomLuma(rng, c.W, c.H, c.W+pad)
				checkResample(t, l, c.w, c.h)
				// The data must be able to show a one-pixel slip: the
				// reference on the plane shifted by one column has to
				// differ by more than the tolerance.
				if c.W > 1 && c.w < c.W {
					sh := *l
					sh.Pix, sh.Width = l.Pix[1:], l.Width-1
					if d := maxAbsDiff(refResampleLuma(&sh, c.w, c.h), refResampleLuma(l, c.w, c.h)); d <= resampleTol {
						t.Errorf("a one-column shift changes the result by only %g", d)
					}
				}
				// All 255: the largest sums, which must not wrap.
				for y := range c.H {
					row := l.Pix[y*l.Stride:][:c.W]
					for x := range row {
						row[x] = 255
					}
				}
				checkResample(t, l, c.w, c.h)
			})
		}
	}
}

func checkResample(t *testing.T, l *imagex.Luma, w, h int) {
	t.Helper()
	want := refResampleLuma(l, w, h)
	got := resampleLuma(l, w, h)
	if len(got) != len(want) {
		t.Fatalf("len %d, want %d", len(got), len(want))
	}
	if d := maxAbsDiff(got, want); d > resampleTol {
		t.Errorf("max |got-want| = %g > %g", d, resampleTol)
	}
}

func TestBoxBlurMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sz := range [][2]int{{384, 256}, {256, 384}, {37, 29}, {1, 1}, {1, 17}, {17, 1}, {3, 5}, {9, 9}} {
		for _, r := range []int{0, 1, 2, 4, 8, 40} {
			w, h := sz[0], sz[1]
			src := make([]float32, w*h)
			for i := range src {
				src[i] = rng.Float32() * 255
			}
			want := refBoxBlur(src, w, h, r)
			got := boxBlur(src, w, h, r)
			if d := maxAbsDiff(got, want); d > resampleTol {
				t.Errorf("%dx%d r=%d: max |got-want| = %g > %g", w, h, r, d, resampleTol)
			}
		}
	}
}

func TestHighpassMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	l := randomLuma(rng, 1200, 800, 1200)
	for _, s := range schemes() {
		for _, sz := range [][2]int{{384, 256}, {31, 17}, {2, 3}} {
			w, h := sz[0], sz[1]
			work := resampleLuma(l, w, h)
			want := refHighpass(s, work, w, h)
			got := s.highpass(work, w, h)
			// The output is in units of the plane's RMS, about 1.
			if d := maxAbsDiff(got, want); d > 1e-4 {
				t.Errorf("v%d %dx%d: max |got-want| = %g", s.version, w, h, d)
			}
		}
	}
}

func BenchmarkResampleLuma(b *testing.B) {
	l := randomLuma(rand.New(rand.NewPCG(7, 8)), 2448, 1632, 2448)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resampleLuma(l, 384, 256)
	}
}

func BenchmarkHighpass(b *testing.B) {
	img, _ := benchImage(b)
	l := imagex.ToLuma(img)
	for _, s := range schemes() {
		w, h := s.workDims(l.Width, l.Height)
		work := resampleLuma(l, w, h)
		b.Run(fmt.Sprintf("v%d", s.version), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s.highpass(work, w, h)
			}
		})
	}
}
