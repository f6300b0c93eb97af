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
	// Mismatch: most compared blocks do not match and their structure
	// disagrees as an unrelated picture's does: the examined picture is
	// not the signed picture. This is the only outcome that is evidence of
	// a transplanted mark.
	Mismatch
	// Contained: the whole signed picture, every block matching, lies
	// inside a larger examined picture whose surroundings are not uniform
	// padding (a caption bar, a border with text, a screenshot's
	// interface): Within gives its place in the examined picture.
	Contained
)

var outcomeNames = [...]string{"unknown", "same", "crop", "edited", "mismatch", "contained"}

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
	// ChromaTolerance is the largest difference, in chroma levels after
	// the global colour fit, of a matching block's Cb or Cr mean.
	ChromaTolerance = 8
	// ChromaEdge widens the chroma tolerance of a block by this share of
	// its largest chroma step to a neighbouring block: at a colour edge
	// the coarse chroma of a small copy (a JPEG's 16×16-pixel means,
	// interpolated) moves the block's mean more than in a flat region.
	ChromaEdge = 0.3
	// ForeignMin is the fewest structured blocks whose signs disagree
	// that a Mismatch needs: without that much evidence of a different
	// picture under the mark, a poor match is an edit or cannot be told.
	ForeignMin = 6
	// ForeignShare is the share of the structured blocks (examined AC
	// norm at least SignMinEnergy) whose DCT signs must disagree for a
	// Mismatch. Copies keep their block structure: over the development
	// photos, re-encodes, resizes, sharpening, tone and local-contrast
	// changes disagreed on at most 5 % of the structured blocks; a
	// payload embedded into another photo on 40 to 85 %.
	ForeignShare = 0.35
	// SurroundMin is the fraction of the examined picture's area outside
	// the signed picture above which the outside part is examined as
	// possible added content (below it, rounding and rotation).
	SurroundMin = 0.02
	// ForeignMost is the share of structured blocks whose signs disagree
	// above which the picture is a Mismatch even when most blocks (flat
	// ones) match: no edit of the signed picture leaves most of its
	// structure foreign.
	ForeignMost = 0.6
	// ContainedMinStructured is the fewest structured blocks a signed
	// picture found inside a larger file must show, all matching.
	ContainedMinStructured = 8
	// IsolatedStrength is how many times its tolerance a changed block of
	// a colour grid in a small group must miss its mean prediction by for
	// the group to stay changed (see Compare).
	IsolatedStrength = 2.0
	// ChromaStrength is IsolatedStrength for a chroma mean: a tone change
	// moves chroma less than luminance, so a smaller miss counts.
	ChromaStrength = 1.5
	// LineReach is how many columns apart two changed blocks in the same
	// or adjacent rows may be and still group (see components).
	LineReach = 3
	// LineSpan is the fewest columns a group of changed blocks within two
	// rows spans to count as a line of text whatever its weight.
	LineSpan = 5
	// WeakCluster is the weight of a group of changed blocks of a colour
	// grid (1 a block, 0.5 a block flagged by its structure alone) from
	// which it counts whatever its strength (see Compare).
	WeakCluster = 3
	// DetailGain is the gain of detail, in log2 units relative to the
	// median over the compared blocks, from which a block of a colour
	// grid that no other test flagged counts as changed, when such blocks
	// lie along a line (see lineShaped): a line of text too thin to move
	// a block's mean (1 % of the picture's height) still adds edges.
	DetailGain = 0.45
	// DetailGainMin is the least gain of detail, in levels of mean
	// absolute gradient, for DetailGain to apply: a flat block's noise
	// doubles at little cost.
	DetailGainMin = 3.0
	// PadUniform is the largest standard deviation, in levels, of the
	// examined picture outside the signed picture for the surroundings to
	// count as uniform padding (letterbox, pad to square) rather than
	// added content.
	PadUniform = 2.0
	// EdgeSearch is how many probe lines from where the alignment puts
	// an edge of a signed picture inside a larger file its edge is
	// looked for (see placed).
	EdgeSearch = 3
	// EdgeScale is the largest correction of the alignment's scale the
	// edges found may make (a fraction).
	EdgeScale = 0.03
	// EdgeContrast is the least RMS departure, in levels, of the
	// picture's first line from the page for an edge to be placed by it.
	EdgeContrast = 4.0
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
	// Why counts the changed blocks by the test they failed (a block can
	// fail several).
	Why Reasons
	// Colour is true when chroma was compared (a colour grid and a probe
	// with chroma).
	Colour bool
	// Structured and Foreign count the compared blocks whose structure
	// (DCT signs) was compared and those whose signs disagreed.
	Structured, Foreign int
	// Within is, for Contained (and for a padded copy), the signed
	// picture's place in the examined picture, as fractions of the
	// examined picture's width and height; Surround is the fraction of
	// the examined picture's area outside it.
	Within   Region
	Surround float64
	// Lone counts the blocks of a colour grid that failed a test weakly
	// (chroma within ChromaStrength, mean within IsolatedStrength times
	// the tolerance) in a group weighing less than WeakCluster, and were
	// not counted as changed.
	Lone int
}

// Reasons counts changed blocks by the test that flagged them.
type Reasons struct{ Mean, Chroma, Structure, Detail, Gain, Faint, Group int }

// Compare measures every block of g that lies inside the examined picture
// under the probe's alignment, for each whole-period translation the tiled
// watermark leaves open, keeps the translation with the most matching
// blocks, and classifies the result.
//
// Translations that keep the examined picture inside the signed picture
// are tried first. Only when none of them compares enough blocks are the
// others tried: the examined picture then shows more than the signed
// picture (padding, a caption bar, a screenshot's interface), which is
// [Contained] when every compared block matches, a padded copy when the
// surroundings are uniform, and an edit or a mismatch by the same rules
// as inside.
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
	slack := float64(BlockSide)/2 + math.Abs(s.sin)*float64(max(g.Width, g.Height))
	// Placements tried, in order: the examined picture inside the signed
	// one; the signed picture inside the examined one; any overlap, the
	// last only as evidence of another picture.
	const (
		inside = iota
		containing
		partial
	)
	// A colour grid has four times the blocks: the translations are
	// ranked on every fourth block and only the best one is compared
	// whole (the ranking needs agreement, not every block).
	step := 1
	if g.format() == FormatColour && (kxMax > 0 || kyMax > 0) {
		step = 4
	}
	search := func(mode int) (Result, bool) {
		var best Result
		var bestKX, bestKY, bestShown int
		bestKey, found := math.Inf(-1), false
		for ky := -kyMax; ky <= kyMax; ky++ {
			for kx := -kxMax; kx <= kxMax; kx++ {
				x0, y0, x1, y1 := s.footprint(kx, ky)
				in := x0 >= -slack && y0 >= -slack && x1 <= float64(g.Width)+slack && y1 <= float64(g.Height)+slack
				if in != (mode == inside) {
					continue
				}
				if mode == containing {
					// Only the signed picture wholly inside the examined
					// one: a partial overlap would let a translation
					// that compares a few blocks by chance win.
					u0, v0, u1, v1 := s.signedOnProbe(g, kx, ky)
					sp := slack * p.Align.Scale * max(s.fx, s.fy)
					if u0 < -sp || v0 < -sp || u1 > float64(s.pw)+sp || v1 > float64(s.ph)+sp {
						continue
					}
				}
				r := s.compareAt(g, kx, ky, mode != inside, step)
				if r.Compared*step < MinCompared || (mode == partial && 4*r.Compared*step < len(g.Blocks)) {
					continue
				}
				// The one whose blocks agree best (matches minus three
				// times changes) wins; on a tie, the one with more
				// structured blocks whose signs agree: a placement on a
				// uniform area (a screenshot's white interface beside a
				// dark picture) can match every block by an offset
				// alone, and only structure tells the picture.
				key := float64(r.Compared-r.ChangedCount) - 3*float64(r.ChangedCount)
				if !found || key > bestKey || (key == bestKey && r.Structured-r.Foreign > bestShown) {
					best, bestKey, found = r, key, true
					bestKX, bestKY, bestShown = kx, ky, r.Structured-r.Foreign
				}
			}
		}
		if found && step > 1 {
			best = s.compareAt(g, bestKX, bestKY, mode != inside, 1)
			found = best.Compared >= MinCompared
		}
		return best, found
	}
	if r, ok := search(inside); ok {
		return r
	}
	// No translation puts the examined picture inside the signed picture
	// with enough overlap: it shows more than the signed picture. That is
	// not by itself evidence of another picture (a screenshot shows the
	// signed picture among other things).
	if r, ok := search(containing); ok {
		return r
	}
	// Neither fits (another aspect ratio, or a crop with added
	// surroundings): the best partial overlap of at least a quarter of
	// the grid counts only as evidence of another picture, when even it
	// is mostly foreign.
	if r, ok := search(partial); ok && r.Foreign >= ForeignMin && float64(r.Foreign) >= ForeignMost*float64(r.Structured) {
		r.Outcome = Mismatch
		return r
	}
	return Result{}
}

// compareAt compares under one translation, every step-th block;
// outside says the examined picture extends beyond the signed picture
// under it. When the signed picture sits inside a larger file, the
// comparison on every block is also made with the alignment its edges
// give (see placed), and the placement whose blocks agree best kept:
// found edges are a hypothesis (a line of text beside the picture can
// pass for its edge), judged like the translations.
func (s *sampler) compareAt(g *Grid, kx, ky int, outside bool, step int) Result {
	r := s.compareOne(g, kx, ky, outside, step)
	if step != 1 || r.Compared < MinCompared || r.ChangedCount == 0 {
		return r
	}
	if _, surround := s.within(g, kx, ky); surround <= SurroundMin {
		return r
	}
	p, ok := s.placed(g, kx, ky)
	if !ok {
		return r
	}
	orig, sin, cos := s.p, s.sin, s.cos
	s.p = p
	s.sin, s.cos = math.Sincos(p.Align.Angle * math.Pi / 180)
	defer func() { s.p, s.sin, s.cos = orig, sin, cos }()
	r2 := s.compareOne(g, kx, ky, outside, step)
	if agreement(r2) > agreement(r) {
		return r2
	}
	return r
}

// agreement ranks comparisons: matching blocks minus three times the
// changed ones.
func agreement(r Result) float64 {
	return float64(r.Compared-r.ChangedCount) - 3*float64(r.ChangedCount)
}

// compareOne is compareAt under the probe's own alignment.
func (s *sampler) compareOne(g *Grid, kx, ky int, outside bool, step int) Result {
	type pair struct {
		i  int
		f  feat
		bk Block
	}
	within, surround, added := s.surroundings(g, kx, ky)
	if surround > SurroundMin {
		s.clipInside(g, kx, ky)
		defer s.clipReset()
	}
	var ps []pair
	for i := 0; i < len(g.Blocks); i += step {
		if f, ok := s.block(g, i, kx, ky); ok {
			ps = append(ps, pair{i, f, g.Blocks[i]})
		}
	}
	r := Result{Compared: len(ps)}
	if len(ps) < MinCompared {
		return r
	}
	xs := make([]float64, len(ps))
	ns := make([]float64, len(ps))
	ys := make([]float64, len(ps))
	sats := make([]float64, len(ps))
	for j, q := range ps {
		xs[j], ys[j], ns[j] = float64(q.bk.Mean), q.f.mean, neighbourMean(g, q.i)
		sats[j] = math.Hypot(float64(q.bk.Cb)-128, float64(q.bk.Cr)-128)
	}
	// A colour grid knows each block's saturation: a saturation change
	// clips strong colours and moves their luminance with it.
	tc := fitTone(xs, ns, sats, ys, g.format() == FormatColour)
	// Each block's change of detail is explained two ways: by the median
	// change over the textured blocks alone (dMed0), and by the change the
	// tone curve's slope makes at its mean (dt, see detailChange; colour
	// grids only) plus the median of what is left (dMed). A change counts
	// only when neither explains it (see detailResiduals): the slope
	// explains a gamma's lifted shadows gaining texture, but the noise of
	// a flat block does not follow the curve, nor the slope of a knee
	// fitted on a few means the texture.
	dt := make([]float64, len(ps))
	if g.format() == FormatColour {
		for j := range ps {
			dt[j] = tc.detailChange(xs[j])
		}
	}
	var dl, dl0 []float64
	for j, q := range ps {
		if d := detailOf(q.bk.Detail); d >= DetailMin {
			raw := math.Log2((1 + q.f.detail) / (1 + d))
			dl, dl0 = append(dl, raw-dt[j]), append(dl0, raw)
		}
	}
	dMed, dMed0 := 0.0, 0.0
	if len(dl) > 0 {
		dMed, dMed0 = median(dl), median(dl0)
	}
	// Colour: a global colour change (white balance, saturation, a tone
	// curve's effect on chroma) fitted as for the means, then each block
	// judged on what the fit leaves.
	var cbFit, crFit colourFit
	var cin [][3]float64 // the colour fit's input per compared block
	colour := g.format() == FormatColour && s.cbSAT != nil
	if colour {
		r.Colour = true
		cb := make([][3]float64, len(ps))
		for j, q := range ps {
			cb[j] = [3]float64{float64(q.bk.Cb) - 128, float64(q.bk.Cr) - 128, xs[j]}
		}
		ycb, ycr := make([]float64, len(ps)), make([]float64, len(ps))
		for j, q := range ps {
			ycb[j], ycr[j] = q.f.cb-128, q.f.cr-128
		}
		ym := make([]float64, len(ps))
		for j, q := range ps {
			ym[j] = q.f.mean
		}
		cbFit, crFit, cin = fitColoursOwn(cb, ycb, ycr, ym, tc)
	}
	// The gains along their own hue of the strong colours the fit
	// explains (see keptHue).
	gainLo, gainHi := math.Inf(1), math.Inf(-1)
	// Each compared block's chroma residual (see chromaResidual), once
	// for the gains, the verdict and the chroma groups.
	var res []residual
	if colour {
		res = make([]residual, len(ps))
		for j, q := range ps {
			scb, scr := float64(q.bk.Cb)-128, float64(q.bk.Cr)-128
			res[j] = chromaResidual(q.f.mean, q.f.cb-128, q.f.cr-128, scb, scr, cbFit.at(cin[j]), crFit.at(cin[j]), q.f.detail)
		}
		var gains []float64
		for j, q := range ps {
			scb, scr := float64(q.bk.Cb)-128, float64(q.bk.Cr)-128
			if math.Hypot(scb, scr) < HueMin || res[j].miss > ChromaTolerance {
				continue
			}
			g, _ := alongHue(q.f.cb-128, q.f.cr-128, scb, scr)
			gains = append(gains, g)
		}
		gainLo, gainHi = gainRange(gains)
	}
	r.Changed = make([]bool, len(g.Blocks))
	colourGrid := g.format() == FormatColour
	counted := make([]bool, len(g.Blocks)) // blocks counted in r.Foreign
	// Where the file adds surroundings, the outer blocks read edges of
	// the border itself: they are not judged by a gain of detail.
	edgeRing := outside || added
	var structOnly, strong, gained []bool
	if colourGrid {
		structOnly, strong = make([]bool, len(g.Blocks)), make([]bool, len(g.Blocks))
		gained = make([]bool, len(g.Blocks))
	}
	// Each compared block's largest residual as a share of its test's
	// threshold (mean, chroma, gain of detail; NaN for blocks not
	// compared), and whether it lies on a ring of added surroundings.
	var scores, misses []float64 // misses: the mean's and chroma's share only
	var ring []bool
	// Each compared block's chroma residual, Cb and Cr, as shares of its
	// tolerance (NaN for blocks not compared; see chromaGroups).
	var cres [][2]float64
	if colourGrid {
		scores, ring = make([]float64, len(g.Blocks)), make([]bool, len(g.Blocks))
		misses = make([]float64, len(g.Blocks))
		for i := range scores {
			scores[i] = math.NaN()
		}
	}
	var skip []bool // blocks no chroma group may hold
	if colour {
		skip = make([]bool, len(g.Blocks))
		cres = make([][2]float64, len(g.Blocks))
		for i := range cres {
			cres[i] = [2]float64{math.NaN(), math.NaN()}
		}
	}
	for j, q := range ps {
		why0, structBefore := r.Why, r.Why.Structure
		score, chromaScore := 0.0, 0.0
		pred := tc.at(xs[j], ns[j], sats[j])
		// A colour grid's mean is judged against the prediction, or
		// anywhere between it and the luminance the predicted colour keeps
		// once its R, G and B are clipped (see gamutMean); where the fit
		// boosts a colour its pixels push out of the gamut, a channel's
		// texture is clipped away and the loss of detail is not judged.
		pm, pixelClip := pred, false
		if colour {
			pcb, pcr := cbFit.at(cin[j]), crFit.at(cin[j])
			pm = gamutMean(q.f.mean, pred, pred-tc.e*sats[j], pcb, pcr)
			scb, scr := float64(q.bk.Cb)-128, float64(q.bk.Cr)-128
			pixelClip = boosted(scb, scr, pcb, pcr) && pixelsClip(q.f.mean, pcb, pcr, q.f.detail)
		}
		changed := meanChanged(q.f.mean, pm, 1, colourGrid)
		meanFailed := changed
		score = math.Abs(q.f.mean-pm) / MeanTolerance
		if changed {
			r.Why.Mean++
			if strong != nil && meanChanged(q.f.mean, pm, IsolatedStrength, colourGrid) {
				strong[q.i] = true
			}
		}
		if colour {
			tol := ChromaTolerance + ChromaEdge*chromaStep(g, q.i)
			scb, scr := float64(q.bk.Cb)-128, float64(q.bk.Cr)-128
			// The fit's miss, and where it fails the block, the residual
			// once a boost's shortfall is allowed (see chromaResidual):
			// under the tolerance the fit's miss is the block's score.
			rv := res[j]
			d := rv.miss
			if d > tol {
				d = rv.size()
			}
			// A block that kept its hue, scaled as the picture's other
			// colours were, is judged by its miss off its hue alone, and
			// is no part of a chroma group (whose floor still counts
			// its residual).
			if hcb, hcr, ok := keptHue(q.f.cb-128, q.f.cr-128, scb, scr, gainLo, gainHi); ok {
				d = min(d, max(math.Abs(hcb), math.Abs(hcr)))
				skip[q.i] = true
			}
			score = max(score, d/tol)
			cres[q.i] = [2]float64{rv.cb / tol, rv.cr / tol}
			if d > tol {
				chromaScore = d / tol
				changed = true
				r.Why.Chroma++
				// A tone change moves chroma little: a block clearly off
				// in colour counts even alone (colour-only text flags
				// single blocks).
				if d > ChromaStrength*tol {
					strong[q.i] = true
				}
			}
		}
		// The evidence of another picture (Structured, Foreign) counts
		// every structured block; a block that was flat when signed is
		// judged changed by its structure beyond the first-order
		// gradients only (see signsChanged).
		structured, foreign := signsChanged(&q.f.ac, q.bk.Signs, colourGrid, false)
		if structured {
			r.Structured++
			if foreign {
				r.Foreign++
				counted[q.i] = true
			}
		}
		if foreign && colourGrid && detailOf(q.bk.Detail) < DetailMin {
			_, foreign = signsChanged(&q.f.ac, q.bk.Signs, colourGrid, true)
		}
		if foreign {
			changed = true
			r.Why.Structure++
		}
		// Near 0 or 255 a tone change clips texture away: detail is not
		// judged there.
		clipped := pred > 255-2*MeanTolerance || pred < 2*MeanTolerance || pixelClip
		if d := detailOf(q.bk.Detail); d >= DetailMin && !clipped {
			if loss, _, _ := detailResiduals(d, q.f.detail, dt[j], dMed, dMed0); loss < -DetailLoss {
				changed = true
				r.Why.Detail++
			}
		}
		// A line of text drawn over a region gains detail along it, even
		// when its strokes are too thin to move a block's mean or signs.
		if gained != nil && !changed && !clipped && !(edgeRing && onEdge(g, q.i)) {
			d := detailOf(q.bk.Detail)
			_, gain, expected := detailResiduals(d, q.f.detail, dt[j], dMed, dMed0)
			if gain > DetailGain && q.f.detail-expected >= DetailGainMin {
				gained[q.i] = true
			}
			score = max(score, gain/DetailGain)
		}
		// What a small group's block stands out by (see standsOut): the
		// mean's or chroma's miss where that test failed (not a gain of
		// detail, which counts only along a line, nor a mean within the
		// wider tolerance near clipping).
		miss := chromaScore
		if meanFailed {
			miss = max(miss, math.Abs(q.f.mean-pm)/MeanTolerance)
		}
		if scores != nil {
			misses[q.i] = miss
			scores[q.i], ring[q.i] = score, edgeRing && onEdge(g, q.i)
		}
		if changed {
			r.Changed[q.i] = true
			r.ChangedCount++
			if structOnly != nil && r.Why.Structure > structBefore && !otherFail(r.Why, why0) {
				structOnly[q.i] = true
			}
		}
	}
	// A colour grid's block is small: its signs alone, on one block,
	// are noise a resize can cause. A block flagged by its structure
	// alone stays changed only beside another changed block.
	for i, only := range structOnly {
		if !only {
			continue
		}
		if !hasChangedNeighbour(g, r.Changed, i, false) {
			r.Changed[i] = false
			r.ChangedCount--
			r.Why.Structure--
			if counted[i] {
				r.Foreign--
			}
		}
	}
	// A small group of changed blocks (weighing less than WeakCluster,
	// neighbours as components groups them) is what a global tone change leaves where the
	// fit is least exact; an edit the size the grid vouches for (1 % of
	// the picture, a line of text) covers more neighbouring blocks. A
	// small group stays changed only when one of its blocks misses its
	// chroma prediction by ChromaStrength or its mean prediction by
	// IsolatedStrength times the tolerance.
	// Only on a whole comparison: ranking translations on every fourth
	// block leaves no neighbours to group.
	floor := residualFloor(scores)
	if strong != nil && step == 1 {
		for _, comp := range components(g, r.Changed, LineReach) {
			// Blocks flagged by their structure alone weigh half: a
			// local tone map bends the gradients of a few neighbouring
			// small blocks.
			weight, keep := 0.0, false
			for _, i := range comp {
				keep = keep || strong[i] || standsOut(misses[i], floor)
				if structOnly[i] {
					weight += 0.5
				} else {
					weight++
				}
			}
			if keep || weight >= WeakCluster || lineShaped(g, comp) {
				continue
			}
			for _, i := range comp {
				r.Changed[i] = false
				r.ChangedCount--
				r.Lone++
			}
		}
	}
	// Blocks that only gained detail count where they lie along a line
	// (a headline); elsewhere a gain is what sharpening or a local tone
	// map leaves in flat areas.
	if gained != nil && step == 1 {
		for _, comp := range components(g, gained, LineReach) {
			if !lineShaped(g, comp) {
				continue
			}
			for _, i := range comp {
				r.Changed[i] = true
				r.ChangedCount++
				r.Why.Gain++
			}
		}
	}
	if scores != nil && step == 1 {
		r.Why.Faint = faintLine(g, r.Changed, scores, ring, floor)
		r.ChangedCount += r.Why.Faint
	}
	if cres != nil && step == 1 {
		for i := range skip {
			skip[i] = skip[i] || ring[i]
		}
		r.Why.Group = chromaGroups(g, r.Changed, cres, skip)
		r.ChangedCount += r.Why.Group
	}
	r.Region = s.region(g, kx, ky)
	full := r.Region.W >= FullCover && r.Region.H >= FullCover
	if outside || added {
		r.Within, r.Surround = within, surround
	}
	// Too little structure to tell the signed picture from another inside
	// a larger file, unless the signed picture is flat at the grid's
	// scale and has none to show: then every block matching its tone and
	// colour as signed (no global change fitted away) is all the grid can
	// vouch for.
	unsure := added && r.ChangedCount == 0 && r.Structured < ContainedMinStructured
	if unsure && flat(g) {
		dm, dc := make([]float64, len(ps)), make([]float64, len(ps))
		for j, q := range ps {
			dm[j] = math.Abs(ys[j] - xs[j])
			if colour {
				dc[j] = max(math.Abs(q.f.cb-float64(q.bk.Cb)), math.Abs(q.f.cr-float64(q.bk.Cr)))
			}
		}
		unsure = median(dm) > MeanTolerance || median(dc) > ChromaTolerance
	}
	switch {
	case unsure:
		r.Outcome = Unknown
	case added && r.ChangedCount == 0:
		r.Outcome = Contained
	case r.ChangedCount == 0 && full:
		r.Outcome = Same
	case r.ChangedCount == 0:
		r.Outcome = Crop
	case r.Foreign >= ForeignMin && float64(r.Foreign) >= ForeignMost*float64(r.Structured):
		// Most of the structure disagrees, however many flat blocks
		// still match (a flat picture under the mark).
		r.Outcome = Mismatch
	case float64(r.ChangedCount) <= EditedMax*float64(r.Compared):
		r.Outcome = Edited
	case r.Foreign >= ForeignMin && float64(r.Foreign) >= ForeignShare*float64(r.Structured):
		r.Outcome = Mismatch
	default:
		// Many blocks differ, yet their structure is the signed
		// picture's: a heavy edit of it, not another picture.
		r.Outcome = Edited
	}
	return r
}

// Faint lines: a line of text a fifth of a block high (a headline at 1–2
// % of the picture's height) moves each block it crosses by less than any
// test's tolerance, yet by far more than a copy moves the blocks around
// it, and along a row.
const (
	// FaintMin is the least score (a block's largest residual as a share
	// of its test's threshold: mean, chroma, gain of detail) of a block
	// in a faint line.
	FaintMin = 0.25
	// FaintFloor is how many times the comparison's own residual floor
	// (see residualFloor) a block's score must reach to be in a faint
	// line: a global change fitted less exactly raises every block's
	// residual.
	FaintFloor = 4.0
	// FloorQuantile is the quantile of the compared blocks' scores taken
	// as the comparison's residual floor.
	FloorQuantile = 0.9
	// FloorMin is the fewest scored blocks a residual floor needs.
	FloorMin = 32
	// LoneFloor is how many times the residual floor a block of a small
	// group of changed blocks must score (besides failing its test) for
	// the group to stay changed: a copy fitted to a few hundredths of
	// every tolerance (a re-encode, a resize) leaves no block beyond its
	// tolerance, where a global change fitted less exactly leaves a few.
	LoneFloor = 8.0
	// FaintSpan is the fewest columns a faint line spans (within two
	// rows).
	FaintSpan = 8
	// BandFloor is how many times the floor (and at least FaintMin)
	// every column of a faint band must reach (see faintLine).
	BandFloor = 2.0
	// BandMean is how many times the floor a faint band's columns must
	// reach on average (each counted up to 1).
	BandMean = 3.0
	// FaintArea is the fewest faint blocks of a faint patch (touching,
	// over two rows and two columns at least): a recolour of 2 % of the picture where clipping leaves
	// little chroma to move (a dark or pale region) moves a dozen blocks
	// by a third to three quarters of their tolerance.
	FaintArea = 6
)

// residualFloor is the FloorQuantile of the scores (NaN for blocks not
// scored), +Inf when fewer than FloorMin blocks were scored or there are
// no scores.
func residualFloor(score []float64) float64 {
	var all []float64
	for _, v := range score {
		if !math.IsNaN(v) {
			all = append(all, v)
		}
	}
	if len(all) < FloorMin {
		return math.Inf(1)
	}
	sortFloats(all)
	return all[int(FloorQuantile*float64(len(all)-1))]
}

// extent returns the first and last rows and columns of a group of
// blocks.
func extent(g *Grid, comp []int) (r0, r1, c0, c1 int) {
	r0, r1, c0, c1 = g.Rows, -1, g.Cols, -1
	for _, i := range comp {
		c, r := i%g.Cols, i/g.Cols
		r0, r1, c0, c1 = min(r0, r), max(r1, r), min(c0, c), max(c1, c)
	}
	return r0, r1, c0, c1
}

// standsOut reports whether a block's miss (its mean's or chroma's
// residual as a share of the tolerance) fails its test and stands
// LoneFloor times above the comparison's floor (see residualFloor).
func standsOut(score, floor float64) bool {
	return score >= 1 && score >= LoneFloor*floor
}

// faintLine marks changed, and counts, the blocks whose score (NaN for
// blocks not scored) stands FaintFloor times above the comparison's floor
// and at least FaintMin, where they group (with blocks already changed)
// into a line within two rows spanning FaintSpan columns or more, or
// touch one another in a patch of FaintArea blocks or more over two rows
// and two columns at least.
func faintLine(g *Grid, changed []bool, score []float64, ring []bool, floor float64) int {
	if math.IsInf(floor, 1) {
		return 0
	}
	thr := max(FaintMin, FaintFloor*floor)
	flagged := make([]bool, len(score))
	for i, v := range score {
		flagged[i] = changed[i] || (!ring[i] && !math.IsNaN(v) && v >= thr)
	}
	n := 0
	mark := func(comp []int) {
		for _, i := range comp {
			if !changed[i] {
				changed[i] = true
				n++
			}
		}
	}
	for _, comp := range components(g, flagged, LineReach) {
		if r0, r1, c0, c1 := extent(g, comp); r1-r0 <= 1 && c1-c0+1 >= FaintSpan {
			mark(comp)
		}
	}
	// Bands: two rows in which every one of FaintSpan or more
	// consecutive columns has a block scoring BandFloor times the floor
	// (and FaintMin), BandMean times on average over the run: a thin
	// line of text over a textured picture, whose floor is higher, moves
	// each column it crosses, if not every block far beyond the floor.
	bthr := max(FaintMin, BandFloor*floor)
	for r := 0; r+1 < g.Rows; r++ {
		col := func(c int) float64 {
			v := math.Inf(-1)
			for _, i := range [2]int{r*g.Cols + c, (r+1)*g.Cols + c} {
				switch {
				case changed[i]:
					v = math.Inf(1)
				case !ring[i] && !math.IsNaN(score[i]):
					v = max(v, score[i])
				}
			}
			return v
		}
		for c0 := 0; c0 < g.Cols; {
			c1, sum := c0, 0.0
			for c1 < g.Cols && col(c1) >= bthr {
				sum += min(col(c1), 1)
				c1++
			}
			if c1-c0 >= FaintSpan && sum >= BandMean*floor*float64(c1-c0) {
				for c := c0; c < c1; c++ {
					for _, i := range [2]int{r*g.Cols + c, (r+1)*g.Cols + c} {
						if !changed[i] && !ring[i] && !math.IsNaN(score[i]) && score[i] >= bthr {
							changed[i] = true
							n++
						}
					}
				}
			}
			c0 = c1 + 1
		}
	}
	// Patches: faint blocks touching (diagonals too), over two rows and
	// two columns at least (a row of them is judged as a line).
	for i := range flagged {
		flagged[i] = !changed[i] && flagged[i]
	}
	for _, comp := range components(g, flagged, 1) {
		if r0, r1, c0, c1 := extent(g, comp); len(comp) >= FaintArea && r1 > r0 && c1 > c0 {
			mark(comp)
		}
	}
	return n
}

// A global saturation, contrast or tone change scales every strong
// colour along its own hue, by a gain that depends on the colour (how
// far its R, G and B sit from the gamut's edges and in which part of the
// tone curve). The colour fit is one function of chroma and luminance
// for the whole picture; a region of one colour of its own (a flat
// graphic's single blue, a wallpaper's one bright red) can be scaled by
// the picture's own gain yet miss its prediction.
const (
	// HueMin is the least signed chroma magnitude, in levels, of a block
	// whose gain along its hue is measured (below it the hue is noise).
	HueMin = 16.0
	// HueOff is the largest distance, in levels, of an examined chroma
	// from the line through the origin and the block's signed chroma for
	// the block to keep its hue.
	HueOff = 4.0
	// HueQuantile is the share of the gains measured on the blocks the
	// colour fit explains that is left out at each end of their range.
	HueQuantile = 0.02
	// HueBlocks is the fewest blocks whose gains make a range.
	HueBlocks = 8
)

// alongHue returns the gain of chroma (cb, cr) along the signed chroma
// (scb, scr), which must not be zero, and the part of (cb, cr) off that
// line (perpendicular to it), as a signed distance.
func alongHue(cb, cr, scb, scr float64) (gain, off float64) {
	n := math.Hypot(scb, scr)
	return (cb*scb + cr*scr) / (n * n), (cr*scb - cb*scr) / n
}

// gainRange returns the gains' range without the HueQuantile share at
// each end, or an empty range (+Inf, −Inf) for fewer than HueBlocks
// gains.
func gainRange(gains []float64) (float64, float64) {
	if len(gains) < HueBlocks {
		return math.Inf(1), math.Inf(-1)
	}
	sortFloats(gains)
	k := int(HueQuantile * float64(len(gains)-1))
	return gains[k], gains[len(gains)-1-k]
}

// keptHue returns the miss (Cb, Cr) of an examined chroma (cb, cr) from
// the line of its signed chroma (scb, scr), and true, when the signed
// chroma is at least HueMin, the examined one lies within HueOff of that
// line, and its gain along it lies within [lo, hi] (the range of the
// gains the blocks the fit explains show, see gainRange) and is at least
// 1: the block kept its hue and was boosted as the rest of the picture's
// colours were. A recolour turns the hue; colour-only text moves the
// chroma towards the ink's; white or black text, or a colour greyed out,
// lowers the gain.
func keptHue(cb, cr, scb, scr, lo, hi float64) (float64, float64, bool) {
	n := math.Hypot(scb, scr)
	if n < HueMin {
		return 0, 0, false
	}
	g, off := alongHue(cb, cr, scb, scr)
	if math.Abs(off) > HueOff || g < max(lo, 1) || g > hi {
		return 0, 0, false
	}
	return -off * scr / n, off * scb / n, true
}

// Chroma groups: colour-only text (ink that keeps the picture's
// luminance) moves the chroma of the few blocks it covers by 2 to 7
// levels, under ChromaTolerance, but all of them the same way and far
// beyond what a copy leaves on the blocks around them. A global colour
// change the fit leaves inexact raises the residual of every block of a
// colour (the comparison's floor with it) or, at colour edges, moves
// neighbouring blocks in opposite directions.
const (
	// ChromaGroupMin is the least chroma residual, as a share of the
	// block's chroma tolerance, of a block of a chroma group.
	ChromaGroupMin = 0.3
	// ChromaGroupFloor is how many times the comparison's chroma floor
	// (the FloorQuantile of the compared blocks' chroma residuals, as
	// shares of their tolerance) a block of a chroma group reaches.
	ChromaGroupFloor = 4.0
	// ChromaGroupBlocks is the fewest blocks (touching, diagonals too)
	// of a chroma group.
	ChromaGroupBlocks = 2
	// ChromaGroupCoherence is the least length of a group's summed
	// residual as a share of the sum of its blocks' residual lengths (1:
	// every block moved the same way).
	ChromaGroupCoherence = 0.8
	// ChromaGroupSum is the least length of a group's summed residual,
	// in shares of a block's tolerance.
	ChromaGroupSum = 1.2
)

// chromaGroups marks changed, and counts, the blocks of groups of
// touching blocks (not flagged in skip: the ring of added surroundings,
// blocks that kept their hue) whose chroma
// residual res (Cb and Cr as shares of the block's tolerance, NaN for
// blocks not compared) is at least ChromaGroupMin and ChromaGroupFloor
// times the comparison's chroma floor, where a group has
// ChromaGroupBlocks or more blocks, its residuals point the same way
// (ChromaGroupCoherence) and their sum is ChromaGroupSum or more.
func chromaGroups(g *Grid, changed []bool, res [][2]float64, skip []bool) int {
	mag := make([]float64, len(res))
	for i, v := range res {
		mag[i] = math.Hypot(v[0], v[1])
	}
	floor := residualFloor(mag)
	if math.IsInf(floor, 1) {
		return 0
	}
	thr := max(ChromaGroupMin, ChromaGroupFloor*floor)
	flagged := make([]bool, len(res))
	for i, m := range mag {
		flagged[i] = !skip[i] && !math.IsNaN(m) && m >= thr
	}
	n := 0
	for _, comp := range components(g, flagged, 1) {
		if len(comp) < ChromaGroupBlocks {
			continue
		}
		var sx, sy, total float64
		for _, i := range comp {
			sx, sy, total = sx+res[i][0], sy+res[i][1], total+mag[i]
		}
		if sum := math.Hypot(sx, sy); sum < ChromaGroupCoherence*total || sum < ChromaGroupSum {
			continue
		}
		for _, i := range comp {
			if !changed[i] {
				changed[i] = true
				n++
			}
		}
	}
	return n
}

// flat reports whether the signed picture is flat at the grid's scale:
// fewer than ContainedMinStructured blocks have detail of at least twice
// DetailMin, a mean more than MeanTolerance from the grid's median mean,
// or a chroma mean more than ChromaTolerance from the median chroma.
// Such a picture (a plain dark graphic, faint stripes) shows no block
// structure in a copy shown small, which is why a signed picture inside a
// larger file is otherwise required to show some.
func flat(g *Grid) bool {
	ms := make([]float64, len(g.Blocks))
	cbs := make([]float64, len(g.Blocks))
	crs := make([]float64, len(g.Blocks))
	for i, b := range g.Blocks {
		ms[i], cbs[i], crs[i] = float64(b.Mean), float64(b.Cb), float64(b.Cr)
	}
	mm, mcb, mcr := median(ms), median(cbs), median(crs)
	n := 0
	for i, b := range g.Blocks {
		if detailOf(b.Detail) >= 2*DetailMin || math.Abs(ms[i]-mm) > MeanTolerance ||
			math.Abs(cbs[i]-mcb) > ChromaTolerance || math.Abs(crs[i]-mcr) > ChromaTolerance {
			n++
			if n >= ContainedMinStructured {
				return false
			}
		}
	}
	return true
}

// onEdge reports whether block i lies on the grid's outer ring.
func onEdge(g *Grid, i int) bool {
	c, r := i%g.Cols, i/g.Cols
	return c == 0 || r == 0 || c == g.Cols-1 || r == g.Rows-1
}

// chromaMiss is how far an examined block's chroma (cb, cr, offset
// removed) lies from its fitted prediction (pcb, pcr), the larger of the
// two components. A prediction outside the RGB gamut at the examined
// block's luminance y is only a bound, as a mean near 0 or 255 is: a
// saturation or contrast boost clips the channel it pushes past 0 or 255
// (a teal's red), which moves the block's chroma towards the clipped
// colour by as much as the push went beyond the gamut, and by less when
// only some of its pixels clip. Any chroma between the prediction and its
// clipped colour misses by nothing.
func chromaMiss(y, cb, cr, pcb, pcr float64) float64 {
	rcb, rcr := gamutMiss(y, cb, cr, pcb, pcr)
	return max(math.Abs(rcb), math.Abs(rcr))
}

// gamutMiss is chromaMiss's miss as a signed vector (Cb, Cr).
func gamutMiss(y, cb, cr, pcb, pcr float64) (float64, float64) {
	ccb, ccr := gamutClip(y, pcb, pcr)
	return beyond(cb, pcb, ccb), beyond(cr, pcr, ccr)
}

// ClipReach is how many times its detail (mean absolute gradient) a
// block's pixels are taken to reach above and below its mean luminance
// when asking whether they meet the edge of the RGB gamut (see
// shortfall).
const ClipReach = 3.0

// shortfall is the miss (Cb, Cr) of an examined chroma (cb, cr) at mean
// luminance y from the segment between the signed chroma (scb, scr) and
// the fit's prediction (pcb, pcr), and false unless the fit boosts the
// block's chroma (see boosted) and the predicted colour leaves the gamut
// at a luminance its pixels reach (see pixelsClip; detail is the
// examined block's).
//
// The fit predicts from the block's mean colour; a saturation or
// contrast boost clips each pixel. A textured block whose brighter or
// darker pixels already sit at the gamut's edge (a saturated blue whose
// blue channel is at 255 beside darker outline pixels) gains less chroma
// than its in-gamut mean predicts, anywhere between none and the fitted
// gain, in the predicted hue. A block the fit does not boost (an
// unchanged or re-encoded copy, where edits are judged) has no segment.
func shortfall(y, cb, cr, scb, scr, pcb, pcr, detail float64) (float64, float64, bool) {
	if !boosted(scb, scr, pcb, pcr) || !pixelsClip(y, pcb, pcr, detail) {
		return 0, 0, false
	}
	dx, dy := pcb-scb, pcr-scr
	t := min(max(((cb-scb)*dx+(cr-scr)*dy)/(dx*dx+dy*dy), 0), 1)
	return cb - scb - t*dx, cr - scr - t*dy, true
}

// residual is a block's chroma residual: the vector (cb, cr) of what the
// colour fit leaves unexplained, and the fit's own miss (chromaMiss),
// which ignores a boost's shortfall.
type residual struct{ cb, cr, miss float64 }

// size is the residual's larger component, the measure the chroma
// tolerance applies to.
func (r residual) size() float64 { return max(math.Abs(r.cb), math.Abs(r.cr)) }

// chromaResidual is the miss of chromaMiss, and of shortfall where that
// is smaller, as a signed vector (Cb, Cr): which way, and how far, the
// examined chroma lies beyond what the fit explains; miss is chromaMiss
// alone.
func chromaResidual(y, cb, cr, scb, scr, pcb, pcr, detail float64) residual {
	rcb, rcr := gamutMiss(y, cb, cr, pcb, pcr)
	r := residual{cb: rcb, cr: rcr, miss: max(math.Abs(rcb), math.Abs(rcr))}
	if ecb, ecr, ok := shortfall(y, cb, cr, scb, scr, pcb, pcr, detail); ok && max(math.Abs(ecb), math.Abs(ecr)) < r.miss {
		r.cb, r.cr = ecb, ecr
	}
	return r
}

// beyond is the signed distance from v to the interval between a and b
// (negative below it, 0 inside).
func beyond(v, a, b float64) float64 {
	lo, hi := min(a, b), max(a, b)
	switch {
	case v < lo:
		return v - lo
	case v > hi:
		return v - hi
	}
	return 0
}

// boosted reports whether the fit predicts a block's chroma (pcb, pcr)
// stronger than it was signed (scb, scr) by at least BoostMin levels.
func boosted(scb, scr, pcb, pcr float64) bool {
	return math.Hypot(pcb, pcr) >= math.Hypot(scb, scr)+BoostMin
}

// BoostMin is the least gain of a block's chroma magnitude, in levels,
// that counts as a boost (see boosted): half the chroma tolerance, so
// that a copy the fit leaves unchanged does not qualify by noise.
const BoostMin = ChromaTolerance / 2

// pixelsClip reports whether the colour of chroma (cb, cr) leaves the
// RGB gamut (its clipped chroma moves by more than a level) at luminance
// y − reach or y + reach, reach ClipReach times the block's detail.
func pixelsClip(y, cb, cr, detail float64) bool {
	reach := ClipReach * detail
	for _, v := range []float64{y - reach, y + reach} {
		ccb, ccr := gamutClip(v, cb, cr)
		if max(math.Abs(ccb-cb), math.Abs(ccr-cr)) > 1 {
			return true
		}
	}
	return false
}

// gamutMean is the point nearest to the examined mean m of the span
// between the tone fit's prediction pred and the luminance the predicted
// colour (pred, cb, cr) keeps once clipped to the RGB gamut, and also the
// clipped luminance of (bare, cb, cr) when that colour clips, bare being
// the prediction without the fit's saturation term. A saturation or
// contrast boost that pushes a strong red's red channel past 255 lowers
// its luminance, and a blue's blue channel too, while the fit's one
// saturation term, blind to hue, moves every strong colour alike.
func gamutMean(m, pred, bare, cb, cr float64) float64 {
	lo, hi := pred, pred
	yc := clippedLuma(pred, cb, cr)
	lo, hi = min(lo, yc), max(hi, yc)
	if yb := clippedLuma(bare, cb, cr); math.Abs(yb-bare) > 1 {
		lo, hi = min(lo, yb), max(hi, yb)
	}
	return min(max(m, lo), hi)
}

// clippedLuma returns the luminance of the BT.601 colour (y, cb, cr)
// once its R, G and B are clipped to 0..255.
func clippedLuma(y, cb, cr float64) float64 {
	c := func(v float64) float64 { return min(max(v, 0), 255) }
	return 0.299*c(y+1.402*cr) + 0.587*c(y-0.344136*cb-0.714136*cr) + 0.114*c(y+1.772*cb)
}

// gamutClip returns the chroma of the BT.601 colour (y, cb, cr) once its
// R, G and B are clipped to 0..255.
func gamutClip(y, cb, cr float64) (float64, float64) {
	c := func(v float64) float64 { return min(max(v, 0), 255) }
	r := c(y + 1.402*cr)
	g := c(y - 0.344136*cb - 0.714136*cr)
	b := c(y + 1.772*cb)
	return -0.168736*r - 0.331264*g + 0.5*b, 0.5*r - 0.418688*g - 0.081312*b
}

// outside is the distance from v to the interval between a and b.
func outside(v, a, b float64) float64 {
	lo, hi := min(a, b), max(a, b)
	return max(lo-v, v-hi, 0)
}

// hasChangedNeighbour reports whether a 4-neighbour of block i (also the
// diagonal ones when diagonal) is flagged in changed.
func hasChangedNeighbour(g *Grid, changed []bool, i int, diagonal bool) bool {
	c, row := i%g.Cols, i/g.Cols
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			if (dx == 0 && dy == 0) || (!diagonal && dx != 0 && dy != 0) {
				continue
			}
			x, y := c+dx, row+dy
			if x >= 0 && y >= 0 && x < g.Cols && y < g.Rows && changed[y*g.Cols+x] {
				return true
			}
		}
	}
	return false
}

// lineShaped reports whether a group of blocks lies along a line of
// text: within two rows, spanning at least LineSpan columns.
func lineShaped(g *Grid, comp []int) bool {
	r0, r1, c0, c1 := g.Rows, -1, g.Cols, -1
	for _, i := range comp {
		c, r := i%g.Cols, i/g.Cols
		r0, r1, c0, c1 = min(r0, r), max(r1, r), min(c0, c), max(c1, c)
	}
	return r1-r0 <= 1 && c1-c0+1 >= LineSpan
}

// components returns the groups of flagged blocks connected through
// neighbours: blocks in the same or an adjacent row at most reach
// columns apart (LineReach (a line of text flags blocks along a row, not always
// touching), each group in increasing block order, the groups ordered by
// their first block.
func components(g *Grid, flagged []bool, reach int) [][]int {
	seen := make([]bool, len(flagged))
	var out [][]int
	for i, f := range flagged {
		if !f || seen[i] {
			continue
		}
		comp := []int{i}
		seen[i] = true
		for k := 0; k < len(comp); k++ {
			c, row := comp[k]%g.Cols, comp[k]/g.Cols
			for dy := -1; dy <= 1; dy++ {
				for dx := -reach; dx <= reach; dx++ {
					x, y := c+dx, row+dy
					if x < 0 || y < 0 || x >= g.Cols || y >= g.Rows {
						continue
					}
					if j := y*g.Cols + x; flagged[j] && !seen[j] {
						seen[j] = true
						comp = append(comp, j)
					}
				}
			}
		}
		sort.Sort(sort.IntSlice(comp))
		out = append(out, comp)
	}
	return out
}

// otherFail reports whether a block's tests other than structure failed
// between the counts before (w0) and after (w).
func otherFail(w, w0 Reasons) bool {
	return w.Mean > w0.Mean || w.Chroma > w0.Chroma || w.Detail > w0.Detail
}

// chromaStep is the largest difference of Cb or Cr between block i and
// a 4-neighbour, in the signed grid.
func chromaStep(g *Grid, i int) float64 {
	c, r := i%g.Cols, i/g.Cols
	b := g.Blocks[i]
	var m float64
	for _, d := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
		x, y := c+d[0], r+d[1]
		if x < 0 || y < 0 || x >= g.Cols || y >= g.Rows {
			continue
		}
		n := g.Blocks[y*g.Cols+x]
		m = max(m, math.Abs(float64(n.Cb)-float64(b.Cb)), math.Abs(float64(n.Cr)-float64(b.Cr)))
	}
	return m
}

// neighbourMean is the mean of the signed means of block i and its
// 8 neighbours (those inside the grid).
func neighbourMean(g *Grid, i int) float64 {
	c, r := i%g.Cols, i/g.Cols
	var s, n float64
	for y := max(r-1, 0); y <= min(r+1, g.Rows-1); y++ {
		for x := max(c-1, 0); x <= min(c+1, g.Cols-1); x++ {
			s += float64(g.Blocks[y*g.Cols+x].Mean)
			n++
		}
	}
	return s / n
}

// tone is a fitted tone change of block means: m' = a + b·m + c·m² +
// d·(m − n) + e·s + f·max(0, ToeKnee − m) + h·max(0, m − ShoulderKnee),
// n the mean of the block's neighbourhood and s its chroma magnitude. The
// quadratic term is a global tone curve (gamma, curves); the local term a
// change of local contrast ("HDR", clarity), which moves a block's mean by
// how much it stands out from its surroundings; the last two (colour
// grids only) let the curve bend on its own in the shadows and the
// highlights, where a gamma or a contrast boost that clips differs most
// from a parabola.
type tone struct{ a, b, c, d, e, f, h float64 }

// Knees of the tone curve's shadow and highlight segments, in levels.
const (
	ToeKnee      = 48
	ShoulderKnee = 208
)

// at predicts the mean of a block of signed mean m, neighbourhood mean n
// and chroma magnitude sat (0 without colour).
func (t tone) at(m, n, sat float64) float64 {
	return t.a + t.b*m + t.c*m*m + t.d*(m-n) + t.e*sat + t.f*max(0, ToeKnee-m) + t.h*max(0, m-ShoulderKnee)
}

// slope is the global tone curve's slope at signed mean m (the local
// contrast and saturation terms left out).
func (t tone) slope(m float64) float64 {
	sl := t.b + 2*t.c*m
	if m < ToeKnee {
		sl -= t.f
	}
	if m > ShoulderKnee {
		sl += t.h
	}
	return sl
}

// detailResiduals returns a block's loss and gain of detail, in log2
// units, from its signed and examined detail: the loss is the larger and
// the gain the smaller of its change beyond the median change over the
// picture (dMed0) and beyond the tone curve's slope (dt) plus the median
// of what that leaves (dMed), so that a change either explains does not
// count; expected is the examined detail the larger explanation gives.
func detailResiduals(signed, examined, dt, dMed, dMed0 float64) (loss, gain, expected float64) {
	raw := math.Log2((1 + examined) / (1 + signed))
	r, o := raw-dt-dMed, raw-dMed0
	return max(r, o), min(r, o), signed * max(math.Exp2(dMed+dt), math.Exp2(dMed0))
}

// SlopeRange bounds the tone curve's slope whose effect on a block's
// detail is explained (see detailChange): the fit keeps slopes within
// 0.25..3, and beyond ×2 either way a block's texture is as much the
// curve's clipping as its slope.
const SlopeRange = 2.0

// detailChange is the change of detail, in log2 units, that the tone
// curve makes in a block of signed mean m: a curve scales the gradients
// of the pixels near m by its slope there, so a gamma that lifts the
// shadows doubles their texture and a contrast boost's flat shoulder
// halves the highlights', where the median change of detail over the
// picture is one figure for all.
func (t tone) detailChange(m float64) float64 {
	sl := min(max(t.slope(m), 1/SlopeRange), SlopeRange)
	return math.Log2(sl)
}

// fitTone fits the tone change robustly: from gain 1 and the median
// offset, least squares over the blocks within MeanTolerance of the
// current fit, four times, first gain and offset, then the full model
// when enough blocks agree and their means spread. A caption or a pasted
// object is a minority of blocks and stays out of the fit; a model that
// is not an increasing curve over 0..255 or has an extreme local-contrast
// term is not kept.
func fitTone(xs, ns, sats, ys []float64, colour bool) tone {
	diffs := make([]float64, len(xs))
	for i := range xs {
		diffs[i] = ys[i] - xs[i]
	}
	t := tone{a: median(diffs), b: 1}
	// A colour grid also starts from the curve that pairs the signed and
	// examined means by rank: a global tone change keeps their order, so
	// the pairing follows a gamma or a contrast boost that moves most
	// blocks beyond the tolerance of an offset alone (a picture mostly
	// black with a few mid-tones), and a local edit of a minority of
	// blocks moves the ranks little. Whichever start more blocks agree
	// with is kept.
	rankStarted := false
	if colour {
		if r, ok := rankCurve(xs, ys); ok && agreeingTone(r, xs, ns, sats, ys) > agreeingTone(t, xs, ns, sats, ys) {
			t, rankStarted = r, true
		}
	}
	for iter := 0; iter < 4; iter++ {
		var in []int
		for i := range xs {
			if math.Abs(ys[i]-t.at(xs[i], ns[i], sats[i])) <= MeanTolerance {
				in = append(in, i)
			}
		}
		if 2*len(in) < len(xs) {
			break
		}
		var mx, mxx float64
		for _, i := range in {
			mx, mxx = mx+xs[i], mxx+xs[i]*xs[i]
		}
		n := float64(len(in))
		if n*mxx-mx*mx <= n*n*25 {
			// Too little spread of means (a standard deviation under 5
			// levels) to fit more than an offset.
			var sy, sx float64
			for _, i := range in {
				sy, sx = sy+ys[i], sx+xs[i]
			}
			t = tone{a: (sy - sx) / n, b: 1}
			continue
		}
		k := 2
		if rankStarted && iter == 0 && len(in) >= 16 {
			k = 3 // keep the rank curve's bend
		}
		if len(in) >= 16 && iter > 0 {
			k = 4
			if colour {
				k = 5
			}
		}
		// A colour grid's curve bends on its own at either end once the
		// parabola has settled, where enough agreeing blocks lie.
		var toe, shoulder bool
		if colour && iter > 1 && len(in) >= 32 {
			var lo, hi int
			for _, i := range in {
				if xs[i] < ToeKnee {
					lo++
				}
				if xs[i] > ShoulderKnee {
					hi++
				}
			}
			toe, shoulder = lo >= KneeBlocks, hi >= KneeBlocks
		}
		if c, ok := lsq(xs, ns, sats, ys, in, k, toe, shoulder); ok {
			t = c
		}
	}
	return t
}

// rankCurve fits a parabola to the signed and examined means paired by
// rank (both sorted); ok is false when the means hardly spread (a
// standard deviation under 5 levels) or the curve is not increasing
// with a slope within 0.25..3 over 0..255.
func rankCurve(xs, ys []float64) (tone, bool) {
	if len(xs) < 16 {
		return tone{}, false
	}
	sx, sy := append([]float64(nil), xs...), append([]float64(nil), ys...)
	sortFloats(sx)
	sortFloats(sy)
	var mx, mxx float64
	for _, x := range sx {
		mx, mxx = mx+x, mxx+x*x
	}
	n := float64(len(sx))
	if n*mxx-mx*mx <= n*n*25 {
		return tone{}, false
	}
	rows := make([][lsMax]float64, len(sx))
	for i, x := range sx {
		u := x / 128
		rows[i] = [lsMax]float64{1, u, u * u}
	}
	sol, ok := solveLS(rows, sy, 3)
	if !ok {
		return tone{}, false
	}
	t := tone{a: sol[0], b: sol[1] / 128, c: sol[2] / (128 * 128)}
	for _, m := range []float64{sx[0], sx[len(sx)-1]} {
		if sl := t.b + 2*t.c*m; sl < 0.25 || sl > 3 {
			return tone{}, false
		}
	}
	return t, true
}

// agreeingTone counts the blocks whose examined mean lies within
// MeanTolerance of t's prediction.
func agreeingTone(t tone, xs, ns, sats, ys []float64) int {
	n := 0
	for i := range xs {
		if math.Abs(ys[i]-t.at(xs[i], ns[i], sats[i])) <= MeanTolerance {
			n++
		}
	}
	return n
}

// colourFit predicts a chroma mean (offset removed) from the signed
// block's (cb, cr, luminance): a + b·cb + c·cr + d·own·(m−128)/128 +
// e·own·s/128, own the component itself and s the block's chroma
// magnitude, so that saturation, white balance, a colour matrix, a tone
// curve's luminance-dependent effect on chroma and the compression of
// strong colours that a saturation or contrast boost clips are global.
type colourFit struct {
	k             int
	a, b, c, d, e float64
}

func (f colourFit) at(v [3]float64) float64 {
	return f.a + f.b*v[0] + f.c*v[1] + f.d*v[f.k]*(v[2]-128)/128 + f.e*v[f.k]*math.Hypot(v[0], v[1])/128
}

// gamut is what a clipping-aware colour fit needs besides the signed
// colours: each examined block's mean luminance y, the examined value of
// the other chroma component, and the tone fit.
type gamut struct {
	y, other []float64
	tone     tone
}

// clipped is block i's prediction p of component k once the colour it
// makes with the examined luminance and the other component's examined
// value is clipped to the RGB gamut.
func (gm gamut) clipped(i, k int, p float64) float64 {
	if gm.y == nil {
		return p
	}
	if k == 0 {
		c, _ := gamutClip(gm.y[i], p, gm.other[i])
		return c
	}
	_, c := gamutClip(gm.y[i], gm.other[i], p)
	return c
}

// fitColour fits component k (0 Cb, 1 Cr) robustly: from the identity
// and the median offset, least squares over the blocks within
// ChromaTolerance of the current fit, four times; the saturation term
// joins from the second pass, when enough blocks agree.
//
// A block agrees when its examined value lies between its prediction
// and the prediction clipped to the RGB gamut (see chromaMiss), and only
// blocks whose prediction stays inside the gamut enter the least
// squares: when a contrast or saturation boost clips most of a strongly
// coloured picture, the unclipped minority carries the gain and the
// clipped majority agrees with it. The fit also starts from the chroma
// gain the tone curve implies (a curve applied to R, G and B scales the
// chroma of a colour of luminance m by its slope at m), whichever start
// more blocks agree with.
func fitColour(in [][3]float64, ys []float64, k int, gm gamut) colourFit {
	return fitColourTerms(in, ys, k, gm, true)
}

// fitColourTerms is fitColour, with the other component's cross-talk
// term only when cross is true.
func fitColourTerms(in [][3]float64, ys []float64, k int, gm gamut, cross bool) colourFit {
	miss := func(f colourFit, i int) float64 {
		p := f.at(in[i])
		return outside(ys[i], p, gm.clipped(i, k, p))
	}
	agree := func(f colourFit) int {
		n := 0
		for i := range in {
			if miss(f, i) <= ChromaTolerance {
				n++
			}
		}
		return n
	}
	withGain := func(g, d float64) colourFit {
		f := colourFit{k: k, d: d}
		if k == 0 {
			f.b = g
		} else {
			f.c = g
		}
		diffs := make([]float64, len(in))
		for i := range in {
			diffs[i] = ys[i] - f.at(in[i])
		}
		f.a = median(diffs)
		return f
	}
	f := withGain(1, 0)
	// A saturation change moves strong colours beyond the tolerance of
	// an offset alone: start from the spread's ratio too, and from the
	// tone curve's slope.
	own := make([]float64, len(in))
	for i := range in {
		own[i] = in[i][k]
	}
	starts := []colourFit{withGain(spreadGain(own, ys), 0)}
	if gm.y != nil {
		// slope(m) = b + 2c·m = (b + 256c) + 256c·(m − 128)/128.
		t := gm.tone
		if g := t.b + 256*t.c; g >= 0.3 && g <= 3 {
			starts = append(starts, withGain(g, min(max(256*t.c, -2), 2)))
		}
	}
	best := agree(f)
	for _, alt := range starts {
		if n := agree(alt); n > best {
			f, best = alt, n
		}
	}
	for iter := 0; iter < 4; iter++ {
		var rows [][lsMax]float64
		var y []float64
		agreeing := 0
		for i, v := range in {
			if miss(f, i) > ChromaTolerance {
				continue
			}
			agreeing++
			if p := f.at(v); math.Abs(gm.clipped(i, k, p)-p) > 1 {
				continue
			}
			if cross {
				rows = append(rows, [lsMax]float64{1, v[0] / 32, v[1] / 32, v[k] * (v[2] - 128) / (128 * 32), v[k] * math.Hypot(v[0], v[1]) / (128 * 32)})
			} else {
				rows = append(rows, [lsMax]float64{1, v[k] / 32, v[k] * (v[2] - 128) / (128 * 32), v[k] * math.Hypot(v[0], v[1]) / (128 * 32)})
			}
			y = append(y, ys[i])
		}
		if 2*agreeing < len(in) || len(rows) < 8 {
			break
		}
		terms := 4
		if iter > 0 && len(rows) >= 16 {
			terms = 5
		}
		if !cross {
			terms--
		}
		sol, ok := solveLS(rows, y, terms)
		if !ok {
			break
		}
		n := colourFit{k: k, a: sol[0], b: sol[1] / 32, c: sol[2] / 32, d: sol[3] / 32, e: sol[4] / 32}
		if !cross {
			n = colourFit{k: k, a: sol[0], d: sol[2] / 32, e: sol[3] / 32}
			if k == 0 {
				n.b = sol[1] / 32
			} else {
				n.c = sol[1] / 32
			}
		}
		// A plausible colour change: the component's own gain within
		// 0.3..3, cross-talk and luminance dependence bounded, and the
		// gain at the strongest colour (chroma 128) still within 0.2..3.
		own := n.b
		if k == 1 {
			own = n.c
		}
		if own < 0.3 || own > 3 || math.Abs(n.d) > 2 || math.Abs(n.b+n.c-own) > 1 || own+n.e < 0.2 || own+n.e > 3 {
			break
		}
		f = n
	}
	return f
}

// fitColours fits both chroma components of the examined blocks (ycb,
// ycr, with mean luminance ym) from the signed blocks' colours in (Cb, Cr,
// mean), and once more from those colours passed through the fitted tone
// curve tc, and returns the fits that more blocks agree with and their
// input. A tone curve applied to R, G and B (a gamma, a contrast boost)
// changes a colour's chroma by the curve's slope over the span of its
// R, G and B, not at its luminance alone: a dark saturated colour whose
// red sits in the curve's steep toe gains more chroma than any linear
// function of its chroma and luminance gives. The curved input makes
// that change, and saturation on top of it, a gain of about one.
func fitColours(in [][3]float64, ycb, ycr, ym []float64, tc tone) (colourFit, colourFit, [][3]float64) {
	cb := fitColour(in, ycb, 0, gamut{y: ym, other: ycr, tone: tc})
	cr := fitColour(in, ycr, 1, gamut{y: ym, other: ycb, tone: tc})
	curved, ok := throughCurve(in, tc)
	if !ok {
		return cb, cr, in
	}
	ccb := fitColour(curved, ycb, 0, gamut{y: ym, other: ycr, tone: tc})
	ccr := fitColour(curved, ycr, 1, gamut{y: ym, other: ycb, tone: tc})
	if colourAgreeing(curved, ccb, ccr, ycb, ycr, ym) > colourAgreeing(in, cb, cr, ycb, ycr, ym) {
		return ccb, ccr, curved
	}
	return cb, cr, in
}

// CrossTalkMin is the least cross-talk (the share of one chroma
// component the fit adds to the other) of a colour fit that is refitted
// without it (see fitColoursOwn): a white balance or a saturation change
// turns no colour by a quarter.
const CrossTalkMin = 0.25

// fitColoursOwn is fitColours, refitted without the cross-talk terms
// when either fit turns its component by CrossTalkMin or more of the
// other; the refit is kept when more blocks agree with it. A picture
// whose colours lie near one line through the Cb–Cr plane (a sand and
// its complementary blue, oranges and greys) leaves the cross-talk
// free: least squares then turns every colour off that line towards
// it, while a saturation change or a tone curve scales each component
// by itself.
func fitColoursOwn(in [][3]float64, ycb, ycr, ym []float64, tc tone) (colourFit, colourFit, [][3]float64) {
	cb, cr, used := fitColours(in, ycb, ycr, ym, tc)
	if math.Abs(cb.c) < CrossTalkMin && math.Abs(cr.b) < CrossTalkMin {
		return cb, cr, used
	}
	ocb := fitColourTerms(used, ycb, 0, gamut{y: ym, other: ycr, tone: tc}, false)
	ocr := fitColourTerms(used, ycr, 1, gamut{y: ym, other: ycb, tone: tc}, false)
	if colourAgreeing(used, ocb, ocr, ycb, ycr, ym) > colourAgreeing(used, cb, cr, ycb, ycr, ym) {
		return ocb, ocr, used
	}
	return cb, cr, used
}

// CurveBend is the least departure, in levels, of the fitted tone curve
// from a straight line over 0..255 for the colour fit to try the signed
// colours passed through it (see fitColours): a straight curve scales
// chroma as the plain fit already does.
const CurveBend = 6.0

// throughCurve returns each signed colour (cb, cr, mean) with its R, G
// and B passed through the global part of the tone curve t (no local
// contrast or saturation term), clipped to 0..255; ok is false when t is
// nearly straight (see CurveBend).
func throughCurve(in [][3]float64, t tone) ([][3]float64, bool) {
	g := tone{a: t.a, b: t.b, c: t.c, f: t.f, h: t.h}
	y0, y1 := g.at(0, 0, 0), g.at(255, 255, 0)
	bend := 0.0
	for v := 0.0; v <= 255; v += 15 {
		bend = max(bend, math.Abs(g.at(v, v, 0)-(y0+(y1-y0)*v/255)))
	}
	// The curve was fitted on block means, which span less than the
	// channels of a colour: below the darkest signed mean and above the
	// brightest it runs straight to black and to white, which a tone
	// curve keeps (clipped, for a contrast boost), rather than follow the
	// fitted polynomial's extrapolation.
	lo, hi := 255.0, 0.0
	for _, v := range in {
		lo, hi = min(lo, v[2]), max(hi, v[2])
	}
	tlo, thi := min(max(g.at(lo, lo, 0), 0), 255), min(max(g.at(hi, hi, 0), 0), 255)
	curve := func(v float64) float64 {
		switch {
		case v < lo:
			return tlo * v / lo
		case v > hi:
			return thi + (255-thi)*(v-hi)/(255-hi)
		}
		return min(max(g.at(v, v, 0), 0), 255)
	}
	if bend < CurveBend {
		return nil, false
	}
	out := make([][3]float64, len(in))
	for i, v := range in {
		c := func(x float64) float64 { return curve(min(max(x, 0), 255)) }
		r := c(v[2] + 1.402*v[1])
		gg := c(v[2] - 0.344136*v[0] - 0.714136*v[1])
		b := c(v[2] + 1.772*v[0])
		y := 0.299*r + 0.587*gg + 0.114*b
		out[i] = [3]float64{-0.168736*r - 0.331264*gg + 0.5*b, 0.5*r - 0.418688*gg - 0.081312*b, y}
	}
	return out, true
}

// colourAgreeing counts the blocks whose examined chroma both fits
// predict within ChromaTolerance (see chromaMiss).
func colourAgreeing(in [][3]float64, cb, cr colourFit, ycb, ycr, ym []float64) int {
	n := 0
	for i, v := range in {
		if chromaMiss(ym[i], ycb[i], ycr[i], cb.at(v), cr.at(v)) <= ChromaTolerance {
			n++
		}
	}
	return n
}

// spreadGain is the ratio of the interquartile ranges of ys and xs,
// within 0.3..3: the gain of a global change that a minority of edited
// blocks does not move. 1 when xs hardly spread (under 4 levels).
func spreadGain(xs, ys []float64) float64 {
	iqr := func(v []float64) float64 {
		c := append([]float64(nil), v...)
		sortFloats(c)
		return c[len(c)*3/4] - c[len(c)/4]
	}
	if len(xs) < 8 {
		return 1
	}
	sx := iqr(xs)
	if sx < 4 {
		return 1
	}
	return min(max(iqr(ys)/sx, 0.3), 3)
}

// solveLS solves the normal equations of rows·x ≈ y for the first k
// unknowns by Gauss-Jordan elimination with partial pivoting.
func solveLS(rows [][lsMax]float64, y []float64, k int) ([lsMax]float64, bool) {
	var A [lsMax][lsMax + 1]float64
	for i, v := range rows {
		for r := 0; r < k; r++ {
			for c := 0; c < k; c++ {
				A[r][c] += v[r] * v[c]
			}
			A[r][lsMax] += v[r] * y[i]
		}
	}
	for c := 0; c < k; c++ {
		p := c
		for r := c + 1; r < k; r++ {
			if math.Abs(A[r][c]) > math.Abs(A[p][c]) {
				p = r
			}
		}
		if math.Abs(A[p][c]) < 1e-9 {
			return [lsMax]float64{}, false
		}
		A[c], A[p] = A[p], A[c]
		for r := 0; r < k; r++ {
			if r == c {
				continue
			}
			f := A[r][c] / A[c][c]
			for j := c; j <= lsMax; j++ {
				A[r][j] -= f * A[c][j]
			}
		}
	}
	var sol [lsMax]float64
	for c := 0; c < k; c++ {
		sol[c] = A[c][lsMax] / A[c][c]
	}
	return sol, true
}

// lsMax is the most unknowns solveLS handles.
const lsMax = 7

// KneeBlocks is the fewest agreeing blocks beyond a knee (ToeKnee,
// ShoulderKnee) for the tone curve to bend there on its own.
const KneeBlocks = 8

// lsq solves the least-squares tone fit with the first k of the terms
// 1, m, m², m − n, s over the blocks in, and the shadow and highlight
// terms when toe and shoulder say; ok is false when the system is
// singular or the result is not a plausible tone change.
func lsq(xs, ns, sats, ys []float64, in []int, k int, toe, shoulder bool) (tone, bool) {
	rows := make([][lsMax]float64, 0, len(in))
	y := make([]float64, 0, len(in))
	for _, i := range in {
		// Scaled terms keep the normal equations well conditioned.
		u := xs[i] / 128
		r := [lsMax]float64{1, u, u * u, (xs[i] - ns[i]) / 128, sats[i] / 128}
		j := k
		if toe {
			r[j] = max(0, ToeKnee-xs[i]) / 128
			j++
		}
		if shoulder {
			r[j] = max(0, xs[i]-ShoulderKnee) / 128
		}
		rows = append(rows, r)
		y = append(y, ys[i])
	}
	n := k
	if toe {
		n++
	}
	if shoulder {
		n++
	}
	sol, ok := solveLS(rows, y, n)
	if !ok {
		return tone{}, false
	}
	t := tone{a: sol[0], b: sol[1] / 128, c: sol[2] / (128 * 128), d: sol[3] / 128}
	if k > 4 {
		t.e = sol[4] / 128
	}
	j := k
	if toe {
		t.f = sol[j] / 128
		j++
	}
	if shoulder {
		t.h = sol[j] / 128
	}
	// An increasing curve with a slope within 0.25..3 everywhere (at
	// both ends and on either side of each knee), and a local-contrast
	// change within ×0.5..×2.
	for _, m := range []float64{0, ToeKnee - 1e-6, ToeKnee, ShoulderKnee, ShoulderKnee + 1e-6, 255} {
		sl := t.b + 2*t.c*m
		if m < ToeKnee {
			sl -= t.f
		}
		if m > ShoulderKnee {
			sl += t.h
		}
		if sl < 0.25 || sl > 3 {
			return tone{}, false
		}
	}
	if t.d < -0.5 || t.d > 1 || math.Abs(t.e) > 0.5 {
		return tone{}, false
	}
	return t, true
}

// signsChanged reports whether a block has structure (AC norm at least
// SignMinEnergy levels) and, if so, whether more than SignTolerance of its
// AC magnitude lies on coefficients whose sign disagrees with the signed
// block's signs. halfGradients counts the two first-order gradients at
// half weight, as colour grids do: they are what a local tone map (an
// HDR look) bends in a small block.
//
// noGradients leaves the two first-order gradients out altogether, as
// colour grids do for a block that was flat when signed (detail under
// DetailMin): its signs are noise, and the smooth ramp a local tone map
// lays over a flat area is not structure; the higher-order structure
// that text or a pasted object brings is.
func signsChanged(ac *[15]float64, signs uint16, halfGradients, noGradients bool) (structured, changed bool) {
	var e, w, bad float64
	for k, c := range ac {
		if noGradients && (k == 0 || k == 3) {
			continue
		}
		e += c * c
		a := math.Abs(c)
		if halfGradients && (k == 0 || k == 3) {
			a /= 2
		}
		w += a
		if (c > 0) != (signs&(1<<k) != 0) {
			bad += a
		}
	}
	// The 4×4 DCT of sub-cell means is unnormalised: /4 gives levels.
	if math.Sqrt(e)/4 < SignMinEnergy {
		return false, false
	}
	return true, bad > SignTolerance*w
}

// meanChanged reports whether an examined block mean m is beyond k
// times MeanTolerance of the fitted prediction p. Pixels clip at 0 and
// 255, so near either end the prediction is only a bound: a tone edit
// that saturates part of a bright block pulls its mean below the linear
// prediction, which is tolerated up to twice the tolerance. With shadows
// (colour grids), a mean predicted near black gets twice the tolerance
// either way: a dark, flat picture has too little spread of means to fit
// more than an offset, and a contrast boost crushes its shadows below it.
func meanChanged(m, p, k float64, shadows bool) bool {
	tol := k * MeanTolerance
	switch {
	case p > 255-2*tol && m < p:
		tol *= 2
	case p < 2*tol && (m > p || shadows):
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
	sortFloats(c)
	return c[len(c)/2]
}

// within is the signed picture's bounding box in the examined picture
// under translation (kx, ky), clipped, as fractions of the examined
// picture, and the fraction of the examined picture's area outside it.
func (s *sampler) within(g *Grid, kx, ky int) (Region, float64) {
	x0, y0, x1, y1 := s.signedOnProbe(g, kx, ky)
	pw, ph := float64(s.pw), float64(s.ph)
	x0, x1 = min(max(x0, 0), pw), min(max(x1, 0), pw)
	y0, y1 = min(max(y0, 0), ph), min(max(y1, 0), ph)
	r := Region{X: x0 / pw, Y: y0 / ph, W: (x1 - x0) / pw, H: (y1 - y0) / ph}
	return r, 1 - r.W*r.H
}

// signedOnProbe is the bounding box of the signed picture on the probe
// plane under translation (kx, ky), unclipped.
func (s *sampler) signedOnProbe(g *Grid, kx, ky int) (minX, minY, maxX, maxY float64) {
	minX, minY, maxX, maxY = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, c := range [4][2]float64{{0, 0}, {float64(g.Width), 0}, {0, float64(g.Height)}, {float64(g.Width), float64(g.Height)}} {
		x, y := s.toProbe(c[0], c[1], kx, ky)
		minX, minY, maxX, maxY = min(minX, x), min(minY, y), max(maxX, x), max(maxY, y)
	}
	return minX, minY, maxX, maxY
}

// surroundings places the signed picture in the examined picture under
// translation (kx, ky): its box as fractions of the examined picture, the
// fraction of the examined picture's area outside it, and whether that
// outside part is added content (more than SurroundMin of the area and
// not uniform padding).
func (s *sampler) surroundings(g *Grid, kx, ky int) (Region, float64, bool) {
	w, sur := s.within(g, kx, ky)
	return w, sur, sur > SurroundMin && !s.uniformOutside(g, kx, ky)
}

// placed returns the probe with its alignment corrected to where the
// signed picture's edges lie in a larger file under translation (kx, ky):
// the decoder's scale is exact to about a percent, which at the far edge
// of a picture shown small in a page is a probe pixel or two, enough for
// the outer blocks to read the page. Each edge of the signed picture
// that borders surroundings is looked for within EdgeSearch probe lines
// of where the alignment puts it (see edgeAt); the scale is corrected by
// the ratio of the found to the expected extent along each axis with
// both edges found (the mean of the two axes), and the picture's centre
// moved to the found one on those axes. ok is false, and nothing
// changes, for a rotated copy, when no axis has both edges found, or when
// the correction exceeds EdgeScale.
func (s *sampler) placed(g *Grid, kx, ky int) (*Probe, bool) {
	if math.Abs(s.sin) > 0.01 {
		return nil, false
	}
	// The expected edges without the decoder's rotation, around the
	// centre it puts the picture at: the box of the rotated picture is
	// wider than the picture by its height times the angle's sine.
	cx, cy := s.toProbe(float64(g.Width)/2, float64(g.Height)/2, kx, ky)
	hx := s.p.Align.Scale * float64(g.Width) / 2 * s.fx
	hy := s.p.Align.Scale * float64(g.Height) / 2 * s.fy
	x0, y0, x1, y1 := cx-hx, cy-hy, cx+hx, cy+hy
	fx0, okx0 := s.edgeOrBorder(x0, y0, y1, true, 1)
	fx1, okx1 := s.edgeOrBorder(x1, y0, y1, true, -1)
	fy0, oky0 := s.edgeOrBorder(y0, x0, x1, false, 1)
	fy1, oky1 := s.edgeOrBorder(y1, x0, x1, false, -1)
	var ratio float64
	n := 0
	if okx0 && okx1 {
		ratio += (fx1 - fx0) / (x1 - x0)
		n++
	}
	if oky0 && oky1 {
		ratio += (fy1 - fy0) / (y1 - y0)
		n++
	}
	if n == 0 {
		return nil, false
	}
	ratio /= float64(n)
	if math.Abs(ratio-1) > EdgeScale {
		return nil, false
	}
	// Centres on the probe: found where both edges were, else kept.
	if okx0 && okx1 {
		cx = (fx0 + fx1) / 2
	}
	if oky0 && oky1 {
		cy = (fy0 + fy1) / 2
	}
	a := s.p.Align
	a.Scale *= ratio
	// The edges were found along the probe's rows and columns and the
	// offsets below assume no rotation: the decoder's residual angle
	// (a fraction of a degree, which on a repetitive texture can be a
	// spurious one) would tilt the placement by up to a probe pixel at
	// the picture's far corners.
	a.Angle = 0
	// toProbe(W/2) = Scale·(W/2 − OffsetX − kx·Period)·fx = cx, and the
	// same for y (the rotation is nil).
	per := float64(a.Period)
	a.OffsetX = float64(g.Width)/2 - cx/(a.Scale*s.fx) - float64(kx)*per
	a.OffsetY = float64(g.Height)/2 - cy/(a.Scale*s.fy) - float64(ky)*per
	p := *s.p
	p.Align = a
	return &p, true
}

// edgeOrBorder is edgeAt, except that an edge the alignment puts within
// EdgeSearch probe lines of the file's own border, and that edgeAt does
// not find, is found at that border: the picture fills the file on that
// side (a caption bar added above a picture leaves its other three edges
// on the file's), and a picture cannot show beyond the file. Like every
// placement, it is a hypothesis that the blocks' agreement judges.
func (s *sampler) edgeOrBorder(e, a, b float64, vertical bool, dir int) (float64, bool) {
	if f, ok := s.edgeAt(e, a, b, vertical, dir); ok {
		return f, true
	}
	border := 0.0
	if dir < 0 {
		border = float64(s.pw)
		if !vertical {
			border = float64(s.ph)
		}
	}
	return border, math.Abs(e-border) <= EdgeSearch
}

// edgeAt finds an edge of the signed picture that the alignment puts at
// e (a probe column when vertical, else a row; dir +1 for a left or top
// edge, -1 for a right or bottom one), along the middle 80 % of the edge
// from a to b. Lines of the probe within EdgeSearch of e are read from
// the outside in: the outermost must be uniform (standard deviation at
// most PadUniform along the edge: the page beside the picture), and the
// first line that is not is where the picture starts; the share of that
// line the picture covers is the least-squares ratio of its departures
// from the page to the next line's. ok is false when no such transition
// lies in the window or the picture's first lines hardly differ from the
// page (nothing to place the edge by).
func (s *sampler) edgeAt(e, a, b float64, vertical bool, dir int) (float64, bool) {
	if b-a < 16 {
		return 0, false
	}
	lim := float64(s.pw)
	if !vertical {
		lim = float64(s.ph)
	}
	if e < 0.5 || e > lim-0.5 {
		return 0, false // the edge is the file's own
	}
	span := b - a
	a, b = a+span/10, b-span/10
	s.ensureSquares()
	// Outermost line of the window, then inward.
	out := int(math.Floor(e)) - EdgeSearch
	if dir < 0 {
		out = int(math.Ceil(e)) - 1 + EdgeSearch
	}
	if out < 0 || out >= int(lim) {
		return 0, false
	}
	line := func(k int) (float64, float64) { // mean, variance of line k
		if vertical {
			return s.boxStats(float64(k), a, float64(k+1), b)
		}
		return s.boxStats(a, float64(k), b, float64(k+1))
	}
	page, v := line(out)
	if v > PadUniform*PadUniform {
		return 0, false
	}
	for k := 1; k <= 2*EdgeSearch; k++ {
		l := out + dir*k
		if l < 0 || l+dir < 0 || l >= int(lim) || l+dir >= int(lim) {
			return 0, false
		}
		if _, v := line(l); v <= PadUniform*PadUniform {
			continue
		}
		// Line l is the first the picture reaches: its coverage by the
		// pixels of the next line in.
		var num, den float64
		steps := int(b - a)
		for i := 0; i < steps; i++ {
			t := a + float64(i)
			var vl, vn float64
			if vertical {
				vl, vn = s.pixel(l, t), s.pixel(l+dir, t)
			} else {
				vl, vn = s.pixel2(t, l), s.pixel2(t, l+dir)
			}
			num += (vl - page) * (vn - page)
			den += (vn - page) * (vn - page)
		}
		if den < float64(steps)*EdgeContrast*EdgeContrast {
			return 0, false
		}
		c := min(max(num/den, 0), 1)
		if dir > 0 {
			return float64(l+1) - c, true
		}
		return float64(l) + c, true
	}
	return 0, false
}

// pixel is the probe's level at column x, row y (rounded down).
func (s *sampler) pixel(x int, y float64) float64 {
	l := s.p.Plane
	return float64(l.Pix[min(max(int(y), 0), l.Height-1)*l.Stride+x])
}

// pixel2 is pixel with the row whole and the column fractional.
func (s *sampler) pixel2(x float64, y int) float64 {
	l := s.p.Plane
	return float64(l.Pix[y*l.Stride+min(max(int(x), 0), l.Width-1)])
}

// boxStats is the mean and variance of the probe over the box (x0, y0)–(x1, y1).
func (s *sampler) boxStats(x0, y0, x1, y1 float64) (float64, float64) {
	ar := (x1 - x0) * (y1 - y0)
	if ar < 1 {
		return 0, 0
	}
	box := func(t []float64) float64 {
		return s.at(t, x1, y1) - s.at(t, x0, y1) - s.at(t, x1, y0) + s.at(t, x0, y0)
	}
	m := box(s.sat) / ar
	return m, box(s.sq)/ar - m*m
}

// clipInside bounds the sampler's reads to the signed picture's interior
// on the probe, 1.5 probe pixels clear of each edge that borders added
// surroundings.
func (s *sampler) clipInside(g *Grid, kx, ky int) {
	const inset = 1.5
	x0, y0, x1, y1 := s.signedOnProbe(g, kx, ky)
	pw, ph := float64(s.pw), float64(s.ph)
	if x0 > 0.5 {
		s.clipX0 = min(x0+inset, pw)
	}
	if y0 > 0.5 {
		s.clipY0 = min(y0+inset, ph)
	}
	if x1 < pw-0.5 {
		s.clipX1 = max(x1-inset, s.clipX0)
	}
	if y1 < ph-0.5 {
		s.clipY1 = max(y1-inset, s.clipY0)
	}
}

func (s *sampler) clipReset() {
	s.clipX0, s.clipY0, s.clipX1, s.clipY1 = 0, 0, float64(s.pw), float64(s.ph)
}

// uniformOutside reports whether the examined picture outside the signed
// picture (two probe pixels clear of its edge, where resampling rings) is
// flat: padding, not added content. Flat means a standard deviation of at
// most PadUniform levels: text too small to keep its strokes at the
// probe's scale still darkens its lines against the margins.
func (s *sampler) uniformOutside(g *Grid, kx, ky int) bool {
	x0, y0, x1, y1 := s.signedOnProbe(g, kx, ky)
	pw, ph := float64(s.pw), float64(s.ph)
	x0, y0 = min(max(x0-2, 0), pw), min(max(y0-2, 0), ph)
	x1, y1 = min(max(x1+2, 0), pw), min(max(y1+2, 0), ph)
	out := pw*ph - (x1-x0)*(y1-y0)
	if out < 1 {
		return true
	}
	s.ensureSquares()
	box := func(t []float64) float64 {
		return s.at(t, pw, ph) - (s.at(t, x1, y1) - s.at(t, x0, y1) - s.at(t, x1, y0) + s.at(t, x0, y0))
	}
	m := box(s.sat) / out
	v := box(s.sq)/out - m*m
	return v <= PadUniform*PadUniform
}

// ensureSquares builds the summed-area table of squared levels.
func (s *sampler) ensureSquares() {
	if s.sq != nil {
		return
	}
	l := s.p.Plane
	st := l.Width + 1
	s.sq = make([]float64, st*(l.Height+1))
	for y := 0; y < l.Height; y++ {
		var run float64
		for x, v := range l.Pix[y*l.Stride : y*l.Stride+l.Width] {
			run += float64(v) * float64(v)
			s.sq[(y+1)*st+x+1] = s.sq[y*st+x+1] + run
		}
	}
}

// sortFloats sorts v ascending, NaNs first, exactly as sort.Float64s
// would (the same pdqsort, from one template), but through sort.Sort:
// the WebAssembly verifier module links sort's Interface variant anyway
// (compress/flate sorts with it), and sort.Float64s and sort.Ints would
// each link another copy of the algorithm (docs/widget.md, "Size").
func sortFloats(v []float64) { sort.Sort(sort.Float64Slice(v)) }
