package localsig

import (
	"math"
	"sort"
)

// Outcome is what the comparison concluded.
type Outcome int

// Outcomes, from "cannot tell" to "another picture".
const (
	// Unknown: too few blocks of the signed picture lie inside the
	// examined picture to tell.
	Unknown Outcome = iota
	// Same: every compared block matches and the examined picture shows
	// the whole signed picture (re-encoded or resized).
	Same
	// Crop: every compared block matches; the examined picture shows part
	// of the signed picture (Region).
	Crop
	// Edited: most compared blocks match, some do not (Changed).
	Edited
	// Mismatch: most compared blocks do not match: the examined picture
	// is not the signed picture.
	Mismatch
)

var outcomeNames = [...]string{"unknown", "same", "crop", "edited", "mismatch"}

func (o Outcome) String() string {
	if o < 0 || int(o) >= len(outcomeNames) {
		return "unknown"
	}
	return outcomeNames[o]
}

// Scoring thresholds (docs/verification.md, "Local signatures").
const (
	// MinCompared is the fewest compared blocks an answer needs.
	MinCompared = 4
	// MeanTolerance is the largest block-mean difference, in luminance
	// levels after the global gain/offset fit, of a matching block.
	MeanTolerance = 14
	// SignTolerance is the largest weighted fraction of disagreeing DCT
	// signs of a matching block, counted only when the examined block has
	// structure (AC energy at least SignMinEnergy).
	SignTolerance = 0.30
	// SignMinEnergy is the examined block's AC energy (sub-cell-mean DCT
	// norm, levels) under which its signs are noise and not compared.
	SignMinEnergy = 6.0
	// DetailMin is the signed block's detail under which a loss of
	// detail is not counted (flat blocks have only noise and the mark to
	// lose, which JPEG 50 removes).
	DetailMin = 4.0
	// DetailLoss is the largest loss of detail, in log2 units relative to
	// the median over the compared blocks, of a matching block (0.8: 57 %
	// of the detail the rest of the picture kept; JPEG 50 and resizing
	// moved no textured block of the development images by more than 0.3,
	// a blurred region moves by 0.9 to 1.6).
	DetailLoss = 0.8
	// EditedMax is the largest fraction of changed blocks called Edited;
	// above it the picture is a Mismatch.
	EditedMax = 0.5
	// FullCover is the fraction of each side of the signed picture the
	// examined picture must show to count as the whole picture.
	FullCover = 0.97
)

// Region is a rectangle of the signed picture, as fractions of its width
// and height.
type Region struct{ X, Y, W, H float64 }

// Result is the comparison of a probe with a grid.
type Result struct {
	Outcome Outcome
	// Compared and ChangedCount count the blocks compared and found changed.
	Compared, ChangedCount int
	// Changed flags the grid's blocks (row-major) found changed; blocks
	// not compared are false.
	Changed []bool
	// Region is the part of the signed picture the examined picture shows.
	Region Region
}

// Compare measures every block of g that lies inside the examined picture
// under the probe's alignment, for each whole-period translation the tiled
// watermark leaves open, keeps the translation with the most matching
// blocks, and classifies the result.
func Compare(g *Grid, p *Probe) Result {
	if g == nil || p == nil || p.Plane == nil || p.Plane.Width <= 0 || p.Plane.Height <= 0 ||
		p.Align.WorkWidth <= 0 || p.Align.WorkHeight <= 0 || !(p.Align.Scale > 0) || len(g.Blocks) != g.Cols*g.Rows {
		return Result{}
	}
	s := newSampler(p)
	per := max(p.Align.Period, 1)
	kxMax := g.Width/per + 2
	kyMax := g.Height/per + 2
	if p.Align.Period <= 0 {
		kxMax, kyMax = 0, 0
	}
	// The examined picture cannot show more than the signed picture: a
	// translation that puts its footprint outside it (beyond the slack of
	// rounding and rotation) is not a candidate. Among the candidates, the
	// one whose blocks agree best (matches minus three times changes) wins.
	slack := float64(BlockSide)/2 + math.Abs(s.sin)*float64(max(g.Width, g.Height))
	var best Result
	bestKey, found := math.Inf(-1), false
	for ky := -kyMax; ky <= kyMax; ky++ {
		for kx := -kxMax; kx <= kxMax; kx++ {
			x0, y0, x1, y1 := s.footprint(kx, ky)
			if x0 < -slack || y0 < -slack || x1 > float64(g.Width)+slack || y1 > float64(g.Height)+slack {
				continue
			}
			r := s.compareAt(g, kx, ky)
			if r.Compared < MinCompared {
				continue
			}
			key := float64(r.Compared-r.ChangedCount) - 3*float64(r.ChangedCount)
			if !found || key > bestKey {
				best, bestKey, found = r, key, true
			}
		}
	}
	if !found {
		// No translation puts the examined picture inside the signed
		// picture: it shows content the signed picture does not have.
		return Result{Outcome: Mismatch}
	}
	return best
}

// compareAt compares under one translation.
func (s *sampler) compareAt(g *Grid, kx, ky int) Result {
	type pair struct {
		i  int
		f  feat
		bk Block
	}
	var ps []pair
	for i := range g.Blocks {
		if f, ok := s.block(g, i, kx, ky); ok {
			ps = append(ps, pair{i, f, g.Blocks[i]})
		}
	}
	r := Result{Compared: len(ps)}
	if len(ps) < MinCompared {
		return r
	}
	// Global gain/offset of the means (brightness and contrast edits,
	// tone curves of re-encoders), fitted robustly: start from gain 1 and
	// the median offset, then refit by least squares on the blocks within
	// MeanTolerance of the current fit, three times. A caption or a
	// pasted object is a minority of blocks and stays out of the fit.
	diffs := make([]float64, len(ps))
	for i, q := range ps {
		diffs[i] = q.f.mean - float64(q.bk.Mean)
	}
	gain, off := 1.0, median(diffs)
	for iter := 0; iter < 3; iter++ {
		var n, sx, sy, sxx, sxy float64
		for _, q := range ps {
			x, y := float64(q.bk.Mean), q.f.mean
			if math.Abs(y-(gain*x+off)) <= MeanTolerance {
				n, sx, sy, sxx, sxy = n+1, sx+x, sy+y, sxx+x*x, sxy+x*y
			}
		}
		if 2*n < float64(len(ps)) {
			break
		}
		if d := n*sxx - sx*sx; d > n*n*25 {
			// Enough spread of means (a standard deviation above 5
			// levels) to fit a gain.
			gain = min(max((n*sxy-sx*sy)/d, 0.5), 2)
		}
		off = (sy - gain*sx) / n
	}
	// Median change of detail over the textured blocks.
	var dl []float64
	for _, q := range ps {
		if d := detailOf(q.bk.Detail); d >= DetailMin {
			dl = append(dl, math.Log2((1+q.f.detail)/(1+d)))
		}
	}
	dMed := 0.0
	if len(dl) > 0 {
		dMed = median(dl)
	}
	r.Changed = make([]bool, len(g.Blocks))
	for _, q := range ps {
		changed := meanChanged(q.f.mean, gain*float64(q.bk.Mean)+off)
		if signsChanged(&q.f.ac, q.bk.Signs) {
			changed = true
		}
		if d := detailOf(q.bk.Detail); d >= DetailMin && math.Log2((1+q.f.detail)/(1+d))-dMed < -DetailLoss {
			changed = true
		}
		if changed {
			r.Changed[q.i] = true
			r.ChangedCount++
		}
	}
	r.Region = s.region(g, kx, ky)
	switch {
	case r.ChangedCount == 0 && r.Region.W >= FullCover && r.Region.H >= FullCover:
		r.Outcome = Same
	case r.ChangedCount == 0:
		r.Outcome = Crop
	case float64(r.ChangedCount) <= EditedMax*float64(r.Compared):
		r.Outcome = Edited
	default:
		r.Outcome = Mismatch
	}
	return r
}

// signsChanged reports whether the examined block's AC coefficients ac
// disagree with the signed block's AC signs: more than SignTolerance of
// their magnitude on coefficients of the other sign, counted only when the
// block has structure (AC norm at least SignMinEnergy levels).
func signsChanged(ac *[15]float64, signs uint16) bool {
	var e, w, bad float64
	for k, c := range ac {
		e += c * c
		a := math.Abs(c)
		w += a
		if (c > 0) != (signs&(1<<k) != 0) {
			bad += a
		}
	}
	// The 4×4 DCT of sub-cell means is unnormalised: /4 gives levels.
	return math.Sqrt(e)/4 >= SignMinEnergy && bad > SignTolerance*w
}

// meanChanged reports whether an examined block mean m is beyond
// MeanTolerance of the fitted prediction p. Pixels clip at 0 and 255, so
// near either end the prediction is only a bound: a tone edit that
// saturates part of a bright block pulls its mean below the linear
// prediction, which is tolerated up to twice the tolerance.
func meanChanged(m, p float64) bool {
	tol := float64(MeanTolerance)
	switch {
	case p > 255-2*tol && m < p:
		tol *= 2
	case p < 2*tol && m > p:
		tol *= 2
	}
	return math.Abs(m-min(max(p, 0), 255)) > tol
}

// footprint is the bounding box of the examined picture on the signed
// picture's working plane under translation (kx, ky), unclipped.
func (s *sampler) footprint(kx, ky int) (minX, minY, maxX, maxY float64) {
	a := s.p.Align
	per := float64(a.Period)
	minX, minY, maxX, maxY = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, c := range [4][2]float64{{0, 0}, {float64(a.WorkWidth), 0}, {0, float64(a.WorkHeight)}, {float64(a.WorkWidth), float64(a.WorkHeight)}} {
		u := (c[0]*s.cos+c[1]*s.sin)/a.Scale + a.OffsetX + float64(kx)*per
		v := (c[1]*s.cos-c[0]*s.sin)/a.Scale + a.OffsetY + float64(ky)*per
		minX, minY, maxX, maxY = min(minX, u), min(minY, v), max(maxX, u), max(maxY, v)
	}
	return minX, minY, maxX, maxY
}

// region is the footprint clipped to the signed picture, as fractions.
func (s *sampler) region(g *Grid, kx, ky int) Region {
	minX, minY, maxX, maxY := s.footprint(kx, ky)
	W, H := float64(g.Width), float64(g.Height)
	minX, maxX = min(max(minX, 0), W), min(max(maxX, 0), W)
	minY, maxY = min(max(minY, 0), H), min(max(maxY, 0), H)
	return Region{X: minX / W, Y: minY / H, W: (maxX - minX) / W, H: (maxY - minY) / H}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	c := append([]float64(nil), v...)
	sort.Float64s(c)
	return c[len(c)/2]
}
