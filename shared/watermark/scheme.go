package watermark

import (
	"math"
	"math/bits"

	"github.com/provenant/provenant/shared/imagex"
)

// scheme is one frozen watermark format. Every field is set by newScheme
// and never written afterwards; the tables are shared read-only.
type scheme struct {
	version uint8
	// sibling is the other format version whose messages this scheme's
	// decoder accepts (0: none). Format 3 is format 2's signal (same key,
	// pilot, chips and code) under another perceptual mask, so the search
	// for one finds the other and runs once.
	sibling uint8
	// darkBoost: Embed raises the mark's amplitude on dark smooth regions
	// (format 3, darkBoostMask).
	darkBoost bool
	workShort int // short side of the canonical working image
	minShort  int // Embed refuses images whose short side is smaller
	tile      int // tile side T in working pixels (power of two)
	chip      int // chip side C in working pixels
	grid      int // chips per tile side, T/C
	hpRadius  int // decoder high-pass: x - box(x, hpRadius)

	pn     []float32    // per chip: keyed ±1 carrier
	bitOf  []int16      // per chip: coded bit index, or -1 for a pilot chip
	pilotF []complex128 // conjugate spectrum of the T×T pilot pattern
	fft    *fft2
	// Chip-level copies for the scale search: the pilot on the G×G chip grid.
	pilotChipF []complex128
	fftChip    *fft2
	pilotChips []int // indices of the pilot chips
	// dihedralPilotF holds the conjugate pilot spectra under the eight
	// flips and quarter turns (index 0 is pilotF); nil when the format
	// does not test them.
	dihedralPilotF [][]complex128
	// dihedralChipF holds the same on the G×G chip grid, for the crop
	// search (flip or quarter turn combined with a crop); nil when the
	// format does not test them.
	dihedralChipF [][]complex128
	// dihedralChipQ[j] is dihedralChipF[2j] + i·dihedralChipF[2j+1]
	// (sync2Dihedral correlates with two transforms per inverse FFT).
	dihedralChipQ [][]complex128
	// frames: the crop search also looks for a picture smaller than its
	// frame (scales 0.5 … 0.99, see frame.go).
	frames bool
	// aspect: after the crop search, look for a picture whose long axis
	// was rescaled on its own (aspect.go).
	aspect bool
	// latticeFFT transforms the squares of the rotation search's gate
	// (lattice.go); nil when the format has no gate.
	latticeFFT *fft2

	// scales the decoder folds at: 1 is the embedding scale; larger values
	// undo a crop (the crop's short side became the new short side).
	coarseScales  []float64
	refine        []float64 // multiplicative refinements around the best coarse scales
	refineTop     int       // how many coarse scales are refined
	angles        []float64 // rotation search (degrees), tried only if angle 0 fails
	rotScales     []float64 // coarse scales tried with each of those angles
	wideAngles    []float64 // wider rotations, searched at the scale a same-aspect crop implies
	refineAngles  []float64 // angle refinements around the best rotated candidates
	maxRotDecodes int       // decode attempts in the rotation search
	rotRefineTop  int       // rotated coarse candidates refined
	centres       []float64 // coarse windows' centres along the long side (fractions)
	coarseHalf    int       // half-size of the coarse-pass window, working px
	informed      bool      // Embed reallocates energy between bits (informedResidual)
	// A candidate whose first reading fails is read again: readFold from
	// the other plane (the working plane's fold after the resampled grid),
	// readWeighted with every block weighted by the mark it kept
	// (combine.go).
	readFold, readWeighted bool
	// readWhitened adds the whitened reading (whiten.go), last.
	readWhitened bool
	// warp: when every other stage failed, fit a smooth displacement field
	// (a straightened print's residual perspective, warp.go).
	warp        bool
	pixelRefine bool    // rank refined candidates at pixel resolution (T×T FFT)
	localNorm   int     // if > 0, divide the high-pass by its local power over this radius
	maxDecodes  int     // decode attempts per scheme (bounds the false-positive rate)
	minPilotZ   float64 // pilot peak z-score below which no decode is attempted
}

// splitmix64 is the keyed generator for carriers; the key is public (anyone
// may detect), it only has to be fixed per version.
type splitmix64 uint64

func (s *splitmix64) next() uint64 {
	*s += 0x9E3779B97F4A7C15
	z := uint64(*s)
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

type schemeParams struct {
	version                          uint8
	seed                             uint64
	workShort, minShort              int
	tile, chip, hpRadius             int
	pilotFrac                        float64
	coarse, refine                   []float64
	dihedral, frames, aspect         bool
	latticeGate                      bool
	refineTop, coarseHalf, localNorm int
	informed, pixelRefine            bool
	readFold, readWeighted           bool
	readWhitened                     bool
	warp                             bool
	angles, rotScales, refineAngles  []float64
	wideAngles                       []float64
	centres                          []float64
	maxRotDecodes, rotRefineTop      int
	maxDecodes                       int
	minPilotZ                        float64
}

func newScheme(p schemeParams) *scheme {
	s := &scheme{
		version: p.version, workShort: p.workShort, minShort: p.minShort,
		tile: p.tile, chip: p.chip, grid: p.tile / p.chip, hpRadius: p.hpRadius,
		frames: p.frames, aspect: p.aspect, coarseScales: p.coarse, refine: p.refine, refineTop: p.refineTop, coarseHalf: p.coarseHalf, localNorm: p.localNorm, informed: p.informed, readFold: p.readFold, readWeighted: p.readWeighted, readWhitened: p.readWhitened, warp: p.warp, pixelRefine: p.pixelRefine,
		angles: p.angles, wideAngles: p.wideAngles, rotScales: p.rotScales, refineAngles: p.refineAngles, maxRotDecodes: p.maxRotDecodes, rotRefineTop: p.rotRefineTop, centres: p.centres, maxDecodes: p.maxDecodes, minPilotZ: p.minPilotZ,
	}
	n := s.grid * s.grid
	rng := splitmix64(p.seed)
	s.pn = make([]float32, n)
	for i := range s.pn {
		if rng.next()&1 == 1 {
			s.pn[i] = 1
		} else {
			s.pn[i] = -1
		}
	}
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := int(rng.next() % uint64(i+1))
		perm[i], perm[j] = perm[j], perm[i]
	}
	nPilot := int(float64(n) * p.pilotFrac)
	s.bitOf = make([]int16, n)
	for i, c := range perm {
		if i < nPilot {
			s.bitOf[c] = -1
		} else {
			s.bitOf[c] = int16((i - nPilot) % codedBits)
		}
	}
	T := s.tile
	s.pilotF = make([]complex128, T*T)
	for y := 0; y < T; y++ {
		for x := 0; x < T; x++ {
			k := (y/s.chip)*s.grid + x/s.chip
			if s.bitOf[k] < 0 {
				s.pilotF[y*T+x] = complex(float64(s.pn[k]), 0)
			}
		}
	}
	s.fft = newFFT2(T)
	s.fft.transform(s.pilotF, false)
	for i, v := range s.pilotF {
		s.pilotF[i] = complex(real(v), -imag(v))
	}
	s.pilotChipF = make([]complex128, n)
	for k, b := range s.bitOf {
		if b < 0 {
			s.pilotChipF[k] = complex(float64(s.pn[k]), 0)
			s.pilotChips = append(s.pilotChips, k)
		}
	}
	s.fftChip = newFFT2(s.grid)
	if p.latticeGate {
		s.latticeFFT = newFFT2(latticeN)
	}
	if p.dihedral {
		s.dihedralPilotF = s.dihedralPilots()
		s.dihedralChipF = s.dihedralChipPilots()
		for d := 0; d < numDihedral; d += 2 {
			q := make([]complex128, len(s.dihedralChipF[d]))
			for i := range q {
				q[i] = s.dihedralChipF[d][i] + complex(0, 1)*s.dihedralChipF[d+1][i]
			}
			s.dihedralChipQ = append(s.dihedralChipQ, q)
		}
	}
	s.fftChip.transform(s.pilotChipF, false)
	for i, v := range s.pilotChipF {
		s.pilotChipF[i] = complex(real(v), -imag(v))
	}
	return s
}

// knownSchemes holds the formats Extract searches for, newest first, and
// markOnly the formats Embed can write whose search is another's (format
// 3, read by format 2's decoder). The tables are built once by
// buildSchemes and only read afterwards.
var knownSchemes, markOnly = buildSchemes()

func buildSchemes() (searched, marked []*scheme) {
	v2 := newScheme(paramsV2())
	v2.sibling = 3
	v3 := *v2 // the same read-only tables
	v3.version, v3.sibling, v3.darkBoost = 3, 2, true
	return []*scheme{v2, newScheme(paramsV1())}, []*scheme{&v3}
}

// schemes returns the known formats, newest first; callers must not modify
// them.
func schemes() []*scheme { return knownSchemes }

func paramsV1() schemeParams {
	return schemeParams{
		version: 1, seed: 0x70726f76656e6101, // "provena\x01"
		workShort: 256, minShort: 256,
		tile: 64, chip: 2, hpRadius: 2,
		pilotFrac: 0.25,
		coarse:    []float64{1}, refine: []float64{1},
		maxDecodes: 2, minPilotZ: 5,
	}
}

func paramsV2() schemeParams {
	// Coarse scales 1.0 … 2.54 (1.2 % steps, then 2 %): undoes crops down to
	// 40 % of the short side.
	var coarse []float64
	for sc := 1.0; sc < 1.53; sc *= 1.012 {
		coarse = append(coarse, sc)
	}
	// Above 1.52, 2 % steps up to 2.54: a window of the same size spans
	// fewer embedding pixels as the scale grows (160/scale), so a scale
	// error drifts the chip grid less across it; 14 folds instead of 23.
	for sc := coarse[len(coarse)-1] * 1.02; sc < 2.55; sc *= 1.02 {
		coarse = append(coarse, sc)
	}
	rotScales := coarse[:9] // 1.0 … 1.1
	return schemeParams{
		version: 2, seed: 0x70726f76656e6102, // "provena\x02"
		// Pictures with a short side of at least MinEmbedShortSide are
		// marked on the same 256-px canonical grid (bench/README.md, "Small
		// pictures", has the table this minimum was chosen from).
		workShort: 256, minShort: MinEmbedShortSide,
		tile: 64, chip: 2, hpRadius: 1,
		pilotFrac: 0.4,
		coarse:    coarse, coarseHalf: 80,
		dihedral: true, frames: true, aspect: true, latticeGate: true,
		refine:      []float64{0.995, 1, 1.005},
		pixelRefine: true,
		refineTop:   3, localNorm: 2, informed: true,
		readFold: true, readWeighted: true, readWhitened: true, warp: true,
		angles:        []float64{-2, -1, 1, 2},
		wideAngles:    []float64{-10, -9, -8, -7, -6, -5, -4, -3, 3, 4, 5, 6, 7, 8, 9, 10},
		rotScales:     rotScales,
		refineAngles:  []float64{-0.5, 0.5},
		maxRotDecodes: 2, rotRefineTop: 2,
		// The rotation search needs both windows too: one central window
		// lost 4 of the 16 hard-subset rotations.
		centres: []float64{0.25, 0.75},
		// Unmarked images peak at z ≤ 5.4 (median 4.2 over the 94
		// development images); candidates under 6 are not worth a decode.
		maxDecodes: 3, minPilotZ: 6,
	}
}

// workDims returns the working size for a w×h image: the short side becomes
// workShort and the aspect ratio is kept.
func (s *scheme) workDims(w, h int) (int, int) {
	short := min(w, h)
	f := float64(s.workShort) / float64(short)
	ww := max(1, int(math.Round(float64(w)*f)))
	wh := max(1, int(math.Round(float64(h)*f)))
	return ww, wh
}

// chipSigns returns the per-chip ±1 values of the tile for codeword cw
// (coded bits 0/1).
func (s *scheme) chipSigns(cw []uint8) []float32 {
	out := make([]float32, len(s.pn))
	for k, b := range s.bitOf {
		v := s.pn[k]
		if b >= 0 && cw[b] == 0 {
			v = -v
		}
		out[k] = v
	}
	return out
}

// highpass returns x - box(x), divided by its local power when localNorm is
// set, clipped at ±3 RMS so that strong edges do not dominate the
// correlations.
func (s *scheme) highpass(work []float32, w, h int) []float32 {
	hp, _ := s.highpassQuiet(work, w, h, false)
	return hp
}

// highpassQuiet is highpass; with count it also returns the fraction of
// quiet pixels the rotation search's gate needs (quietShare), from the
// local power it computes anyway.
func (s *scheme) highpassQuiet(work []float32, w, h int, count bool) ([]float32, float64) {
	b := boxBlur(work, w, h, s.hpRadius)
	for i, v := range work {
		b[i] = v - b[i]
	}
	return s.normaliseHP(b, work, w, h, count)
}

// normaliseHP divides the high-passed plane b (in place) by its local
// power when localNorm is set and clips it at 3 RMS; with count it also
// returns quietShare of the working plane work.
func (s *scheme) normaliseHP(b, work []float32, w, h int, count bool) ([]float32, float64) {
	var quiet float64
	ss := sumSquares(b)
	if s.localNorm > 0 {
		sq := squares(b)
		loc := boxBlur(sq, w, h, s.localNorm)
		// Divide by the local power, not the local RMS: a pixel's weight
		// in the correlations then falls as the host's variance around it
		// grows (the matched-filter weighting for a mark of roughly even
		// amplitude in noise of varying power), so flat regions, where the
		// mark is nearly all there is, outweigh texture and text strokes.
		// Dividing by the RMS weighed them alike: on the development set
		// that left dense text undecodable and 30–60 bit errors on cropped
		// textured photos. The floor is the larger of 1 % of the mean power
		// and 1 level², about the power of the mark alone on a flat region:
		// a region quieter than that has lost its mark (a JPEG block reduced
		// to its DC term) and must not outweigh the rest.
		floor := max(float32(ss/float64(len(b)+1))*0.01, 1)
		if count {
			quiet = quietShare(work, loc, floor)
		}
		for i, v := range b {
			b[i] = v / (loc[i] + floor)
		}
		ss = sumSquares(b)
	}
	clip3RMS(b, ss)
	return b, quiet
}

// squares returns the squares of b's values.
func squares(b []float32) []float32 {
	sq := make([]float32, len(b))
	for i, v := range b {
		sq[i] = v * v
	}
	return sq
}

// clip3RMS clips b (in place) at 3 times the RMS that its sum of squares
// ss gives.
func clip3RMS(b []float32, ss float64) {
	c := float32(3 * math.Sqrt(ss/float64(len(b)+1)))
	for i, v := range b {
		if v > c {
			b[i] = c
		} else if v < -c {
			b[i] = -c
		}
	}
}

// fold sums the w×h plane into one T×T tile, mapping decoder pixel x to
// embedding coordinate x/scale. Only the window [x0,x1)×[y0,y1) is read.
func (s *scheme) fold(hp []float32, w int, scale float64, x0, y0, x1, y1 int) []float64 {
	return s.foldPhase(hp, w, scale, 0, 0, x0, y0, x1, y1)
}

// foldPhase is fold with the tile grid shifted by (px, py) tile pixels
// (sub-pixel phases for the final alignment).
func (s *scheme) foldPhase(hp []float32, w int, scale, px, py float64, x0, y0, x1, y1 int) []float64 {
	return s.foldPhaseTo(make([]float64, s.tile*s.tile), hp, w, scale, px, py, x0, y0, x1, y1)
}

// foldPhaseTo is foldPhase into acc (T² values, overwritten).
func (s *scheme) foldPhaseTo(acc []float64, hp []float32, w int, scale, px, py float64, x0, y0, x1, y1 int) []float64 {
	T := s.tile
	acc = acc[:T*T]
	clear(acc)
	tx := make([]int, x1-x0)
	for x := x0; x < x1; x++ {
		tx[x-x0] = int((float64(x)+0.5)/scale+px) % T
	}
	ty := make([]int, max(y1-y0, 0))
	for y := y0; y < y1; y++ {
		ty[y-y0] = int((float64(y)+0.5)/scale+py) % T
	}
	foldRows(acc, T, hp, w, x0, y0, tx, ty)
	return acc
}

// foldRot is foldPhase for a plane rotated by angle degrees: decoder pixel
// (x, y) maps to tile coordinates R(angle)·(x, y)/scale + (px, py).
func (s *scheme) foldRot(hp []float32, w int, scale, angle, px, py float64, x0, y0, x1, y1 int) []float64 {
	return s.foldRotTo(make([]float64, s.tile*s.tile), hp, w, scale, angle, px, py, x0, y0, x1, y1)
}

// foldRotTo is foldRot into acc (T² values, overwritten).
func (s *scheme) foldRotTo(acc []float64, hp []float32, w int, scale, angle, px, py float64, x0, y0, x1, y1 int) []float64 {
	if angle == 0 {
		return s.foldPhaseTo(acc, hp, w, scale, px, py, x0, y0, x1, y1)
	}
	T := s.tile
	acc = acc[:T*T]
	clear(acc)
	r := newRotWalk(T, scale, angle)
	m := int64(T - 1) // T is a power of two
	for y := y0; y < y1; y++ {
		ux, uy := r.start(x0, y, px, py)
		src := hp[y*w+x0 : y*w+x1]
		dux, duy := r.dux, r.duy
		for _, v := range src {
			acc[int((uy>>fixBits)&m)*T+int((ux>>fixBits)&m)] += float64(v)
			ux += dux
			uy += duy
		}
	}
	return acc
}

// fixBits is the number of fraction bits of the folds' fixed-point
// coordinates.
const (
	fixBits = 32
	fixOne  = 1 << fixBits
)

// rotWalk walks the rows of a plane in the rotated folds' fixed-point tile
// coordinates (fixBits fraction bits): an integer add per pixel instead of
// a float add whose latency chains the loop (rotated folds are most of the
// search's cost on an unmarked picture); the drift over a row is under
// 10⁻⁶ pixel.
type rotWalk struct {
	cs, ss, bias float64
	dux, duy     int64 // one pixel to the right
}

// newRotWalk is the walk for a plane scaled by 1/scale and rotated by
// angle degrees, over tiles of T pixels.
func newRotWalk(T int, scale, angle float64) rotWalk {
	sin, cos := math.Sincos(angle * math.Pi / 180)
	cs, ss := cos/scale, sin/scale
	// The bias keeps coordinates positive, so that truncation is a floor.
	return rotWalk{cs: cs, ss: ss, bias: float64(64 * T),
		dux: int64(math.Round(cs * fixOne)), duy: int64(math.Round(-ss * fixOne))}
}

// start is where the centre of pixel (x, y) falls, shifted by (px, py).
func (r rotWalk) start(x, y int, px, py float64) (ux, uy int64) {
	fx, fy := float64(x)+0.5, float64(y)+0.5
	return int64((r.ss*fy + r.cs*fx + px + r.bias) * fixOne), int64((r.cs*fy - r.ss*fx + py + r.bias) * fixOne)
}

// foldChips folds the window like foldRot at phase 0 but sums straight into
// the G×G chip bins.
func (s *scheme) foldChips(hp []float32, w int, scale, angle float64, x0, y0, x1, y1 int) []float64 {
	return s.foldChipsTo(make([]float64, 2*s.grid*s.grid), hp, w, scale, angle, x0, y0, x1, y1)
}

// foldChipsTo is foldChips into both (2·G² values, overwritten): the
// result is its first half. The search reuses both from fold to fold
// (chipScratch): the same sums, without a fresh allocation per fold.
func (s *scheme) foldChipsTo(both []float64, hp []float32, w int, scale, angle float64, x0, y0, x1, y1 int) []float64 {
	T, C, G := s.tile, s.chip, s.grid
	// Neighbouring pixels mostly fall into the same chip: even and odd
	// pixels go to separate accumulators, so consecutive adds do not wait
	// for each other; the two are summed at the end.
	both = both[:2*G*G]
	clear(both)
	acc, odd := both[:G*G], both[G*G:]
	if angle == 0 {
		cx := make([]int32, x1-x0)
		for x := x0; x < x1; x++ {
			cx[x-x0] = int32((int((float64(x)+0.5)/scale) % T) / C)
		}
		for y := y0; y < y1; y++ {
			cy := (int((float64(y)+0.5)/scale) % T) / C
			row, rowOdd := acc[cy*G:(cy+1)*G], odd[cy*G:(cy+1)*G]
			src := hp[y*w+x0 : y*w+x1]
			if len(row) == 0 || len(rowOdd) == 0 {
				continue
			}
			// cx values are below G, a power of two: the masks keep them
			// and prove the scatter in bounds.
			rm, om := len(row)-1, len(rowOdd)-1
			cx := cx[:len(src)]
			for len(src) >= 2 && len(cx) >= 2 {
				row[int(cx[0])&rm] += float64(src[0])
				rowOdd[int(cx[1])&om] += float64(src[1])
				src, cx = src[2:], cx[2:]
			}
			if len(src) == 1 && len(cx) == 1 {
				row[int(cx[0])&rm] += float64(src[0])
			}
		}
		return addInto(acc, odd)
	}
	// Fixed point as in foldRot; the chip of a coordinate is its integer
	// part shifted by log₂ C, modulo G. The pixels are walked by
	// reslicing in pairs: that drops the bounds checks on the source,
	// which the WebAssembly build pays for at every pixel. (Masking the
	// bin index to drop the scatter's checks too was slower natively.)
	r := newRotWalk(T, scale, angle)
	sh, gm := fixBits+bits.TrailingZeros(uint(C)), int64(G-1)
	dux, duy := r.dux, r.duy
	for y := y0; y < y1; y++ {
		ux, uy := r.start(x0, y, 0, 0)
		src := hp[y*w+x0 : y*w+x1]
		for len(src) >= 2 {
			acc[int((uy>>sh)&gm)*G+int((ux>>sh)&gm)] += float64(src[0])
			ux += dux
			uy += duy
			odd[int((uy>>sh)&gm)*G+int((ux>>sh)&gm)] += float64(src[1])
			ux += dux
			uy += duy
			src = src[2:]
		}
		if len(src) == 1 {
			acc[int((uy>>sh)&gm)*G+int((ux>>sh)&gm)] += float64(src[0])
		}
	}
	return addInto(acc, odd)
}

// addInto adds b to a element-wise and returns a.
func addInto(a, b []float64) []float64 {
	for i, v := range b {
		a[i] += v
	}
	return a
}

func countZero(v []float64) (n int) {
	for _, x := range v {
		if x == 0 {
			n++
		}
	}
	return n
}

// summedArea returns the summed-area table of the window [x0,x1)×[y0,y1)
// of hp: (x1-x0+1)×(y1-y0+1) values, entry (x, y) holding the sum of the
// window's pixels above and left of it.
func summedArea(hp []float32, w, x0, y0, x1, y1 int) []float64 {
	nw, nh := x1-x0, y1-y0
	sat := make([]float64, (nw+1)*(nh+1))
	for y := 0; y < nh; y++ {
		prev, cur := sat[y*(nw+1):(y+1)*(nw+1)], sat[(y+1)*(nw+1):(y+2)*(nw+1)]
		var run float64
		for x, v := range hp[(y0+y)*w+x0 : (y0+y)*w+x1] {
			run += float64(v)
			cur[x+1] = prev[x+1] + run
		}
	}
	return sat
}

// chipRuns splits [lo, hi) into the runs of consecutive pixels that fall
// into the same chip at this scale (angle 0): run k is
// [lo+bounds[k], lo+bounds[k+1]) and lands in chip bins[k].
func (s *scheme) chipRuns(scale float64, lo, hi int) (bounds, bins []int) {
	T, C := s.tile, s.chip
	// A run spans about C·scale pixels: room for all of them at once.
	n := 2
	if hi > lo {
		n += int(float64(hi-lo) / (float64(C) * scale))
	}
	bounds, bins = make([]int, 0, n+1), make([]int, 0, n)
	prev := -1
	if T&(T-1) != 0 || C&(C-1) != 0 || lo < 0 || !(scale > 0) {
		for x := lo; x < hi; x++ {
			if c := (int((float64(x)+0.5)/scale) % T) / C; c != prev {
				bounds, bins, prev = append(bounds, x-lo), append(bins, c), c
			}
		}
		return append(bounds, hi-lo), bins
	}
	// Powers of two and a coordinate that is not negative: the modulo
	// and the division are a mask and a shift, the same values without
	// the signed division's checks (a runtime call in WebAssembly).
	shift := bits.TrailingZeros(uint(C))
	for x := lo; x < hi; x++ {
		if c := (int((float64(x)+0.5)/scale) & (T - 1)) >> shift; c != prev {
			bounds, bins, prev = append(bounds, x-lo), append(bins, c), c
		}
	}
	return append(bounds, hi-lo), bins
}

// foldChipsSAT is foldChips at angle 0 computed from the window's
// summed-area table: every chip-sized rectangle of pixels is four lookups
// instead of one add per pixel (the same sums up to rounding).
func (s *scheme) foldChipsSAT(sat []float64, scale float64, x0, y0, x1, y1 int) []float64 {
	return s.foldChipsSATTo(make([]float64, s.grid*s.grid), sat, scale, x0, y0, x1, y1)
}

// foldChipsSATTo is foldChipsSAT into acc (G² values, overwritten).
func (s *scheme) foldChipsSATTo(acc, sat []float64, scale float64, x0, y0, x1, y1 int) []float64 {
	G := s.grid
	acc = acc[:G*G]
	clear(acc)
	xb, bx := s.chipRuns(scale, x0, x1)
	yb, by := s.chipRuns(scale, y0, y1)
	satFold(acc, G, sat, x1-x0+1, xb, bx, yb, by)
	return acc
}

// syncResult is one candidate alignment of the folded tile.
type syncResult struct {
	pixel bool // dx, dy are in pixels (else in chips)
	scale float64
	angle float64 // degrees

	// d is the flip or quarter turn the examined picture shows relative
	// to the signed one; the other fields then refer to the plane turned
	// back by d's inverse.
	d      dihedral
	dx, dy int
	px, py float64 // sub-pixel phase of the fold (align)
	z      float64
	acc    []float64
}

// sync2 finds, for two folded tiles at once (packed as the real and
// imaginary parts of one complex FFT; the pilot is real, so the two
// correlations come back separated), the cyclic offset that best aligns each
// with the pilot, and the peak's z-score over all T² offsets.
func (s *scheme) sync2(a, b []float64) (r [2]syncResult) {
	return s.sync2With(s.tile, s.fft, s.pilotF, a, b)
}

// sync2With is sync2 on an n×n grid with the given transform and conjugate
// pilot spectrum.
func (s *scheme) sync2With(T int, f *fft2, pilotF []complex128, a, b []float64) (r [2]syncResult) {
	return s.sync2WithBuf(T, f, pilotF, a, b, make([]complex128, T*T))
}

// sync2WithBuf is sync2With with buf (T² values, overwritten) as the
// transform's work space.
func (s *scheme) sync2WithBuf(T int, f *fft2, pilotF []complex128, a, b []float64, buf []complex128) (r [2]syncResult) {
	buf = buf[:T*T]
	for i, v := range a {
		var im float64
		if b != nil {
			im = b[i]
		}
		buf[i] = complex(v, im)
	}
	f.transform(buf, false)
	mulInto(buf, buf, pilotF)
	f.transform(buf, true)
	z, idx := peakZ2(buf)
	for k := 0; k < 2; k++ {
		r[k] = syncResult{dx: idx[k] % T, dy: idx[k] / T, z: z[k]}
	}
	r[0].acc, r[1].acc = a, b
	return r
}

// syncAll folds hp at every scale in scales over the window and returns the
// alignments, two scales per FFT.
func (s *scheme) syncAll(hp []float32, w int, scales []float64, x0, y0, x1, y1 int) []syncResult {
	out := make([]syncResult, 0, len(scales))
	for i := 0; i < len(scales); i += 2 {
		a := s.fold(hp, w, scales[i], x0, y0, x1, y1)
		var b []float64
		if i+1 < len(scales) {
			b = s.fold(hp, w, scales[i+1], x0, y0, x1, y1)
		}
		r := s.sync2(a, b)
		r[0].scale = scales[i]
		out = append(out, r[0])
		if b != nil {
			r[1].scale = scales[i+1]
			out = append(out, r[1])
		}
	}
	return out
}

// syncPixels folds hp at every (scale, angle) over the window and aligns
// each fold with the pilot at pixel resolution (T×T FFT), two per FFT.
func (s *scheme) syncPixels(hp []float32, w int, scales, angles []float64, x0, y0, x1, y1 int) []syncResult {
	out := make([]syncResult, 0, len(scales))
	// The folds are not kept: one set of buffers serves every pair.
	n := s.tile * s.tile
	folds := make([]float64, 2*n)
	buf := make([]complex128, n)
	for i := 0; i < len(scales); i += 2 {
		a := s.foldRotTo(folds[:n:n], hp, w, scales[i], angles[i], 0, 0, x0, y0, x1, y1)
		var b []float64
		if i+1 < len(scales) {
			b = s.foldRotTo(folds[n:], hp, w, scales[i+1], angles[i+1], 0, 0, x0, y0, x1, y1)
		}
		r := s.sync2WithBuf(s.tile, s.fft, s.pilotF, a, b, buf)
		for k := 0; k < 2 && i+k < len(scales); k++ {
			r[k].pixel, r[k].scale, r[k].angle, r[k].acc = true, scales[i+k], angles[i+k], nil
			out = append(out, r[k])
		}
	}
	return out
}

// soft reads the per-coded-bit soft values from an aligned folded tile.
func (s *scheme) soft(acc []float64, dx, dy int) []float64 {
	soft := make([]float64, codedBits)
	for k, b := range s.bitOf {
		if b < 0 {
			continue
		}
		soft[b] += s.chipSum(acc, k, dx, dy) * float64(s.pn[k])
	}
	return soft
}

// syncChips folds hp at every scale over the window and aligns each fold
// with the pilot on the chip grid (offsets in chips), two scales per FFT.
func (s *scheme) syncChips(hp []float32, w int, scales, angles []float64, x0, y0, x1, y1 int) []syncResult {
	return s.syncChipsD(hp, w, scales, angles, x0, y0, x1, y1, false)
}

// syncChipsD is syncChips; with allD each fold is also tested under the
// seven flips and quarter turns (sync2Dihedral) and keeps its best.
func (s *scheme) syncChipsD(hp []float32, w int, scales, angles []float64, x0, y0, x1, y1 int, allD bool) []syncResult {
	out := make([]syncResult, 0, len(scales))
	// Unrotated folds of the same window share one summed-area table.
	var sat []float64
	if n := countZero(angles); n >= 2 {
		sat = summedArea(hp, w, x0, y0, x1, y1)
	}
	// The folds are not kept (candidates carry no chip-level tile), so
	// one set of buffers serves every pair of scales.
	sc := newChipScratch(s.grid)
	fold := func(k, slot int) []float64 {
		if sat != nil && angles[k] == 0 {
			return s.foldChipsSATTo(sc.fold[slot], sat, scales[k], x0, y0, x1, y1)
		}
		return s.foldChipsTo(sc.fold[slot], hp, w, scales[k], angles[k], x0, y0, x1, y1)
	}
	for i := 0; i < len(scales); i += 2 {
		a := fold(i, 0)
		var b []float64
		if i+1 < len(scales) {
			b = fold(i+1, 1)
		}
		var r [2]syncResult
		if allD {
			r = s.sync2DihedralBuf(a, b, sc)
		} else {
			r = s.sync2WithBuf(s.grid, s.fftChip, s.pilotChipF, a, b, sc.z)
		}
		r[0].scale, r[0].angle, r[0].acc = scales[i], angles[i], nil
		out = append(out, r[0])
		if b != nil {
			r[1].scale, r[1].angle, r[1].acc = scales[i+1], angles[i+1], nil
			out = append(out, r[1])
		}
	}
	return out
}

// pilotNear returns the largest pilot correlation of the folded tile at the
// offsets within one pixel of (dx, dy), and that offset.
func (s *scheme) pilotNear(acc []float64, dx, dy int) (best float64, bx, by int) {
	T := s.tile
	best = math.Inf(-1)
	for ddy := -1; ddy <= 1; ddy++ {
		for ddx := -1; ddx <= 1; ddx++ {
			x, y := (dx+ddx+T)%T, (dy+ddy+T)%T
			if v := s.pilotCorr(acc, x, y); v > best {
				best, bx, by = v, x, y
			}
		}
	}
	return best, bx, by
}

// pilotCorr is the pilot's correlation with the folded tile at pixel offset
// (dx, dy).
func (s *scheme) pilotCorr(acc []float64, dx, dy int) float64 {
	var sum float64
	for _, k := range s.pilotChips {
		sum += s.chipSum(acc, k, dx, dy) * float64(s.pn[k])
	}
	return sum
}

// align turns a chip-level candidate into a pixel-level one: it folds the
// whole image at four half-pixel phases and keeps the phase and pixel offset
// with the largest pilot correlation.
func (s *scheme) align(hp []float32, w, h int, c syncResult) syncResult {
	T, C := s.tile, s.chip
	best := c
	bestCorr := math.Inf(-1)
	// Pixel offsets to try around the candidate.
	bx, by, lo, hi := c.dx*C, c.dy*C, -1, C
	if c.pixel {
		bx, by, lo, hi = c.dx, c.dy, -1, 1
	}
	for _, ph := range [4][2]float64{{0, 0}, {0.5, 0}, {0, 0.5}, {0.5, 0.5}} {
		acc := s.foldRot(hp, w, c.scale, c.angle, ph[0], ph[1], 0, 0, w, h)
		for ddy := lo; ddy <= hi; ddy++ {
			for ddx := lo; ddx <= hi; ddx++ {
				dx, dy := (bx+ddx+T)%T, (by+ddy+T)%T
				if v := s.pilotCorr(acc, dx, dy); v > bestCorr {
					bestCorr = v
					best = syncResult{pixel: true, scale: c.scale, angle: c.angle, d: c.d, dx: dx, dy: dy, px: ph[0], py: ph[1], z: c.z, acc: acc}
				}
			}
		}
	}
	return best
}

// detect runs the bounded synchronisation search on a working image and
// decodes the best candidates. First scale 1 alone (one decode); then
// 2×len(coarse) folds of two windows, refineTop×len(refine) folds of the
// whole image and at most maxDecodes decodes; only if that finds nothing,
// the same over the rotation angles, with at most maxRotDecodes more
// decodes, and last the aspect search (at most maxAspectDecodes). With the
// flip and quarter-turn test, at most 2+maxDecodes+maxRotDecodes+
// maxAspectDecodes decodes in all.
func (s *scheme) detect(l *imagex.Luma, work []float32, w, h int, g *foldGate) (Payload, Detection) {
	if len(s.coarseScales) == 1 && g != nil && g.spec != nil && g.tile == s.tile {
		// A newer format's search already folded its high-pass at scale 1:
		// this format's pilot is tested on that fold first (one inverse
		// FFT), and its own high-pass, fold and decodes are computed only
		// if the pilot shows there. Its gate is the same z-score.
		if z := s.pilotZ(g.spec); z < s.minPilotZ {
			return 0, Detection{Strength: z, Scale: 1}
		}
	}
	hp, quiet := s.highpassQuiet(work, w, h, s.latticeFFT != nil)
	if len(s.coarseScales) == 1 {
		cands := s.syncAll(hp, w, s.coarseScales, 0, 0, w, h)
		return s.decodeBest(newViews(s, l, hp, w, h), cands, s.maxDecodes)
	}
	// Fast path: the image was not cropped (scale 1, angle 0), one decode.
	v := newViews(s, l, hp, w, h)
	v.work = work
	// The alternative readings of every stage's candidates come after
	// the last stage: a mark the first readings find anywhere in the
	// search keeps the Detection it always had (an unrotated crop
	// candidate read another way can check with a rotated picture's
	// rougher alignment).
	v.alt = altDefer
	if p, d := s.decodeBest(v, s.syncChips(hp, w, []float64{1}, []float64{0}, 0, 0, w, h), 1); d.Found {
		return p, d
	}
	// Flipped or quarter-turned: tested on one fold, one decode at most.
	if s.dihedralPilotF != nil {
		if p, d, ok := s.detectDihedral(hp, w, h, g); ok && d.Found {
			return p, d
		}
	}
	scales, box := s.coarseScales, [4]int{0, 0, w, h}
	if s.frames {
		pl := linesOf(hp, w, h)
		fs, b, ok := s.frameScales(pl, w, h)
		// A caption band's text rows are busy: when the band is tall
		// enough to leave flat rows beyond its text, the frame's box
		// takes the text in and its scales are the picture's and the
		// band's together. The caption's box inside it is the picture's;
		// its scales join the frame's.
		if cs, cb, cok := s.captionScales(l, pl, w, h); cok && (!ok || takenIn(cb, b, w, h)) {
			fs, b, ok = append(fs[:len(fs):len(fs)], cs...), cb, true
		}
		if ok {
			scales, box = append(scales[:len(scales):len(scales)], fs...), b
		}
	}
	cands := s.searchViews(v, scales, []float64{0}, s.refineTop, box)
	seeds := cands
	p, d := s.decodeBest(v, cands, s.maxDecodes)
	if d.Found {
		// Found below scale 1 inside a flat frame: the frame's box is
		// where the picture is.
		if len(scales) > len(s.coarseScales) && d.Scale < frameRegionScale {
			d.Region = planeToPixels(box, l, w, h)
		}
		return p, d
	}
	// A picture inside a busy frame (a phone screenshot), searched at the
	// resolution the frame kept.
	if s.frames {
		if bp, bd, ok := s.detectInBox(l, hp, w, h); ok {
			if bd.Found {
				return bp, bd
			}
			if bd.Strength > d.Strength {
				p, d = bp, bd
			}
		}
	}
	if len(s.angles) > 0 && s.rotationShows(quiet, hp, w, h) {
		rs, ra := s.rotationPairs(w, h)
		rc := s.searchPairs(v, rs, ra, s.rotRefineTop, [4]int{0, 0, w, h})
		seeds = append(seeds[:len(seeds):len(seeds)], rc...)
		rp, rd := s.decodeBest(v, rc, s.maxRotDecodes)
		if rd.Found {
			return rp, rd
		}
		if rd.Strength > d.Strength {
			p, d = rp, rd
		}
	}
	// A changed aspect ratio comes last: a rotated and cropped picture
	// also shows a pilot peak at a scale per axis (decodable, with many
	// bit errors), but only the rotation search gets its alignment right.
	if s.aspect {
		if ap, ad, ok := s.detectAspect(l, hp, w, h); ok && ad.Found {
			return ap, ad
		}
	}
	if lp, ld, ok := s.decodeLater(v.later); ok {
		return lp, ld
	}
	// Last, a residual perspective (warp.go). Its z-score is not reported
	// for an unmarked picture: the Strength stays the similarity search's.
	if s.warp {
		if wp, wd, ok := s.detectWarp(v, seeds); ok {
			return wp, wd
		}
	}
	return p, d
}

// captionTakenIn: a frame's box took a caption band's text in when the
// caption's box inside it is shorter by more than this fraction of the
// plane along an axis. (A frame's box and the caption's of a plain border
// differ by a row or two; a 20 % band's text adds 13 % of the plane.)
const captionTakenIn = 0.05

// takenIn reports whether the frame's box b (of a w×h plane) took in a
// band beside the caption's box cb (captionTakenIn). Both come from the
// same planeLines, so cb, the busy box with one axis narrowed to its
// longest busy run, always lies within b, the busy box.
func takenIn(cb, b [4]int, w, h int) bool {
	dw, dh := (b[2]-b[0])-(cb[2]-cb[0]), (b[3]-b[1])-(cb[3]-cb[1])
	return float64(dw) > captionTakenIn*float64(w) || float64(dh) > captionTakenIn*float64(h)
}

// rotationPairs lists the (scale, angle) pairs of the rotation search:
// every rotScale at the small angles (±1°, ±2°: rotated, then cropped by
// up to 10 %), and at the wide angles (±3° … ±5°, a straightened horizon)
// only the scales around the one a rotation cropped to the largest
// upright rectangle of the same aspect gives, cos a + |sin a|·(long side /
// short side), ±1 step of 1.2 % (each wide angle costs three rotated
// folds per window, the bulk of the search's added cost).
func (s *scheme) rotationPairs(w, h int) (scales, angles []float64) {
	for _, a := range s.angles {
		for _, sc := range s.rotScales {
			scales, angles = append(scales, sc), append(angles, a)
		}
	}
	ratio := float64(max(w, h)) / float64(min(w, h))
	for _, a := range s.wideAngles {
		sin, cos := math.Sincos(a * math.Pi / 180)
		k := cos + math.Abs(sin)*ratio
		// Past ±5° the steps around k are left out (two folds per window
		// instead of four; the refinement's ±0.5 % still applies).
		for i := -1; i <= 1; i++ {
			if i != 0 && math.Abs(a) > 5 {
				continue
			}
			scales, angles = append(scales, k*math.Pow(1.012, float64(i))), append(angles, a)
		}
		// The rotation that keeps the canvas (black corners) keeps scale 1.
		scales, angles = append(scales, 1), append(angles, a)
	}
	return scales, angles
}

// search is the two-stage synchronisation search: every (scale, angle) on
// the coarse windows at chip resolution, then the refineTop best refined in
// scale (and angle, when rotated) on the whole image.
//
// Scales below 1 at angle 0 are folded inside box (x0, y0, x1, y1 of the
// working plane: where the picture is in its frame).
func (s *scheme) search(hp []float32, w, h int, scales, angles []float64, refineTop int, box [4]int) []syncResult {
	return s.searchViews(newViews(s, nil, hp, w, h), scales, angles, refineTop, box)
}

// searchViews is search on the examined picture's views (candidates under
// a flip or quarter turn are refined on the plane turned back).
func (s *scheme) searchViews(v *views, scales, angles []float64, refineTop int, box [4]int) []syncResult {
	var ps, pa []float64
	for _, a := range angles {
		for _, sc := range scales {
			ps, pa = append(ps, sc), append(pa, a)
		}
	}
	return s.searchPairs(v, ps, pa, refineTop, box)
}

// searchPairs is search over the (scale, angle) pairs given. Unrotated
// folds are tested under every flip and quarter turn when the format
// does (dihedralChipF).
func (s *scheme) searchPairs(v *views, scales, angles []float64, refineTop int, box [4]int) []syncResult {
	hp, w, h := v.hp, v.w, v.h
	allD := s.dihedralChipF != nil && !v.noDihedral
	var cs, ca, small, ws, wa []float64
	for i, a := range angles {
		sc := scales[i]
		switch {
		case sc < 1 && a == 0:
			small = append(small, sc)
		case math.Abs(a) > 2.5:
			ws, wa = append(ws, sc), append(wa, a)
		default:
			cs, ca = append(cs, sc), append(ca, a)
		}
	}
	// Two coarse windows, centred at a quarter and three quarters of the
	// long side, so that one flat or clipped region cannot hide the mark.
	var coarse []syncResult
	window := func(f float64, half int) (x0, y0, x1, y1 int) {
		cx, cy := w/2, h/2
		if w >= h {
			cx = int(f * float64(w))
		} else {
			cy = int(f * float64(h))
		}
		return max(0, cx-half), max(0, cy-half), min(w, cx+half), min(h, cy+half)
	}
	for _, f := range s.centres {
		x0, y0, x1, y1 := window(f, s.coarseHalf)
		coarse = append(coarse, s.syncChipsD(hp, w, cs, ca, x0, y0, x1, y1, allD && countZero(ca) == len(ca))...)
	}
	// Wide rotations (±3° … ±5°) fold the two windows too: the central
	// window alone missed a −5° rotation of a photo whose centre is dense
	// texture (`Elephants`: found at z 11.7, 27 bit errors, from the side
	// windows).
	if len(ws) > 0 {
		for _, f := range s.centres {
			x0, y0, x1, y1 := window(f, s.coarseHalf)
			coarse = append(coarse, s.syncChips(hp, w, ws, wa, x0, y0, x1, y1)...)
		}
	}
	// Scales below 1 (the picture smaller than its frame) fold two
	// windows inside the picture's box, shrunk with the scale: the same
	// span of the embedding grid, so the same tolerance to a scale error.
	// Two neighbouring scales share a window and an FFT.
	if len(small) > 0 {
		bx0, by0, bx1, by1 := box[0], box[1], box[2], box[3]
		bw, bh := bx1-bx0, by1-by0
		for i := 0; i < len(small); i += 2 {
			pair := small[i:min(i+2, len(small))]
			half := max(int(float64(s.coarseHalf)*pair[0]), s.tile/2)
			for _, f := range s.centres {
				cx, cy := bx0+bw/2, by0+bh/2
				if bw >= bh {
					cx = bx0 + int(f*float64(bw))
				} else {
					cy = by0 + int(f*float64(bh))
				}
				x0, y0, x1, y1 := max(bx0, cx-half), max(by0, cy-half), min(bx1, cx+half), min(by1, cy+half)
				coarse = append(coarse, s.syncChipsD(hp, w, pair, make([]float64, len(pair)), x0, y0, x1, y1, allD)...)
			}
		}
	}
	sortBy(len(coarse), func(i, j int) bool { return coarse[i].z > coarse[j].z }, func(i, j int) { coarse[i], coarse[j] = coarse[j], coarse[i] })
	// Keep distinct (scale, angle, transform) triples only.
	seen := map[[3]float64]bool{}
	uniq := coarse[:0:0]
	for _, c := range coarse {
		k := [3]float64{c.scale, c.angle, float64(c.d)}
		if !seen[k] {
			seen[k] = true
			uniq = append(uniq, c)
		}
	}
	coarse = uniq
	// The picture's own orientation keeps its refineTop best: testing eight
	// transforms per fold raises the best noise peaks, which took a weak
	// true candidate's place among the refined ones (a 75 % crop of the
	// densest texture, `Elephants`, was lost). The other transforms get
	// their own refineTop best.
	var top []syncResult
	nId, nD := 0, 0
	for _, c := range coarse {
		if c.d == 0 && nId < refineTop {
			top, nId = append(top, c), nId+1
		} else if c.d != 0 && nD < refineTop {
			top, nD = append(top, c), nD+1
		}
	}
	// Refine per transform, on the plane turned back.
	var cands []syncResult
	for d := dihedral(0); d < numDihedral; d++ {
		var rs, ra []float64
		for _, c := range top {
			if c.d != d {
				continue
			}
			for _, r := range s.refine {
				rs, ra = append(rs, c.scale*r), append(ra, c.angle)
			}
			if c.angle != 0 {
				for _, da := range s.refineAngles {
					rs, ra = append(rs, c.scale), append(ra, c.angle+da)
				}
			}
		}
		if len(rs) == 0 {
			continue
		}
		o := v.get(d)
		var cs []syncResult
		if s.pixelRefine {
			cs = s.syncPixels(o.hp, o.w, rs, ra, 0, 0, o.w, o.h)
		} else {
			cs = s.syncChips(o.hp, o.w, rs, ra, 0, 0, o.w, o.h)
		}
		for i := range cs {
			cs[i].d = d
		}
		cands = append(cands, cs...)
	}
	sortBy(len(cands), func(i, j int) bool { return cands[i].z > cands[j].z }, func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	return cands
}

// reading is an alternative reading of a candidate whose first reading
// failed, with the Detection it gives if it checks.
type reading struct {
	read func() []float64
	det  Detection
}

// altMode says when decodeBest tries its candidates' alternative readings.
type altMode uint8

const (
	// altNow: after the first readings of the call's candidates.
	altNow altMode = iota
	// altDefer: left in views.later for the caller, which tries them
	// after every stage of the search (detect).
	altDefer
	// altOff: never.
	altOff
)

// decodeLater tries alternative readings in order and returns the first
// that checks.
func (s *scheme) decodeLater(later []reading) (Payload, Detection, bool) {
	for _, r := range later {
		if p, ver, errs, ok := s.decodeSoft(r.read()); ok {
			r.det.BitErrors, r.det.Version = errs, int(ver)
			return p, r.det, true
		}
	}
	return 0, Detection{}, false
}

// decodeBest aligns and decodes up to maxDecodes distinct candidates, best
// first, and returns the first whose CRC and version check.
func (s *scheme) decodeBest(v *views, cands []syncResult, maxDecodes int) (Payload, Detection) {
	best := Detection{Strength: cands[0].z, Scale: cands[0].scale}
	tried := map[[5]int]bool{}
	attempts := 0
	var later []reading
	for _, c := range cands {
		if attempts >= maxDecodes || c.z < s.minPilotZ {
			break
		}
		// Neighbouring scales often agree on the offset: decode each
		// (scale bucket, angle, offset) once.
		key := [5]int{int(math.Round(math.Log(c.scale) * 200)), int(math.Round(c.angle * 4)), c.dx, c.dy, int(c.d)}
		if tried[key] {
			continue
		}
		tried[key] = true
		attempts++
		o := v.get(c.d)
		hp, w, h := o.hp, o.w, o.h
		l := v.luma(c.d)
		switch {
		case c.scale != 1 || c.angle != 0:
			// fineScale searches ±1 pixel and aligns the phase itself; a
			// chip-level offset needs turning into pixels first.
			if !c.pixel {
				c = s.align(hp, w, h, c)
			}
			c = s.fineScale(hp, w, h, c)
		case c.acc == nil:
			c = s.align(hp, w, h, c)
		}
		// The readings of the aligned candidate. Unrotated candidates off
		// the plain grid are read first from the full-resolution luminance
		// resampled onto the embedding grid (regrid.go), the others from
		// the working plane's fold. With the alternative readings on, the
		// other of those two follows, and last the blocks' evidence
		// weighted by the mark each kept (combine.go), from both planes
		// when there are two. The alternatives are tried only once every
		// candidate's first reading has failed, so wherever a first
		// reading checks, the Detection is the one it always was (a
		// weaker candidate read another way might check too, with a
		// rougher alignment). Each reading is one more CRC check, counted
		// in the false-positive bound (package documentation).
		folded := func() []float64 { return s.soft(c.acc, c.dx, c.dy) }
		weighted := func() []float64 { return s.weightedSoft(hp, w, h, c.scale, c.angle, c.px, c.py, c.dx, c.dy) }
		first := folded
		var alt []func() []float64
		if l != nil && c.angle == 0 && (c.scale != 1 || c.px != 0 || c.py != 0) {
			if g, ok := s.regridPlane(l, w, h, c.scale, c.scale, c.dx, c.dy, c.px, c.py); ok {
				first = func() []float64 { return s.soft(g.acc, g.dx, g.dy) }
				if s.readFold {
					// Neither plane is better everywhere: at crops to
					// 40–50 % (an embedding pixel is 2–2.5 working
					// pixels) the fold had 6 bit errors against 14 and
					// 40 against 71 on one photo, 16 against 9 and 42
					// against 21 on another.
					alt = append(alt, folded)
				}
				if s.readWeighted {
					fw := weighted
					weighted = func() []float64 {
						return addUnit(fw(), s.weightedSoft(g.hp, g.w, g.h, 1, 0, g.px, g.py, g.dx, g.dy))
					}
				}
			}
		}
		if s.readWeighted {
			alt = append(alt, weighted)
		}
		if s.readWhitened && v.work != nil {
			d := c.d
			alt = append(alt, func() []float64 {
				wp := v.whitened(d)
				if wp == nil {
					return make([]float64, codedBits)
				}
				return s.whitenedSoft(wp, w, h, c.scale, c.angle, c.px, c.py, c.dx, c.dy)
			})
		}
		det := Detection{Found: true, Version: int(s.version), Strength: c.z, CodedBits: codedBits, Scale: c.scale, Angle: c.angle,
			OffsetX: c.px - float64(c.dx), OffsetY: c.py - float64(c.dy), WorkWidth: w, WorkHeight: h, Period: s.tile}
		det.Quarter, det.Flipped = c.d.turns()
		if p, ver, errs, ok := s.decodeSoft(first()); ok {
			det.BitErrors, det.Version = errs, int(ver)
			return p, det
		}
		for _, read := range alt {
			later = append(later, reading{read: read, det: det})
		}
	}
	switch v.alt {
	case altDefer:
		v.later = append(v.later, later...)
	case altNow:
		if p, d, ok := s.decodeLater(later); ok {
			return p, d
		}
	}
	return 0, best
}
