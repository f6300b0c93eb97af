package watermark

import (
	"encoding/binary"
	"math"
	"slices"

	"github.com/provenant/provenant/shared/imagex"
)

// taps lists, for each output sample, the first input index and the weights
// of the consecutive input samples it averages.
type taps struct {
	start []int
	off   []int // offsets into w: weights of output i are w[off[i]:off[i+1]]
	w     []float32
	// n is the input's length: every output's taps lie inside [0, n) and
	// have at least one weight (areaTaps and newTaps make them so), which
	// lets apply check a row in constant time.
	n int
}

// areaTaps returns area-averaging weights for m output samples where output
// i covers the input interval [start+i·ratio, start+(i+1)·ratio) of an n
// sample signal. Any ratio > 0 works: below 1 each output averages the one
// or two input samples it overlaps. The interval must lie inside [0, n].
func areaTaps(n, m int, start, ratio float64) taps {
	t := taps{start: make([]int, m), off: make([]int, m+1), n: n}
	for i := 0; i < m; i++ {
		t.off[i] = len(t.w)
		lo, hi := start+float64(i)*ratio, start+float64(i+1)*ratio
		a := min(max(int(math.Floor(lo)), 0), n-1)
		t.start[i] = a
		for j := a; j < n && float64(j) < hi; j++ {
			ov := math.Min(hi, float64(j+1)) - math.Max(lo, float64(j))
			t.w = append(t.w, float32(math.Max(ov, 0)/ratio))
		}
		if len(t.w) == t.off[i] {
			t.w = append(t.w, 1)
		}
	}
	t.off[m] = len(t.w)
	return t
}

// newTaps builds centre-aligned resampling weights from n input samples to m
// output samples: exact area averaging when shrinking, linear interpolation
// when enlarging.
func newTaps(n, m int) taps {
	ratio := float64(n) / float64(m)
	if ratio >= 1 {
		return areaTaps(n, m, 0, ratio)
	}
	t := taps{start: make([]int, m), off: make([]int, m+1), n: n}
	for i := 0; i < m; i++ {
		t.off[i] = len(t.w)
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
// directly. It filters vertically first and horizontally once per output
// row.
func resampleLuma(l *imagex.Luma, w, h int) []float32 {
	// As newTaps computes it for an overlap of exactly 1; when enlarging it
	// exceeds every weight, so no row is summed as a whole.
	full := float32(1 / (float64(l.Height) / float64(h)))
	return resampleTaps(l, newTaps(l.Width, w), newTaps(l.Height, h), full)
}

// resampleTaps applies separable taps to l, vertically then horizontally;
// full is the vertical weight of a source row that lies wholly inside an
// output row (see vertical).
func resampleTaps(l *imagex.Luma, tx, ty taps, full float32) []float32 {
	w, h := len(tx.start), len(ty.start)
	out := make([]float32, w*h)
	acc := make([]float32, l.Width)
	v := newVertical(l, full)
	for y := 0; y < h; y++ {
		v.row(acc, ty.start[y], ty.w[ty.off[y]:ty.off[y+1]])
		tx.apply(out[y*w:(y+1)*w], acc)
	}
	return out
}

// apply writes to dst the weighted sums of src that t describes.
func (t taps) apply(dst, src []float32) {
	if len(dst) > len(t.start) || len(src) < t.n || len(t.off) != len(t.start)+1 {
		panic("watermark: taps.apply: bad shape")
	}
	if len(dst) > 0 {
		tapsApplyImpl(dst, src, t)
	}
}

func tapsApplyGo(dst, src []float32, t taps) {
	start, off := t.start[:len(dst)], t.off[:len(dst)+1]
	for x := range dst {
		ws := t.w[off[x]:off[x+1]]
		a := src[start[x]:]
		a = a[:len(ws)]
		// Two sums halve the chain of dependent adds.
		var s0, s1 float32
		j := 0
		for ; j+1 < len(ws); j += 2 {
			s0 += ws[j] * a[j]
			s1 += ws[j+1] * a[j+1]
		}
		if j < len(ws) {
			s0 += ws[j] * a[j]
		}
		dst[x] = s0 + s1
	}
}

// vertical filters the rows of a luma plane. Only the first and last source
// rows of an output row can have a fractional weight: the rows in between
// lie wholly inside it and weigh 1/ratio. Those are summed as integers,
// four pixels per 64-bit add, and scaled once, in the same pass that adds
// the two boundary rows; at the usual ratios of 4–10 most pixels then cost
// a fraction of an integer add instead of a float multiply-add and a load
// and store of the accumulator.
//
// The even and odd bytes of each 8-pixel group are summed in separate words,
// one byte per 16-bit lane, which holds the sum of at most maxRows rows.
type vertical struct {
	l         *imagex.Luma
	full      float32  // the weight of a whole row
	even, odd []uint64 // per 8-pixel group
	tail      []uint32 // the last width%8 pixels
}

const maxRows = 0xFFFF / 0xFF

func newVertical(l *imagex.Luma, full float32) *vertical {
	g := l.Width / 8
	return &vertical{
		l: l, full: full,
		even: make([]uint64, g), odd: make([]uint64, g), tail: make([]uint32, l.Width%8),
	}
}

func (v *vertical) pix(y int) []uint8 {
	return v.l.Pix[y*v.l.Stride:][:v.l.Width]
}

// row sets dst to the sum of the rows y0, y0+1, … weighted by ws.
func (v *vertical) row(dst []float32, y0 int, ws []float32) {
	// The boundary rows a and b; a row of weight 0 stands in for a missing one.
	a, b := v.pix(y0), v.pix(y0)
	var wa, wb float32
	k0, k1 := 0, len(ws) // the whole rows
	if ws[0] != v.full {
		wa, k0 = ws[0], 1
	}
	if k1 > k0 && ws[k1-1] != v.full {
		b, wb, k1 = v.pix(y0+k1-1), ws[k1-1], k1-1
	}
	if k1-k0 > maxRows || slices.ContainsFunc(ws[k0:k1], func(w float32) bool { return w != v.full }) {
		// The 16-bit lanes could overflow (shrinking over 257×); newTaps
		// never gives a fractional weight inside, this only keeps the
		// result right if it did.
		clear(dst)
		for k, wy := range ws {
			for x, p := range v.pix(y0 + k) {
				dst[x] += wy * float32(p)
			}
		}
		return
	}
	v.sum(y0+k0, k1-k0)
	v.take(dst, a, wa, b, wb)
}

// sum adds the n rows from y to the sums.
func (v *vertical) sum(y, n int) {
	if n <= 0 {
		return
	}
	l := v.l
	if y < 0 || len(v.odd) != len(v.even) || 8*len(v.even)+len(v.tail) != l.Width || l.Stride < l.Width ||
		(y+n-1)*l.Stride+l.Width > len(l.Pix) {
		panic("watermark: vertical.sum: bad shape")
	}
	verticalSumImpl(v, y, n)
}

func verticalSumGo(v *vertical, y, n int) {
	const m = 0x00FF00FF00FF00FF
	even, odd := v.even, v.odd[:len(v.even)]
	for ; n > 0; y, n = y+1, n-1 {
		src := v.pix(y)
		for g := range even {
			p := binary.LittleEndian.Uint64(src[8*g : 8*g+8])
			even[g] += p & m
			odd[g] += p >> 8 & m
		}
		for i, p := range src[8*len(even):] {
			v.tail[i] += uint32(p)
		}
	}
}

// take sets dst to full times the sums plus wa×a plus wb×b, and clears the
// sums.
func (v *vertical) take(dst []float32, a []uint8, wa float32, b []uint8, wb float32) {
	n := 8*len(v.even) + len(v.tail)
	if len(v.odd) != len(v.even) || len(dst) < n || len(a) < n || len(b) < n {
		panic("watermark: vertical.take: bad shape")
	}
	verticalTakeImpl(v, dst, a, wa, b, wb)
}

// verticalTakeGo looks the products wa×p and wb×p up: filling a table of
// 256 costs less than converting a row.
func verticalTakeGo(v *vertical, dst []float32, a []uint8, wa float32, b []uint8, wb float32) {
	var ta, tb [256]float32
	for p := range ta {
		ta[p], tb[p] = wa*float32(p), wb*float32(p)
	}
	wt := v.full
	even, odd := v.even, v.odd[:len(v.even)]
	for g, e := range even {
		o := odd[g]
		d, a, b := dst[8*g:8*g+8], a[8*g:8*g+8], b[8*g:8*g+8]
		d[0] = wt*float32(uint16(e)) + ta[a[0]] + tb[b[0]]
		d[1] = wt*float32(uint16(o)) + ta[a[1]] + tb[b[1]]
		d[2] = wt*float32(uint16(e>>16)) + ta[a[2]] + tb[b[2]]
		d[3] = wt*float32(uint16(o>>16)) + ta[a[3]] + tb[b[3]]
		d[4] = wt*float32(uint16(e>>32)) + ta[a[4]] + tb[b[4]]
		d[5] = wt*float32(uint16(o>>32)) + ta[a[5]] + tb[b[5]]
		d[6] = wt*float32(e>>48) + ta[a[6]] + tb[b[6]]
		d[7] = wt*float32(o>>48) + ta[a[7]] + tb[b[7]]
	}
	clear(even)
	clear(odd)
	n := 8 * len(even)
	for i, p := range v.tail {
		dst[n+i] = wt*float32(p) + ta[a[n+i]] + tb[b[n+i]]
	}
	clear(v.tail)
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
//
// Both passes keep running sums in float64, so no drift builds up along a
// line, and multiply by a table of reciprocal counts instead of dividing.
// The vertical pass goes row by row with one running sum per column, which
// reads memory in order; it needs the horizontal means of only the 2r+2
// rows entering and leaving the window, so those live in a small ring.
func boxBlur(src []float32, w, h, r int) []float32 {
	out := make([]float32, w*h)
	invX, invY := recipCounts(w, r), recipCounts(h, r)
	n := 2*r + 2
	ring := make([]float32, n*w)
	hrow := func(y int) []float32 {
		dst := ring[y%n*w:][:w]
		boxLine(dst, src[y*w:][:w], r, invX)
		return dst
	}
	col := make([]float64, w)
	for y := range min(r+1, h) {
		for x, v := range hrow(y) {
			col[x] += float64(v)
		}
	}
	zero := make([]float32, w) // stands in for rows beyond the borders
	for y := 0; y < h; y++ {
		in, outRow := zero, zero
		if j := y + r + 1; j < h {
			in = hrow(j)
		}
		if j := y - r; j >= 0 {
			outRow = ring[j%n*w:][:w]
		}
		dst, inv := out[y*w:][:w], invY[y]
		boxCols(dst, col, in, outRow, inv)
	}
	return out
}

// recipCounts returns 1/count for each of the n windows of radius r clamped
// to [0, n).
func recipCounts(n, r int) []float64 {
	inv := make([]float64, n)
	for i := range inv {
		inv[i] = 1 / float64(min(i+r, n-1)-max(i-r, 0)+1)
	}
	return inv
}

// boxLine writes to dst the running mean of src over windows of radius r,
// given the reciprocal window counts.
func boxLine(dst, src []float32, r int, inv []float64) {
	if r < 0 || len(dst) < len(src) || len(inv) < len(src) {
		panic("watermark: boxLine: bad shape")
	}
	if len(src) > 0 {
		boxLineImpl(dst, src, r, inv)
	}
}

func boxLineGo(dst, src []float32, r int, inv []float64) {
	n := len(src)
	dst, inv = dst[:n], inv[:n]
	var s float64
	for _, v := range src[:min(r+1, n)] {
		s += float64(v)
	}
	for i := range dst {
		dst[i] = float32(s * inv[i])
		// One add on s per sample: s is the chain the loop waits on.
		var in, out float64
		if j := i + r + 1; j < n {
			in = float64(src[j])
		}
		if j := i - r; j >= 0 {
			out = float64(src[j])
		}
		s += in - out
	}
}

// boxCols writes to dst the column sums col times inv and advances each
// by in − out (boxBlur's vertical pass); the five have the same length.
func boxCols(dst []float32, col []float64, in, out []float32, inv float64) {
	if len(col) != len(dst) || len(in) != len(dst) || len(out) != len(dst) {
		panic("watermark: boxCols: bad shape")
	}
	if len(dst) > 0 {
		boxColsImpl(dst, col, in, out, inv)
	}
}

func boxColsGo(dst []float32, col []float64, in, out []float32, inv float64) {
	for x, c := range col {
		dst[x] = float32(c * inv)
		col[x] = c + float64(in[x]) - float64(out[x])
	}
}

// sumSquares returns the sum of the squares of x in float64. Four partial
// sums let the adds overlap instead of each waiting for the previous one.
func sumSquares(x []float32) float64 {
	var s0, s1, s2, s3 float64
	for ; len(x) >= 4; x = x[4:] {
		s0 += float64(x[0]) * float64(x[0])
		s1 += float64(x[1]) * float64(x[1])
		s2 += float64(x[2]) * float64(x[2])
		s3 += float64(x[3]) * float64(x[3])
	}
	for _, v := range x {
		s0 += float64(v) * float64(v)
	}
	return (s0 + s1) + (s2 + s3)
}
