package imagex

import "encoding/binary"

// Downscale returns l area-averaged to w×h: every output pixel is the rounded
// mean of the block of source pixels it covers, with block edges at integer
// positions i*Width/w (so blocks differ in size by at most one pixel). When l
// is smaller than w×h along an axis, source pixels are repeated (nearest
// neighbour) along that axis. It reads Pix directly and allocates only the
// result and one row of 32-bit column accumulators. It panics if w or h is not positive or
// l is empty.
func Downscale(l *Luma, w, h int) *Luma {
	if w <= 0 || h <= 0 || l.Width <= 0 || l.Height <= 0 {
		panic("imagex: Downscale of or to an empty plane")
	}
	out := &Luma{Width: w, Height: h, Stride: w, Pix: make([]uint8, w*h)}
	x0, x1 := bins(l.Width, w)
	y0, y1 := bins(l.Height, h)
	// Sum the rows of each output row into per-column accumulators (one add
	// per source pixel, the hot loop), then sum the column blocks.
	col := make([]uint32, l.Width)
	var sw swar
	sw.init(l.Width)
	for j := 0; j < h; j++ {
		clear(col)
		for y := y0[j]; y < y1[j]; y++ {
			sw.add(l.Pix[y*l.Stride:y*l.Stride+l.Width], col)
		}
		sw.flush(col)
		rows := uint64(y1[j] - y0[j])
		dst := out.Pix[j*w : (j+1)*w]
		for i := range dst {
			var s uint64
			for _, v := range col[x0[i]:x1[i]] {
				s += uint64(v)
			}
			n := rows * uint64(x1[i]-x0[i])
			dst[i] = uint8((s + n/2) / n)
		}
	}
	return out
}

// swar accumulates rows of bytes eight at a time: each uint64 holds four
// 16-bit lane sums (even bytes in ev, odd bytes in od), which cannot overflow
// for 257 rows of 255; it flushes into 32-bit column sums before that.
type swar struct {
	ev, od []uint64
	rows   int
}

func (s *swar) init(width int) {
	s.ev, s.od = make([]uint64, width/8), make([]uint64, width/8)
}

const lanes = 0x00FF00FF00FF00FF

// add adds row into the lane sums (and its tail, past the last full group of
// eight, straight into col).
func (s *swar) add(row []uint8, col []uint32) {
	if s.rows == 256 {
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
		col[i] += uint32(row[i])
	}
}

// flush moves the lane sums into col and zeroes them.
func (s *swar) flush(col []uint32) {
	for k, e := range s.ev {
		o := s.od[k]
		c := col[8*k : 8*k+8 : 8*k+8]
		c[0] += uint32(e & 0xFFFF)
		c[1] += uint32(o & 0xFFFF)
		c[2] += uint32(e >> 16 & 0xFFFF)
		c[3] += uint32(o >> 16 & 0xFFFF)
		c[4] += uint32(e >> 32 & 0xFFFF)
		c[5] += uint32(o >> 32 & 0xFFFF)
		c[6] += uint32(e >> 48)
		c[7] += uint32(o >> 48)
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
