package watermark

import (
	"image"
	"math"

	"github.com/provenant/provenant/shared/imagex"
)

// A picture padded to a square, framed by a border or captured in a
// screenshot is smaller than its frame: on the frame's working plane the
// mark has a scale below 1, somewhere in the frame. Searching every scale
// from 0.5 to 1 like the crops would add 58 folds per window and raise the
// cost on unmarked pictures by a half. A cheap statistic comes first: the
// frame around such a picture is flat (padding, a border, a page
// background), so the rows and columns of the high-passed plane that carry
// almost no energy give the picture's box, and its short side over the
// plane's gives the scale. Only the scales around that estimate join the
// crop search, folded inside the box, with the same decode budget. A
// picture inside a busy frame (a screenshot of a page full of text) gives
// no box and is not searched below scale 1.

const (
	// frameFlat: a row or column is flat when its mean absolute high-pass
	// is under this fraction of the busiest rows' (90th percentile).
	frameFlat = 0.08
	// frameMargin: the box must leave at least this fraction of the
	// frame flat on one side, or the frame is the picture.
	frameMargin = 0.02
	// frameSpread: scales tried on each side of the estimate, in the
	// search's 1.2 % steps (the box edge is blurred by the resampling by
	// about a pixel of the working plane).
	frameSpread = 3
	// frameMinScale is the smallest scale searched (pictures down to half
	// their frame, with the estimate's spread).
	frameMinScale = 0.48
)

// planeLines is a working plane's row and column energies (lineEnergy)
// and the box their busy spans give (busySpan), ok false when an axis has
// none: what frameScales and captionScales both start from.
type planeLines struct {
	rowE, colE []float64
	box        [4]int
	ok         bool
}

// linesOf returns the planeLines of the w×h plane hp.
func linesOf(hp []float32, w, h int) planeLines {
	rowE, colE := lineEnergy(hp, w, h)
	y0, y1, okY := busySpan(rowE)
	x0, x1, okX := busySpan(colE)
	return planeLines{rowE: rowE, colE: colE, box: [4]int{x0, y0, x1, y1}, ok: okX && okY}
}

// frameScales returns the scales below 1 to add to the crop search and
// the picture's box on the w×h working plane of lines pl, ok false when
// the plane shows no flat frame around a picture.
func (s *scheme) frameScales(pl planeLines, w, h int) (scales []float64, box [4]int, ok bool) {
	if !pl.ok {
		return nil, box, false
	}
	b := pl.box
	if float64(b[2]-b[0]) > (1-frameMargin)*float64(w) && float64(b[3]-b[1]) > (1-frameMargin)*float64(h) {
		return nil, box, false
	}
	return scalesFor(b, w, h)
}

// scalesFor returns the scales around the one a picture filling box of
// the w×h plane has, ok false when none is below 1.
func scalesFor(box [4]int, w, h int) (scales []float64, b [4]int, ok bool) {
	est := float64(min(box[2]-box[0], box[3]-box[1])) / float64(min(w, h))
	for k := -frameSpread; k <= frameSpread; k++ {
		if sc := est * math.Pow(1.012, float64(k)); sc >= frameMinScale && sc < 0.995 {
			scales = append(scales, sc)
		}
	}
	if len(scales) == 0 {
		return nil, b, false
	}
	return scales, box, true
}

// A caption bar (a line of text on a plain band above or below the
// picture, or beside it) defeats frameScales: the text's rows are busy,
// so the busy span reaches the file's edge. But the band is cut off from
// the picture by the flat rows between the text and the picture, and its
// pixels are mostly plain background, which a photo's are not (grain and
// the mark itself). captionScales takes the longest run of busy rows (or
// columns) as the picture when what it leaves on either side is a narrow
// band of mostly flat pixels.

const (
	// captionMaxBand: the band cut off, on both ends together, is at most
	// this fraction of the axis.
	captionMaxBand = 0.25
	// captionMinFlat: each cut-off end strip has at least this fraction
	// of flat pixels (see flatFraction).
	captionMinFlat = 0.45
)

// captionScales is frameScales for a picture with a caption band along
// one side: the scales to add and the picture's box, ok false when the
// plane shows no such band.
func (s *scheme) captionScales(l *imagex.Luma, pl planeLines, w, h int) (scales []float64, box [4]int, ok bool) {
	if l == nil || !pl.ok {
		return nil, box, false
	}
	full := pl.box
	for axis, e := range [][]float64{pl.rowE, pl.colE} {
		lo, hi, ok := pictureRun(e)
		if !ok {
			continue
		}
		b := full
		b[1-axis], b[3-axis] = lo, hi
		// The strips cut off, in full-resolution pixels, must be plain.
		plain := true
		for _, strip := range [][2]int{{0, lo}, {hi, len(e)}} {
			if strip[1]-strip[0] < 1 {
				continue
			}
			sb := [4]int{0, 0, w, h}
			sb[1-axis], sb[3-axis] = strip[0], strip[1]
			if flatFraction(l, planeToPixels(sb, l, w, h)) < captionMinFlat {
				plain = false
			}
		}
		if plain {
			return scalesFor(b, w, h)
		}
	}
	return nil, box, false
}

// pictureRun returns the longest run of busy entries of e when what it
// leaves outside is between frameMargin and captionMaxBand of e.
func pictureRun(e []float64) (lo, hi int, ok bool) {
	for _, r := range busyRuns(e, 0) {
		if r[1]-r[0] > hi-lo {
			lo, hi = r[0], r[1]
		}
	}
	cut := float64(len(e)-(hi-lo)) / float64(len(e))
	return lo, hi, hi > lo && cut >= frameMargin && cut <= captionMaxBand
}

// lineEnergy returns the mean absolute value of each row and each column
// of the w×h plane hp.
func lineEnergy(hp []float32, w, h int) (rowE, colE []float64) {
	rowE, colE = make([]float64, h), make([]float64, w)
	for y := 0; y < h; y++ {
		var r float64
		for x, v := range hp[y*w : (y+1)*w] {
			a := math.Abs(float64(v))
			r += a
			colE[x] += a
		}
		rowE[y] = r / float64(w)
	}
	for x := range colE {
		colE[x] /= float64(h)
	}
	return rowE, colE
}

// frameRegionScale: a candidate found under this scale with a flat frame's
// scales in the search is the picture inside that frame (the frame's
// scales stop at 0.995, the refinements reach 0.6 % below 1).
const frameRegionScale = 0.99

// planeToPixels maps a box of the w×h working plane to l's pixels.
func planeToPixels(b [4]int, l *imagex.Luma, w, h int) image.Rectangle {
	if l == nil {
		return image.Rectangle{}
	}
	fx, fy := float64(l.Width)/float64(w), float64(l.Height)/float64(h)
	return image.Rect(int(math.Round(float64(b[0])*fx)), int(math.Round(float64(b[1])*fy)),
		int(math.Round(float64(b[2])*fx)), int(math.Round(float64(b[3])*fy))).Intersect(image.Rect(0, 0, l.Width, l.Height))
}

// busySpan returns the first and one past the last index whose energy is
// above frameFlat of the 90th percentile.
func busySpan(e []float64) (lo, hi int, ok bool) {
	if len(e) == 0 {
		return 0, 0, false
	}
	sorted := append([]float64(nil), e...)
	sortFloats(sorted)
	thr := frameFlat * sorted[len(sorted)*9/10]
	if thr <= 0 {
		return 0, 0, false
	}
	lo, hi = -1, -1
	for i, v := range e {
		if v > thr {
			if lo < 0 {
				lo = i
			}
			hi = i + 1
		}
	}
	return lo, hi, lo >= 0
}

// A phone screenshot frames the picture with interface (a status bar,
// a header, captions, icons), not a flat margin, and shows a 12 MP photo
// at 0.25–0.35 of its size: on the frame's working plane the picture's
// chips are about one working pixel, which the area average to the plane
// all but erases, and the interface's text rows hide the picture's box
// from frameScales. The picture is the longest run of rows that all carry
// detail (interface text comes in short lines separated by blank rows);
// within it, the columns that carry detail give its sides. The
// full-resolution luminance inside that box is then searched as a picture
// of its own (scale 1 and the crop search), at the resolution the
// screenshot kept.

const (
	// boxMaxArea: a box covering more of the plane than this is the
	// picture itself (the frame search above handles flat margins).
	boxMaxArea = 0.8
	// boxMinSide is the smallest side, in working pixels of the frame,
	// worth searching.
	boxMinSide = 32
)

// pictureBox returns the box of the picture inside a busy frame on the
// w×h high-passed plane, ok false when it is most of the plane or too
// small. The longest run of busy rows holds the picture (interface text
// comes in short lines separated by blank rows), but also whatever sits
// beside it (a browser page's sidebar of text, separated by a flat
// margin): each run of busy columns within those rows is a candidate, cut
// to its own longest run of busy rows (the sidebar's lines had joined the
// caption's below the picture). The candidate of largest area whose
// pixels in l are mostly not flat is the picture: a column of text on the
// page's background has runs of identical pixels between its strokes,
// which a photo, grain and mark, does not (on the working plane the two
// look alike: the lines' gaps are a pixel or two). Without l, or when no
// candidate passes, the largest. Along the columns, gaps shorter than boxBridge of the width
// do not split a run (a flat band inside the picture); rows are not
// bridged, since text lines are a line's gap apart.
func pictureBox(l *imagex.Luma, hp []float32, w, h int) (box [4]int, ok bool) {
	rows := func(x0, x1 int) []float64 {
		e := make([]float64, h)
		absRowMeans(e, hp, w, x0, x1)
		return e
	}
	runs := busyRuns(rows(0, w), 0)
	if len(runs) == 0 {
		return box, false
	}
	y0, y1 := runs[0][0], runs[0][1]
	for _, r := range runs {
		if r[1]-r[0] > y1-y0 {
			y0, y1 = r[0], r[1]
		}
	}
	if y1-y0 < boxMinSide {
		return box, false
	}
	colE := make([]float64, w)
	absColSums(colE, hp[y0*w:y1*w])
	best, bestPic := 0, 0
	var pic [4]int
	for _, c := range busyRuns(colE, int(boxBridge*float64(w))) {
		if c[1]-c[0] < boxMinSide {
			continue
		}
		for _, r := range busyRuns(rows(c[0], c[1]), 0) {
			a := (c[1] - c[0]) * (r[1] - r[0])
			if r[1]-r[0] < boxMinSide || a <= bestPic {
				continue
			}
			b := [4]int{c[0], r[0], c[1], r[1]}
			if a > best {
				best, box = a, b
			}
			if l != nil && flatFraction(l, planeToPixels(b, l, w, h)) < boxMaxFlat {
				bestPic, pic = a, b
			}
		}
	}
	if bestPic > 0 {
		best, box = bestPic, pic
	}
	if best == 0 || float64(best) > boxMaxArea*float64(w*h) {
		return [4]int{}, false
	}
	return box, true
}

// boxMaxFlat: a candidate box with at least this fraction of flat pixels
// (equal to their right and lower neighbours) is page or interface, not a
// picture. Lines of page text on a white background measure 0.90–0.91;
// unmarked development pictures 0.05–0.98, drawings of flat colour areas
// mostly 0.59–0.85 (0.3 missed those: the sidebar was taken instead).
const boxMaxFlat = 0.75

// flatFraction returns the fraction of pixels of r in l equal to their
// right and lower neighbours, over at most about 64 K samples.
func flatFraction(l *imagex.Luma, r image.Rectangle) float64 {
	r = r.Intersect(image.Rect(0, 0, l.Width-1, l.Height-1))
	if r.Empty() {
		return 1
	}
	step := max(1, int(math.Sqrt(float64(r.Dx()*r.Dy())/65536)))
	n := ((r.Dy() + step - 1) / step) * ((r.Dx() + step - 1) / step)
	return float64(countFlat(l.Pix, l.Stride, r, step)) / float64(n)
}

// boxBridge: a flat gap shorter than this fraction of the axis does not
// end a busy run (a browser page's margin between the picture and its
// sidebar is about 2.5 % of the page's width, less the blur of the
// resampling and the high-pass on each side).
const boxBridge = 0.008

// busyRuns returns the runs [lo, hi) of entries of e above frameFlat of
// its 90th percentile, bridging gaps of up to bridge entries.
func busyRuns(e []float64, bridge int) (runs [][2]int) {
	if len(e) == 0 {
		return nil
	}
	sorted := append([]float64(nil), e...)
	sortFloats(sorted)
	thr := frameFlat * sorted[len(sorted)*9/10]
	if thr <= 0 {
		return nil
	}
	for i, v := range e {
		if v <= thr {
			continue
		}
		if n := len(runs); n > 0 && i-runs[n-1][1] <= bridge {
			runs[n-1][1] = i + 1
			continue
		}
		runs = append(runs, [2]int{i, i + 1})
	}
	return runs
}

// detectInBox searches the full-resolution luminance inside pictureBox
// as a picture of its own: scale 1, then the crop search, without flips
// and turns, frames, rotations or aspect (at most 1 + maxDecodes decode
// attempts). The Detection is mapped back onto the frame's working plane.
func (s *scheme) detectInBox(l *imagex.Luma, hp []float32, w, h int) (Payload, Detection, bool) {
	if l == nil {
		return 0, Detection{}, false
	}
	b, ok := pictureBox(l, hp, w, h)
	if !ok {
		return 0, Detection{}, false
	}
	// Inside the box by a working pixel: its edges are blurred.
	fx, fy := float64(l.Width)/float64(w), float64(l.Height)/float64(h)
	X0, Y0 := int(math.Ceil(float64(b[0]+1)*fx)), int(math.Ceil(float64(b[1]+1)*fy))
	X1, Y1 := int(math.Floor(float64(b[2]-1)*fx)), int(math.Floor(float64(b[3]-1)*fy))
	if min(X1-X0, Y1-Y0) < MinExtractShortSide {
		return 0, Detection{}, false
	}
	sub := &imagex.Luma{Width: X1 - X0, Height: Y1 - Y0, Stride: l.Stride, Pix: l.Pix[Y0*l.Stride+X0:]}
	ww, wh := s.workDims(sub.Width, sub.Height)
	hp2 := s.highpass(resampleLuma(sub, ww, wh), ww, wh)
	v := newViews(s, sub, hp2, ww, wh)
	v.noDihedral = true
	// Without the alternative readings: their Detection would need this
	// stage's box mapping applied at the end of the search.
	v.alt = altOff
	p, d := s.decodeBest(v, s.syncChips(hp2, ww, []float64{1}, []float64{0}, 0, 0, ww, wh), 1)
	if !d.Found {
		p, d = s.decodeBest(v, s.searchViews(v, s.coarseScales, []float64{0}, s.refineTop, [4]int{0, 0, ww, wh}), s.maxDecodes)
	}
	// Frame plane x → full resolution x·fx → box plane (x·fx − X0)·kx.
	kx, ky := float64(ww)/float64(sub.Width), float64(wh)/float64(sub.Height)
	k := (kx*fx + ky*fy) / 2
	if d.Found {
		sc := d.Scale
		d.Scale = sc / k
		d.OffsetX -= float64(X0) * kx / sc
		d.OffsetY -= float64(Y0) * ky / sc
		d.WorkWidth, d.WorkHeight = w, h
		d.Region = planeToPixels(b, l, w, h)
	} else {
		d.Scale /= k
	}
	return p, d, true
}
