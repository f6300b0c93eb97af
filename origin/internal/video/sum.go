package video

import "encoding/binary"

// frameSum is the running sum of 8-bit planes of one size, for the mean
// the image mark is read from. It adds eight pixels at a time, as four
// 16-bit lanes in each of two words (the even and the odd pixels of the
// eight), which costs a quarter of adding them one by one into 32-bit
// sums (at 12 frames a second the sum is paid on every frame read); a
// lane holds up to 257 frames, and the lanes are carried into 32-bit
// sums before that.
type frameSum struct {
	n     int      // the plane's length in pixels
	lanes []uint64 // per 8 pixels: even pixels' lanes, then odd ones'
	wide  []uint32 // the carried sums (nil until the first carry)
	tail  []uint32 // the last len%8 pixels, summed one by one
	since int      // frames added since the last carry
	count int      // frames added
}

// laneFrames is how many 8-bit frames a 16-bit lane holds.
const laneFrames = 0xffff / 0xff

const laneMask = 0x00ff00ff00ff00ff

func newFrameSum(n int) *frameSum {
	return &frameSum{n: n, lanes: make([]uint64, n/8*2), tail: make([]uint32, n%8)}
}

// add adds the plane pix (len n).
func (s *frameSum) add(pix []uint8) {
	if s.since == laneFrames {
		s.carry()
	}
	a, p := s.lanes, pix[:s.n]
	// 32 pixels an iteration through array pointers: one bounds check
	// for each.
	for len(p) >= 32 && len(a) >= 8 {
		b, l := (*[32]byte)(p), (*[8]uint64)(a)
		for j := range 4 {
			x := binary.LittleEndian.Uint64(b[8*j : 8*j+8])
			l[2*j] += x & laneMask
			l[2*j+1] += x >> 8 & laneMask
		}
		p, a = p[32:], a[8:]
	}
	for len(p) >= 8 && len(a) >= 2 {
		x := binary.LittleEndian.Uint64(p)
		a[0] += x & laneMask
		a[1] += x >> 8 & laneMask
		p, a = p[8:], a[2:]
	}
	for i, v := range p {
		s.tail[i] += uint32(v)
	}
	s.since++
	s.count++
}

// carry moves the lanes into the 32-bit sums.
func (s *frameSum) carry() {
	if s.wide == nil {
		s.wide = make([]uint32, s.n/8*8)
	}
	for j := 0; j < len(s.lanes); j += 2 {
		w := s.wide[j*4 : j*4+8]
		e, o := s.lanes[j], s.lanes[j+1]
		for k := range 4 {
			w[2*k] += uint32(e >> (16 * k) & 0xffff)
			w[2*k+1] += uint32(o >> (16 * k) & 0xffff)
		}
	}
	clear(s.lanes)
	s.since = 0
}

// mean writes the rounded mean of the planes added into dst (len n);
// nothing when none was.
func (s *frameSum) mean(dst []uint8) {
	c := uint32(s.count)
	if c == 0 {
		return
	}
	for j := 0; j < len(s.lanes); j += 2 {
		d := dst[j*4 : j*4+8]
		e, o := s.lanes[j], s.lanes[j+1]
		for k := range 4 {
			se, so := uint32(e>>(16*k)&0xffff), uint32(o>>(16*k)&0xffff)
			if s.wide != nil {
				se += s.wide[j*4+2*k]
				so += s.wide[j*4+2*k+1]
			}
			d[2*k] = uint8((se + c/2) / c)
			d[2*k+1] = uint8((so + c/2) / c)
		}
	}
	for i, t := range s.tail {
		dst[s.n/8*8+i] = uint8((t + c/2) / c)
	}
}
