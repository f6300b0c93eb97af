package watermark

import (
	"math"

	"github.com/provenant/provenant/shared/imagex"
)

// taps lists, for each output sample, the first input index and the weights
// of the consecutive input samples it averages.
type taps struct {
	start []int
	off   []int // offsets into w: weights of output i are w[off[i]:off[i+1]]
	w     []float32
}

// newTaps builds centre-aligned resampling weights from n input samples to m
// output samples: exact area averaging when shrinking, linear interpolation
// when enlarging.
func newTaps(n, m int) taps {
	t := taps{start: make([]int, m), off: make([]int, m+1)}
	ratio := float64(n) / float64(m)
	for i := 0; i < m; i++ {
		t.off[i] = len(t.w)
		if ratio >= 1 {
			lo, hi := float64(i)*ratio, float64(i+1)*ratio
			a := int(math.Floor(lo))
			t.start[i] = a
			for j := a; float64(j) < hi && j < n; j++ {
				ov := math.Min(hi, float64(j+1)) - math.Max(lo, float64(j))
				if ov > 0 {
					t.w = append(t.w, float32(ov/ratio))
				} else {
					t.w = append(t.w, 0)
				}
			}
			continue
		}
		u := (float64(i)+0.5)*ratio - 0.5
		a := int(math.Floor(u))
		fr := float32(u - float64(a))
		if a < 0 {
			a, fr = 0, 0
		}
		if a >= n-1 {
			a, fr = n-1, 0
		}
		t.start[i] = a
		if fr == 0 || a+1 >= n {
			t.w = append(t.w, 1)
		} else {
			t.w = append(t.w, 1-fr, fr)
		}
	}
	t.off[m] = len(t.w)
	return t
}

// resampleLuma returns the luminance plane l resized to w×h as float32
// (area average when shrinking, bilinear when enlarging), reading Pix rows
// directly. It filters vertically first (a contiguous multiply-add over each
// source row) and horizontally once per output row.
func resampleLuma(l *imagex.Luma, w, h int) []float32 {
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

// bilinear holds, for each output coordinate, the two input indices and the
// weight of the second, for centre-aligned linear interpolation.
type bilinear struct {
	i0, i1 []int
	f      []float32
}

func newBilinear(n, m int) bilinear {
	b := bilinear{i0: make([]int, m), i1: make([]int, m), f: make([]float32, m)}
	ratio := float64(n) / float64(m)
	for i := 0; i < m; i++ {
		u := (float64(i)+0.5)*ratio - 0.5
		a := int(math.Floor(u))
		fr := u - float64(a)
		switch {
		case a < 0:
			a, fr = 0, 0
		case a >= n-1:
			a, fr = n-1, 0
		}
		b.i0[i], b.f[i] = a, float32(fr)
		b.i1[i] = min(a+1, n-1)
	}
	return b
}

// boxBlur returns the mean of src over a (2r+1)² window, with the window
// clamped at the borders.
func boxBlur(src []float32, w, h, r int) []float32 {
	tmp := make([]float32, w*h)
	out := make([]float32, w*h)
	for y := 0; y < h; y++ {
		boxLine(src[y*w:(y+1)*w], tmp[y*w:(y+1)*w], 1, w, r)
	}
	for x := 0; x < w; x++ {
		boxLine(tmp[x:], out[x:], w, h, r)
	}
	return out
}

// boxLine writes the running mean of n samples of src (stride st) to dst.
func boxLine(src, dst []float32, st, n, r int) {
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
