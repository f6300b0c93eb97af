package video

import (
	"encoding/binary"
	"math"
)

// Motion-compensated reading of the temporal mark.
//
// A re-encoder that predicts each frame from the previous one moved with
// the picture, and drops at coarse quantisers the small residual that
// would put each cell back on its lattice, carries the mark of its last
// keyframe along with the picture: on a clip whose texture scrolls, the
// decoded frames hold that keyframe's mark displaced by the motion since
// it, and the mark read in place fades within a few frames (on a clip
// scrolling a row a frame, re-encoded at CRF 35 with one keyframe, the
// soft values' agreement with the codeword fell from 0.57 on the keyframe
// to under 0.1 by the ninth frame). Read at the displacement accumulated
// since the first frame, the same frames agree 0.57 to 0.24 to the end
// of the clip.
//
// So the extractor also follows the clip's global motion: between two
// sampled frames it matches the frames' row and column profiles (the
// mean of each row and each column) at every shift up to a quarter of
// the side, refined to a fraction of a pixel, and sums the shifts; a
// frame its predecessor does not predict (a cut: the encoder starts a new
// keyframe there) starts the sum again. Each frame's evidence is then
// also read with the pattern displaced by the accumulated motion, into a
// second sum, decoded when the sum read in place does not decode.

// motionMaxFit is the largest residual of a profile match, over the
// profile's variance, that still counts as a shift along that axis:
// beyond it the axis is taken as still (the column means of a texture
// scrolling vertically can change from frame to frame with nothing
// moving sideways). A scroll measures under 0.05, unrelated profiles 1
// or more.
const motionMaxFit = 0.5

// motionMaxResidual is the largest mean squared difference, over the
// frame's variance, between a frame and its predecessor moved by the
// measured shift (on a sparse grid of pixels) that still counts as the
// same picture; beyond it the frame is a cut and starts a new reference.
// Unrelated frames measure about 2.
const motionMaxResidual = 1.0

// motionTracker follows the global translation of a clip's frames.
type motionTracker struct {
	w, h       int
	prev       []uint8   // the previous frame
	row, col   []float64 // the current frame's profiles
	prow, pcol []float64 // the previous frame's
	seen       bool
	// dx, dy is the displacement of the current frame since the
	// reference: the reference's pixel (x, y) is at (x−dx, y−dy) now.
	dx, dy float64
	// resets counts the frames that started a new reference (the first
	// frame not included).
	resets int
}

func newMotionTracker(w, h int) *motionTracker {
	return &motionTracker{w: w, h: h, prev: make([]uint8, w*h), row: make([]float64, h), col: make([]float64, w),
		prow: make([]float64, h), pcol: make([]float64, w)}
}

// add takes the next w×h frame and returns its displacement since the
// reference, rounded to whole pixels.
func (m *motionTracker) add(pix []uint8) (dx, dy int) {
	m.row, m.prow = m.prow, m.row
	m.col, m.pcol = m.pcol, m.col
	profiles(pix, m.w, m.h, m.row, m.col)
	defer copy(m.prev, pix)
	if !m.seen {
		m.seen = true
		return 0, 0
	}
	sx, fx := matchProfile(m.col, m.pcol, m.w/4)
	sy, fy := matchProfile(m.row, m.prow, m.h/4)
	if fx > motionMaxFit {
		sx = 0
	}
	if fy > motionMaxFit {
		sy = 0
	}
	if residual(pix, m.prev, m.w, m.h, int(math.Round(sx)), int(math.Round(sy))) > motionMaxResidual {
		m.dx, m.dy = 0, 0
		m.resets++
		return 0, 0
	}
	m.dx += sx
	m.dy += sy
	return int(math.Round(m.dx)), int(math.Round(m.dy))
}

// residual is the mean squared difference between cur(x, y) and
// prev(x+sx, y+sy) over a grid of every 8th pixel each way, over cur's
// variance on the same grid (0 for a flat frame).
func residual(cur, prev []uint8, w, h, sx, sy int) float64 {
	var e, s, s2, n float64
	for y := 0; y < h; y += 8 {
		ys := y + sy
		if ys < 0 || ys >= h {
			continue
		}
		for x := 0; x < w; x += 8 {
			xs := x + sx
			if xs < 0 || xs >= w {
				continue
			}
			c := float64(cur[y*w+x])
			d := c - float64(prev[ys*w+xs])
			e += d * d
			s += c
			s2 += c * c
			n++
		}
	}
	if n == 0 {
		return math.Inf(1)
	}
	v := s2/n - (s/n)*(s/n)
	if v < 1 {
		return 0
	}
	return e / n / v
}

// profiles writes the mean of each row of the w×h plane pix into row and
// of each column into col, each less its own mean. The sums are exact
// integers, added eight pixels at a time in 16-bit lanes (as frameSum
// does): the columns' in lanes carried into 32-bit sums every laneFrames
// rows, the row's in lanes folded every 128 words (two pixels of 255 a
// lane per word); a quarter of adding them one by one, for the same
// profiles.
func profiles(pix []uint8, w, h int, row, col []float64) {
	words := w / 8
	lanes := make([]uint64, 2*words)
	cs := make([]uint32, w)
	carry := func() {
		for j := range words {
			e, o := lanes[2*j], lanes[2*j+1]
			c := cs[8*j : 8*j+8]
			for k := range 4 {
				c[2*k] += uint32(e >> (16 * k) & 0xffff)
				c[2*k+1] += uint32(o >> (16 * k) & 0xffff)
			}
		}
		clear(lanes)
	}
	since := 0
	for y := range h {
		r := pix[y*w : (y+1)*w]
		a, p := lanes, r[:8*words]
		var s uint32
		var acc uint64
		n := 0
		for len(p) >= 8 && len(a) >= 2 {
			x := binary.LittleEndian.Uint64(p)
			e, o := x&laneMask, x>>8&laneMask
			a[0] += e
			a[1] += o
			acc += e + o
			if n++; n == 128 {
				s += laneTotal(acc)
				acc, n = 0, 0
			}
			p, a = p[8:], a[2:]
		}
		s += laneTotal(acc)
		for x, v := range r[8*words:] {
			s += uint32(v)
			cs[8*words+x] += uint32(v)
		}
		row[y] = float64(s) / float64(w)
		if since++; since == laneFrames {
			carry()
			since = 0
		}
	}
	carry()
	n := float64(h)
	for x, s := range cs {
		col[x] = float64(s) / n
	}
	center(row)
	center(col)
}

// laneTotal is the sum of the four 16-bit lanes of v.
func laneTotal(v uint64) uint32 {
	return uint32(v&0xffff) + uint32(v>>16&0xffff) + uint32(v>>32&0xffff) + uint32(v>>48)
}

func center(p []float64) {
	var s float64
	for _, v := range p {
		s += v
	}
	s /= float64(len(p))
	for i := range p {
		p[i] -= s
	}
}

// matchProfile returns the shift d, |d| ≤ m, for which cur[i] best
// matches prev[i+d] (least mean squared difference over the overlap),
// refined by a parabola through its neighbours, and that difference over
// cur's variance: 0 for a perfect match, about 2 for unrelated profiles.
// A flat profile (nothing to match) gives no shift and a perfect fit.
func matchProfile(cur, prev []float64, m int) (d, fit float64) {
	n := len(cur)
	var v float64
	for _, c := range cur {
		v += c * c
	}
	v /= float64(n)
	if v < 1e-3 || m < 1 {
		return 0, 0
	}
	cost := func(s int) float64 {
		lo, hi := max(0, -s), min(n, n-s)
		return squaredDistance(cur[lo:hi], prev[lo+s:hi+s]) / float64(hi-lo)
	}
	best, be := 0, cost(0)
	for s := -m; s <= m; s++ {
		if e := cost(s); e < be {
			best, be = s, e
		}
	}
	d = float64(best)
	if best > -m && best < m {
		a, c := cost(best-1), cost(best+1)
		if den := a - 2*be + c; den > 0 {
			d += max(-0.5, min(0.5, (a-c)/(2*den)))
		}
	}
	return d, be / v
}

// squaredDistance is the sum of (a[i]−b[i])² over a (len(b) ≥ len(a)),
// in four interleaved partial sums added at the end: one long chain of
// dependent additions waits on each addition's latency, four chains
// overlap (the match tries every shift up to a quarter of each side, about
// 2 M squared differences a 1080p frame: 1.5 ms of CPU with one chain,
// 0.9 ms with four, BenchmarkMatchProfile1080p).
// The order of the additions differs from a sum in index order only in
// the last bits of the result (TestSquaredDistance).
func squaredDistance(a, b []float64) float64 {
	b = b[:len(a)]
	var e0, e1, e2, e3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		t0, t1, t2, t3 := a[i]-b[i], a[i+1]-b[i+1], a[i+2]-b[i+2], a[i+3]-b[i+3]
		e0 += t0 * t0
		e1 += t1 * t1
		e2 += t2 * t2
		e3 += t3 * t3
	}
	for ; i < len(a); i++ {
		t := a[i] - b[i]
		e0 += t * t
	}
	return (e0 + e1) + (e2 + e3)
}

// projectAt is project with the pattern displaced by (dx, dy): each
// cell's amplitude is read from the pixels at (x−dx, y−dy), and a cell
// any of whose pixels would fall outside the frame is left out
// (ok[k] false, amp[k] 0).
func (l *layout) projectAt(pix []uint8, dx, dy int, amp []float64, ok []bool) {
	clear(amp)
	rowOK := l.rowOK
	for r := range rowOK {
		rowOK[r] = true
	}
	for y := 0; y < l.h; y++ {
		if ys := y - dy; ys < 0 || ys >= l.h {
			rowOK[l.rowCell[y]] = false
		}
	}
	for k := range ok {
		r, c := k/l.cols, k%l.cols
		ok[k] = rowOK[r] && l.colStart[c]-dx >= 0 && l.colStart[c+1]-dx <= l.w
	}
	for y := 0; y < l.h; y++ {
		rc := int(l.rowCell[y])
		if !rowOK[rc] {
			continue
		}
		par := int(l.rowCell[y] & 1)
		col := l.col[par]
		rf := [2]float32{l.rowBump[y], l.rowWave[y]}
		src := pix[(y-dy)*l.w : (y-dy+1)*l.w]
		a := amp[rc*l.cols:]
		okr := ok[rc*l.cols:]
		for c := range l.cols {
			if !okr[c] {
				continue
			}
			x0, x1 := l.colStart[c], l.colStart[c+1]
			cf := col[x0:x1]
			var acc float32
			for x, v := range src[x0-dx : x1-dx] {
				acc += cf[x] * float32(v)
			}
			a[c] += float64(rf[(c^par)&1] * acc)
		}
	}
	for k := range amp {
		if l.norm[k] > 0 {
			amp[k] /= l.norm[k]
		}
	}
}
