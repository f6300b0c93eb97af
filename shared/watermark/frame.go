package watermark

import (
	"math"
	"sort"
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

// frameScales returns the scales below 1 to add to the crop search and
// the picture's box on the working plane, ok false when the plane shows
// no flat frame around a picture.
func (s *scheme) frameScales(hp []float32, w, h int) (scales []float64, box [4]int, ok bool) {
	rowE := make([]float64, h)
	colE := make([]float64, w)
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
	y0, y1, okY := busySpan(rowE)
	x0, x1, okX := busySpan(colE)
	if !okX || !okY {
		return nil, box, false
	}
	bw, bh := x1-x0, y1-y0
	if float64(bw) > (1-frameMargin)*float64(w) && float64(bh) > (1-frameMargin)*float64(h) {
		return nil, box, false
	}
	est := float64(min(bw, bh)) / float64(min(w, h))
	for k := -frameSpread; k <= frameSpread; k++ {
		if sc := est * math.Pow(1.012, float64(k)); sc >= frameMinScale && sc < 0.995 {
			scales = append(scales, sc)
		}
	}
	if len(scales) == 0 {
		return nil, box, false
	}
	return scales, [4]int{x0, y0, x1, y1}, true
}

// busySpan returns the first and one past the last index whose energy is
// above frameFlat of the 90th percentile.
func busySpan(e []float64) (lo, hi int, ok bool) {
	if len(e) == 0 {
		return 0, 0, false
	}
	sorted := append([]float64(nil), e...)
	sort.Float64s(sorted)
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
