package imagex

import "encoding/binary"

// Downscale returns l area-averaged to w×h: every output pixel is the rounded
// mean of the block of source pixels it covers, with block edges at integer
// positions i*Width/w (so blocks differ in size by at most one pixel). When l
// is smaller than w×h along an axis, source pixels are repeated (nearest
// neighbour) along that axis. It reads Pix directly and allocates only the
// result, the blocks' table and scratch of the order of a row (64-bit
// column accumulators and their weights, the row sums' lanes). It
// panics if w or h is not positive or l is empty.
func Downscale(l *Luma, w, h int) *Luma {
	if w <= 0 || h <= 0 || l.Width <= 0 || l.Height <= 0 {
		panic("imagex: Downscale of or to an empty plane")
	}
	out := &Luma{Width: w, Height: h, Stride: w, Pix: make([]uint8, w*h)}
	if w == l.Width && h == l.Height {
		// Every block is one pixel, its own mean: a copy (the perceptual
		// hash's 256×256 plane when the decode made it that size).
		for y := 0; y < h; y++ {
			copy(out.Pix[y*w:(y+1)*w], l.Pix[y*l.Stride:y*l.Stride+w])
		}
		return out
	}
	x0, x1 := bins(l.Width, w)
	y0, y1 := bins(l.Height, h)
	// Each output column averages its block of source columns, every one
	// weighted 1.
	ones := make([]uint64, l.Width)
	for i := range ones {
		ones[i] = 1
	}
	means := blockSpec{spec: make([]int, 0, 4*w), wts: ones, cols: l.Width}
	for i := range w {
		means.spec = append(means.spec, x0[i], x1[i]-x0[i], 0, x1[i]-x0[i])
	}
	means.check()
	// Sum the rows of each output row into per-column accumulators (one add
	// per source pixel, the hot loop), then sum the column blocks.
	col := make([]uint64, l.Width)
	var sw swar
	for j := 0; j < h; j++ {
		clear(col)
		colSums(col, l.Pix, y0[j]*l.Stride, l.Stride, y1[j]-y0[j], &sw)
		means.row(out.Pix[j*w:(j+1)*w], col, y1[j]-y0[j])
	}
	return out
}

// colSums adds to each col[x] the bytes pix[off+y*stride+x] of rows
// rows, after checking that they all lie in pix (the WebAssembly body
// reads without bounds checks). sw is the bodies' scratch.
func colSums(col []uint64, pix []uint8, off, stride, rows int, sw *swar) {
	if rows < 1 || len(col) < 1 || off < 0 || stride < len(col) || off > len(pix)-(rows-1)*stride-len(col) {
		panic("imagex: column sums outside the plane")
	}
	colSumsImpl(col, pix[off:], stride, rows, sw)
}

// swarSums is colSums's portable body, the reference for the WebAssembly
// one: four rows at a time, eight columns per 64-bit word.
func swarSums(col []uint64, pix []uint8, stride, rows int, sw *swar) {
	if len(sw.ev) != len(col)/8 {
		sw.init(len(col))
	}
	row := func(y int) []uint8 { return pix[y*stride : y*stride+len(col)] }
	y := 0
	for ; y+4 <= rows; y += 4 {
		sw.add4(row(y), row(y+1), row(y+2), row(y+3), col)
	}
	for ; y < rows; y++ {
		sw.add(row(y), col)
	}
	sw.flush(col)
}

// swar accumulates rows of bytes eight at a time: each uint64 holds four
// 16-bit lane sums (even bytes in ev, odd bytes in od), which cannot overflow
// for 257 rows of 255; it flushes into 64-bit column sums before that.
type swar struct {
	ev, od []uint64
	rows   int
	// ones are the row weights of the WebAssembly body (all 1).
	ones []int
}

func (s *swar) init(width int) {
	s.ev, s.od = make([]uint64, width/8), make([]uint64, width/8)
}

const lanes = 0x00FF00FF00FF00FF

// add adds row into the lane sums (and its tail, past the last full group of
// eight, straight into col).
func (s *swar) add(row []uint8, col []uint64) {
	if s.rows+1 > 256 {
		s.flush(col)
	}
	s.rows++
	ev, od := s.ev, s.od[:len(s.ev)]
	for k := range ev {
		v := binary.LittleEndian.Uint64(row[8*k:])
		ev[k] += v & lanes
		od[k] += (v >> 8) & lanes
	}
	for i := 8 * len(ev); i < len(row); i++ {
		col[i] += uint64(row[i])
	}
}

// add4 is add for four rows of equal length, with one load and store of
// the lane sums per group of eight columns.
func (s *swar) add4(r0, r1, r2, r3 []uint8, col []uint64) {
	if s.rows+4 > 256 {
		s.flush(col)
	}
	s.rows += 4
	ev, od := s.ev, s.od[:len(s.ev)]
	n := 8 * len(ev)
	a0, a1, a2, a3 := r0[:n], r1[:n], r2[:n], r3[:n]
	for k := range ev {
		a := binary.LittleEndian.Uint64(a0[8*k:])
		b := binary.LittleEndian.Uint64(a1[8*k:])
		c := binary.LittleEndian.Uint64(a2[8*k:])
		d := binary.LittleEndian.Uint64(a3[8*k:])
		ev[k] += a&lanes + b&lanes + c&lanes + d&lanes
		od[k] += (a>>8)&lanes + (b>>8)&lanes + (c>>8)&lanes + (d>>8)&lanes
	}
	for i := n; i < len(r0); i++ {
		col[i] += uint64(r0[i]) + uint64(r1[i]) + uint64(r2[i]) + uint64(r3[i])
	}
}

// flush moves the lane sums into col and zeroes them.
func (s *swar) flush(col []uint64) {
	for k, e := range s.ev {
		o := s.od[k]
		c := col[8*k : 8*k+8 : 8*k+8]
		c[0] += uint64(e & 0xFFFF)
		c[1] += uint64(o & 0xFFFF)
		c[2] += uint64(e >> 16 & 0xFFFF)
		c[3] += uint64(o >> 16 & 0xFFFF)
		c[4] += uint64(e >> 32 & 0xFFFF)
		c[5] += uint64(o >> 32 & 0xFFFF)
		c[6] += uint64(e >> 48)
		c[7] += uint64(o >> 48)
	}
	clear(s.ev)
	clear(s.od)
	s.rows = 0
}

// bins splits n source positions into m half-open blocks [lo[i], hi[i]).
func bins(n, m int) (lo, hi []int) {
	lo, hi = make([]int, m), make([]int, m)
	for i := 0; i < m; i++ {
		a, b := i*n/m, (i+1)*n/m
		if b <= a { // upsampling along this axis: repeat the nearest pixel
			a = (2*i + 1) * n / (2 * m)
			b = a + 1
		}
		lo[i], hi[i] = a, b
	}
	return lo, hi
}

// blockSpec says, for each pixel of an output row, which column sums it
// averages: spec holds four ints per output pixel (the first column, the
// number of columns, the offset of their weights in wts, and the
// full-size width of the block, which times the rows gives the divisor).
// check proves once that every entry stays inside a row of cols sums and
// inside wts, so the WebAssembly body can read them without a bounds
// check per pixel.
type blockSpec struct {
	spec []int
	wts  []uint64
	cols int
}

// check panics unless every block reads inside cols and wts and has a
// positive width.
func (b *blockSpec) check() {
	for i := 0; i < len(b.spec); i += 4 {
		s := b.spec[i:min(i+4, len(b.spec))]
		if len(s) < 4 || s[1] < 1 || s[1] > min(b.cols, len(b.wts)) ||
			uint(s[0]) > uint(b.cols-s[1]) || uint(s[2]) > uint(len(b.wts)-s[1]) || s[3] < 1 {
			panic("imagex: block table outside its row")
		}
	}
}

// row writes into dst the rounded weighted mean of each block of col, for
// blocks rows full-size pixels tall.
func (b *blockSpec) row(dst []uint8, col []uint64, rows int) {
	if 4*len(dst) != len(b.spec) || len(col) < b.cols || rows < 1 {
		panic("imagex: block row of the wrong size")
	}
	blockMeans(dst, col, b.spec, b.wts, uint64(rows))
}

// blockMeansGo is blockMeans in Go: the reference, and the body everywhere
// but WebAssembly. The sums are exact integers, so any order gives them.
func blockMeansGo(dst []uint8, col []uint64, spec []int, wts []uint64, rows uint64) {
	for i := range dst {
		s := spec[4*i : 4*i+4 : 4*i+4]
		c, w := col[s[0]:s[0]+s[1]], wts[s[2]:s[2]+s[1]]
		var sum uint64
		for k, v := range c {
			sum += w[k] * v
		}
		n := rows * uint64(s[3])
		dst[i] = uint8((sum + n/2) / n)
	}
}
