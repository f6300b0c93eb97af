package video

import (
	"math"
)

// The temporal mark (video mark version 2) carries the payload in the
// lowest spatial frequencies a frame has room for, the ones H.264 keeps at
// high quantisers, and in every frame, so that a re-encode's noise
// averages out over time while the mark does not.
//
// The frame is cut into cells, temporalRows along the short side and as
// many as the aspect ratio gives along the long side, placed relative to
// the frame's sides (a rescaled copy has the same cells). Each cell holds
// one smooth, zero-mean pattern: one period of a sine across the cell
// times half a period along it, zero on the cell's borders (no block
// edge), turned 90° from one cell to the next. The pattern's amplitude in
// the frame (the projection of the luminance on it) is quantised, every
// frame, to one of two interleaved lattices of step temporalStep (spread
// transform dither modulation): the lattice says the cell's coded bit. The
// host's own amplitude is not noise to the decoder: the embedder moves it
// onto the lattice whatever it is. A cell keeps its lattice point while
// the picture under it changes little (hysteresis), so the mark on a
// still shot is still.
//
// The extractor measures every cell's amplitude in every sampled frame,
// turns its distance to the two lattices into a soft value, sums the soft
// values of every cell and frame that carry the same coded bit, and only
// then decodes (Viterbi, then a CRC-32C): the soft combination of all the
// evidence before the error-correcting decode.
const (
	// temporalRows is the number of cells along the short side (30 px
	// cells at 540p, 60 px at 1080p).
	temporalRows = 18
	// temporalStep is the lattice step in luminance levels: the pattern's
	// peak moves by at most half of it (three quarters with hysteresis).
	temporalStep = 12.0
	// temporalHysteresis is how far, beyond half a step, the host may
	// drift from a cell's lattice point before the point moves.
	temporalHysteresis = temporalStep / 4
	// temporalMaxErrorRate is the largest fraction of coded bits whose
	// summed soft value may disagree with the decoded codeword: a decode
	// past it is refused even when its CRC matches (unmarked clips give
	// 66 to 88 of 306, 22–29 %; the marked clips of the robustness
	// table that decode, at most 24).
	temporalMaxErrorRate = 0.12
	// temporalMovedMaxErrorRate is that bound for the motion-compensated
	// reading (motion.go). Its evidence is mostly one keyframe's mark
	// read again and again, so its errors do not average out over the
	// frames: the two scrolling clips of the robustness table decode
	// their payload from it after CRF 35 with 55 and 52 of 306
	// disagreeing, where random evidence gives 66 to 88. The CRC-32C
	// stays what refuses a random decode (one attempt, made only on
	// clips that move, passes it once in 2³²), this bound a second
	// guard.
	temporalMovedMaxErrorRate = 0.20
)

// layout is the cell geometry and cell assignment of a w×h frame.
type layout struct {
	w, h, cols, rows int
	// Per column x (row y): the cell index along that axis, the half-
	// period bump sin(πu) and the full period sin(2πu) at the pixel's
	// centre, u its position in the cell.
	colCell, rowCell []int32
	colBump, colWave []float32
	rowBump, rowWave []float32
	// colStart[c] is the first column of cell column c (colStart[cols] =
	// w). A row's pattern is wave[par][x]·rowBump[y] +
	// bump[par][x]·rowWave[y], par the parity of the row's cell: the
	// columns' factors with the other factor zeroed in the cells turned
	// the other way.
	colStart   []int
	wave, bump [2][]float32
	// col[par] is wave[par]+bump[par]: a row's pattern, cell by cell,
	// is this column factor times the cell's row factor (rowBump[y]
	// where the column's cell has the row's parity, rowWave[y] where
	// not), so that the projection costs one multiply-add a pixel.
	col [2][]float32
	// ok and rowOK are projectAt's scratch (a layout serves one
	// goroutine).
	ok, rowOK []bool
	// Per cell: the pattern's energy, the coded bit, the dither offset.
	norm   []float64
	bit    []int32
	dither []float64
}

// newLayout returns the layout of a w×h frame; transposed frames (a
// portrait clip) get the same number of cells along their short side.
func newLayout(w, h int) *layout {
	l := &layout{w: w, h: h}
	short, long := min(w, h), max(w, h)
	nLong := max(1, int(math.Round(float64(temporalRows)*float64(long)/float64(short))))
	if w >= h {
		l.cols, l.rows = nLong, temporalRows
	} else {
		l.cols, l.rows = temporalRows, nLong
	}
	l.colCell, l.colBump, l.colWave = axis(w, l.cols)
	l.rowCell, l.rowBump, l.rowWave = axis(h, l.rows)
	l.colStart = make([]int, 0, l.cols+1)
	for x, c := range l.colCell {
		if x == 0 || c != l.colCell[x-1] {
			l.colStart = append(l.colStart, x)
		}
	}
	l.colStart = append(l.colStart, w)
	for par := range 2 {
		l.wave[par] = make([]float32, w)
		l.bump[par] = make([]float32, w)
		for x, c := range l.colCell {
			if int(c&1) == par {
				l.wave[par][x] = l.colWave[x]
			} else {
				l.bump[par][x] = l.colBump[x]
			}
		}
		l.col[par] = make([]float32, w)
		for x := range l.col[par] {
			l.col[par][x] = l.wave[par][x] + l.bump[par][x]
		}
	}
	n := l.cols * l.rows
	l.ok, l.rowOK = make([]bool, n), make([]bool, l.rows)
	l.norm = make([]float64, n)
	for y := 0; y < h; y++ {
		rc := int(l.rowCell[y]) * l.cols
		for x := 0; x < w; x++ {
			v := l.weight(x, y)
			l.norm[rc+int(l.colCell[x])] += float64(v * v)
		}
	}
	// The cells are dealt to the coded bits in a fixed pseudo-random
	// order (neighbouring cells carry unrelated bits, so a damaged region
	// spreads its errors over the code), and each gets a pseudo-random
	// dither (unmarked pictures give uniformly random soft values).
	rng := splitmix(0x7f4a7c159e3779b9 ^ uint64(l.cols)<<32 ^ uint64(l.rows))
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	for i := n - 1; i > 0; i-- {
		j := int(rng.next() % uint64(i+1))
		perm[i], perm[j] = perm[j], perm[i]
	}
	l.bit = make([]int32, n)
	l.dither = make([]float64, n)
	for i, k := range perm {
		l.bit[k] = int32(i % codedBits)
	}
	for k := range l.dither {
		l.dither[k] = temporalStep * float64(rng.next()>>11) / (1 << 53)
	}
	return l
}

// axis places n cells over size pixels.
func axis(size, n int) (cell []int32, bump, wave []float32) {
	cell = make([]int32, size)
	bump = make([]float32, size)
	wave = make([]float32, size)
	for x := range size {
		f := (float64(x) + 0.5) * float64(n) / float64(size)
		c := min(int(f), n-1)
		u := f - float64(c)
		cell[x] = int32(c)
		bump[x] = float32(math.Sin(math.Pi * u))
		wave[x] = float32(math.Sin(2 * math.Pi * u))
	}
	return cell, bump, wave
}

// weight is the pattern's value at pixel (x, y).
func (l *layout) weight(x, y int) float32 {
	if (l.colCell[x]+l.rowCell[y])&1 == 0 {
		return l.colWave[x] * l.rowBump[y]
	}
	return l.colBump[x] * l.rowWave[y]
}

// rowWeights writes the pattern's values along row y into wr.
func (l *layout) rowWeights(y int, wr []float32) {
	par := l.rowCell[y] & 1
	wv, bp := l.wave[par], l.bump[par]
	rb, rw := l.rowBump[y], l.rowWave[y]
	for x := range wr {
		wr[x] = wv[x]*rb + bp[x]*rw
	}
}

// project returns the pattern amplitude of every cell of the w×h plane
// pix (stride w) into amp.
func (l *layout) project(pix []uint8, amp []float64) {
	l.projectAt(pix, 0, 0, amp, l.ok)
}

// temporalEmbedder marks frames one after the other, keeping each cell's
// lattice point from frame to frame while the picture allows.
type temporalEmbedder struct {
	l      *layout
	coded  []uint8
	amp    []float64
	point  []float64
	placed bool
	delta  []float32
	// lost and free gather, per cell, the part of the move that black
	// and white clipped off (projected on the pattern) and the pattern's
	// energy over the pixels that took their move.
	lost, free []float64
}

func newTemporalEmbedder(w, h int, payload uint64) *temporalEmbedder {
	l := newLayout(w, h)
	n := l.cols * l.rows
	return &temporalEmbedder{l: l, coded: convEncode(messageBits(payload)),
		amp: make([]float64, n), point: make([]float64, n), delta: make([]float32, n),
		lost: make([]float64, n), free: make([]float64, n)}
}

// mark adds the mark to the w×h luminance plane pix in place.
func (e *temporalEmbedder) mark(pix []uint8) {
	l := e.l
	l.project(pix, e.amp)
	for k, p := range e.amp {
		off := l.dither[k] + float64(e.coded[l.bit[k]])*temporalStep/2
		q := off + temporalStep*math.Round((p-off)/temporalStep)
		if e.placed && math.Abs(p-e.point[k]) <= temporalStep/2+temporalHysteresis {
			q = e.point[k]
		}
		e.point[k] = q
		e.delta[k] = float32(q - p)
	}
	e.placed = true
	if !e.write(pix, true) {
		return
	}
	// Black and white clipped part of the move (a saturated picture):
	// the pixels that took it take the rest, up to a full step at the
	// pattern's peak, so the cell still reaches its lattice point.
	for k := range e.delta {
		e.delta[k] = 0
		if e.lost[k] != 0 && e.free[k] > 0 {
			e.delta[k] = float32(max(-temporalStep, min(temporalStep, e.lost[k]/e.free[k])))
		}
	}
	e.write(pix, false)
}

// write adds delta times the pattern to pix, clipped to [0, 255]. On the
// first pass it gathers lost and free and reports whether anything was
// clipped; on the second it leaves the pixels at black or white alone.
func (e *temporalEmbedder) write(pix []uint8, first bool) (clipped bool) {
	l := e.l
	if first {
		clear(e.lost)
		clear(e.free)
	}
	wr := make([]float32, l.w)
	for y := 0; y < l.h; y++ {
		l.rowWeights(y, wr)
		row := pix[y*l.w : (y+1)*l.w]
		base := int(l.rowCell[y]) * l.cols
		d := e.delta[base:]
		for c := range l.cols {
			x0, x1 := l.colStart[c], l.colStart[c+1]
			dc := d[c]
			if dc == 0 {
				continue
			}
			var lost, free float32
			for x, v := range row[x0:x1] {
				wgt := wr[x0+x]
				nv := float32(v) + dc*wgt + 0.5
				switch {
				case !first && (v == 0 || v == 255):
				case nv < 0:
					lost += (nv - 0.5) * wgt
					row[x0+x] = 0
				case nv >= 256:
					lost += (nv - 255.5) * wgt
					row[x0+x] = 255
				default:
					free += wgt * wgt
					row[x0+x] = uint8(nv)
				}
			}
			if first {
				e.lost[base+c] += float64(lost)
				e.free[base+c] += float64(free)
				clipped = clipped || lost != 0
			}
		}
	}
	return clipped
}

// temporalExtractor sums the soft evidence of frames, read in place
// (soft) and, following the clip's motion, with the pattern displaced by
// the motion since the reference frame (moved; motion.go).
type temporalExtractor struct {
	l      *layout
	amp    []float64
	soft   []float64
	frames int
	// motion follows the frames (nil: in-place reading only); moved sums
	// the displaced readings, in place where a frame has not moved
	// since its reference; displaced counts the frames read displaced,
	// followed the frames the motion reading took.
	motion    *motionTracker
	moved     []float64
	ok        []bool
	displaced int
	followed  int
	// early turns on the early exits (Extract's; off, every frame is
	// read both ways, as the robustness table does). confirmed is then
	// the first decode that found a payload before the end, in place
	// or along the motion: from there on nothing more is read.
	// rejected says the motion reading found no mark in its first
	// movedLookFrames frames and stopped there.
	early     bool
	confirmed temporalResult
	rejected  bool
}

// Early exits of the temporal reading (Extract). The sums are decoded
// (CRC and error bound as at the end) after 1, 2, 4, 8, … frames: a
// decode that finds the payload ends the reading of both marks' temporal
// evidence, since the answer is known. A handful of attempts, each held
// to its CRC-32C and its bound, keeps a random decode as unlikely as the
// one at the end (log₂ of the frames times it).
//
// The motion reading's evidence is the re-encode's keyframe's mark
// dragged along with the picture (motion.go), strongest on the frames
// right after it; so its first movedLookFrames frames show whether there
// is any: when their sum decodes to a codeword from which more than
// movedNoMarkErrors of the coded bits disagree, the motion reading stops
// there. That is 21 %, just past the motion reading's own bound (20 %,
// 61 bits): random evidence decodes with 66 to 88 disagreeing. Measured
// over the robustness table's clips and TestMotionGateSurvey's, the
// marked clips the motion reading recovers have decoded by then (most
// at the second frame, all by the fourth), and the motion sum only
// drifts from the codeword after the first frames, as the keyframe's
// mark fades. The test comes after 8 frames (it came after 12; the
// survey found the same answers at 8): on an unmarked clip every frame
// before it costs the motion tracking and a displaced projection, about
// 4 ms at 1080p, which the in-place reading alone does not pay.
const (
	movedLookFrames   = 8
	movedNoMarkErrors = 64
)

// checkpoint says whether the sums are decoded after the n-th frame.
func checkpoint(n int) bool { return n > 0 && n&(n-1) == 0 }

func newTemporalExtractor(w, h int) *temporalExtractor {
	l := newLayout(w, h)
	n := l.cols * l.rows
	return &temporalExtractor{l: l, amp: make([]float64, n), soft: make([]float64, codedBits),
		motion: newMotionTracker(w, h), moved: make([]float64, codedBits), ok: make([]bool, n)}
}

// done says the temporal reading has its answer: nothing more is read.
func (x *temporalExtractor) done() bool { return x.confirmed.found }

// add adds the evidence of one w×h luminance plane: for each cell,
// cos(2π(amplitude − dither)/step), +1 on the lattice of bit 0, −1 on
// that of bit 1; read in place, and displaced by the motion since the
// reference (follow).
func (x *temporalExtractor) add(pix []uint8) {
	if x.done() {
		return
	}
	x.l.project(pix, x.amp)
	x.sum(x.soft, nil)
	x.frames++
	if x.early && checkpoint(x.frames) {
		if r := decodeSoft(x.soft, temporalMaxErrorRate); r.found {
			x.confirm(r)
			return
		}
	}
	x.follow(pix, true)
}

// confirm ends the reading with r's payload.
func (x *temporalExtractor) confirm(r temporalResult) {
	r.frames, r.displaced = x.frames, x.displaced
	x.confirmed = r
}

// follow tracks the motion of one w×h luminance plane and adds its
// displaced evidence to the motion-compensated sum. inPlace says x.amp
// holds the plane's amplitudes read in place (add); without them a frame
// that has not moved since its reference adds nothing (the frames read
// in between the in-place ones: their evidence matters only where the
// picture moves).
func (x *temporalExtractor) follow(pix []uint8, inPlace bool) {
	if x.motion == nil || x.done() || x.rejected {
		return
	}
	x.followed++
	dx, dy := x.motion.add(pix)
	if dx == 0 && dy == 0 {
		if inPlace {
			x.sum(x.moved, nil)
		}
	} else {
		x.displaced++
		x.l.projectAt(pix, dx, dy, x.amp, x.ok)
		x.sum(x.moved, x.ok)
	}
	if x.early {
		x.checkMoved()
	}
}

// checkMoved is the motion reading's early exits after its followed-th
// frame: at a checkpoint, once some frame was read displaced, a decode
// of the motion sum that finds the payload confirms it; after
// movedLookFrames frames, a sum that has not decoded and is more than
// movedNoMarkErrors coded bits from its codeword stops the motion
// reading. (A sum with nothing displaced is the in-place evidence, which
// only the in-place bound may confirm; it is still looked at: a clip
// that has not moved by then has shown no dragged mark either.)
func (x *temporalExtractor) checkMoved() {
	look := x.followed == movedLookFrames
	if !look && (x.displaced == 0 || !checkpoint(x.followed)) {
		return
	}
	m := decodeSoft(x.moved, temporalMovedMaxErrorRate)
	switch {
	case m.found && x.displaced > 0:
		m.moved = true
		x.confirm(m)
	case look && m.errors > movedNoMarkErrors:
		x.rejected = true
	}
}

// sum adds the soft values of x.amp to soft, of the cells ok says (all
// when ok is nil).
func (x *temporalExtractor) sum(soft []float64, ok []bool) {
	for k, p := range x.amp {
		if ok == nil || ok[k] {
			soft[x.l.bit[k]] += math.Cos(2 * math.Pi * (p - x.l.dither[k]) / temporalStep)
		}
	}
}

// temporalResult is what the temporal decoder found.
type temporalResult struct {
	payload uint64
	found   bool
	// errors is the number of coded bits whose summed soft value
	// disagrees with the decoded codeword; agreement is the soft
	// correlation with it, from −1 to 1.
	errors    int
	agreement float64
	// z is the soft correlation with the codeword over the soft values'
	// root mean square: √codedBits when every value agrees equally.
	z float64
	// frames is the number of frames whose evidence was summed.
	frames int
	// moved says the answer came from the motion-compensated reading;
	// displaced is the number of frames it read displaced.
	moved     bool
	displaced int
	// rejected says the motion reading stopped early, finding no mark.
	rejected bool
}

// decode runs the Viterbi decoder on the evidence read in place and
// checks the CRC and the error rate; when that finds nothing, the payload
// an early decode confirmed answers, else, when some frame was read
// displaced and the motion reading was not stopped for lack of a mark,
// it decodes the motion-compensated evidence the same way. The result is
// the in-place reading's unless another one is found.
func (x *temporalExtractor) decode() temporalResult {
	if x.frames == 0 {
		return temporalResult{}
	}
	r := decodeSoft(x.soft, temporalMaxErrorRate)
	r.frames, r.displaced = x.frames, x.displaced
	if r.found {
		return r
	}
	if x.confirmed.found {
		return x.confirmed
	}
	if x.displaced == 0 || x.rejected {
		r.rejected = x.rejected
		return r
	}
	if m := decodeSoft(x.moved, temporalMovedMaxErrorRate); m.found {
		m.frames, m.displaced, m.moved = x.frames, x.displaced, true
		return m
	}
	return r
}

// decodeSoft decodes one sum of soft values, refused past maxErrorRate.
func decodeSoft(soft []float64, maxErrorRate float64) temporalResult {
	msg := viterbi(soft)
	p, ok := parseMessage(msg)
	cw := convEncode(msg)
	var r temporalResult
	var dot, abs, sq float64
	for i, s := range soft {
		sign := 1.0
		if cw[i] == 1 {
			sign = -1
		}
		if s*sign < 0 {
			r.errors++
		}
		dot += s * sign
		abs += math.Abs(s)
		sq += s * s
	}
	if abs > 0 {
		r.agreement = dot / abs
		r.z = dot / math.Sqrt(sq)
	}
	if ok && float64(r.errors) <= maxErrorRate*codedBits {
		r.payload, r.found = p, true
	}
	return r
}

type splitmix uint64

func (s *splitmix) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
