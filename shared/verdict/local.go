package verdict

import (
	"fmt"
	"math"

	"github.com/provenant/provenant/shared/localsig"
	"github.com/provenant/provenant/shared/wire"
)

// This file holds the rule "authentic is earned by what the signature
// covers" (docs/verification.md): which Match a candidate earns, whether
// that is authentic and with what confidence, and the local-signature
// members of the verify response.

// matchOf classifies the link between the file and e's record. A
// watermark match counts as the signed picture only when the record
// carries local signatures (canonical version 3) and the file's blocks,
// placed on the signed grid by the watermark's alignment, match them: a
// watermark plus a near global perceptual hash is not enough, since the
// payload and the key are public.
func matchOf(f Facts, e *eval) Match {
	switch {
	case e.shaEq, e.origEq:
		return MatchExact
	case e.wmEq:
		g, err := e.rec.Grid()
		if err == nil && g != nil && f.Local != nil {
			e.grid = g
			r := localsig.Compare(g, f.Local)
			e.local = &r
			switch r.Outcome {
			case localsig.Same:
				return MatchReencoded
			case localsig.Crop:
				return MatchCrop
			case localsig.Edited:
				return MatchEdited
			case localsig.Mismatch:
				return MatchMismatch
			case localsig.Contained:
				return MatchContained
			}
		}
		// No grid (a record signed before version 3), no probe, or too
		// little overlap to compare: the mark alone does not show the
		// picture is the signed one, and nothing local shows it is
		// another: a transplant is said only on local evidence.
		return MatchPerceptual
	case e.near:
		return MatchPerceptual
	}
	return MatchNone
}

// contentShown reports whether the local signatures show the file's
// picture to be the record's (the whole of it or a crop).
func (e *eval) contentShown() bool {
	return e.match == MatchReencoded || e.match == MatchCrop || e.match == MatchContained
}

// localConfidence is the authenticity and confidence, in hundredths, of
// the matches below exact (see the package doc).
func localConfidence(f Facts, e *eval, near int) (bool, int) {
	bitPenalty := min(max(f.Watermark.BitErrors, 0), 10) / 2
	anchored := 0
	if e.publicAnchor() {
		anchored = 3
	}
	switch e.match {
	case MatchReencoded:
		// 85..95: +10 at distance 0 falling linearly to 0 at the threshold,
		// minus 1 per 2 corrected watermark bit errors (at most 5).
		bonus := (10*(near-min(e.dist, near)) + near/2) / near
		return true, 85 + max(bonus-bitPenalty, 0) + anchored
	case MatchCrop, MatchContained:
		// 80..95 with the share of the signed picture shown.
		area := 0.0
		if e.local != nil {
			area = e.local.Region.W * e.local.Region.H
		}
		return true, 80 + max(int(math.Round(15*area))-bitPenalty, 0) + anchored
	case MatchEdited:
		return false, 30
	case MatchMismatch:
		return false, 5
	case MatchPerceptual:
		if e.wmEq && e.near {
			// The record's mark and a near perceptual hash, content not
			// compared: derived from the signed picture, content may differ.
			return false, 45
		}
		if e.wmEq {
			// The record's mark alone, content not compared.
			return false, 20
		}
		return false, 20 + (25*(near-e.dist)+near/2)/near
	}
	return false, 0
}

// localDetails adds what the local signatures showed to the watermark
// check.
func localDetails(r *Result, e *eval) {
	if e == nil || !e.wmEq || e.shaEq {
		return
	}
	var d string
	switch {
	case e.local != nil && e.grid != nil:
		l := e.local
		switch l.Outcome {
		case localsig.Same:
			d = fmt.Sprintf("; all %d local signatures of the signed picture match", l.Compared)
		case localsig.Crop:
			d = fmt.Sprintf("; a crop showing %.0f %% of the signed picture, all %d overlapping local signatures match", 100*l.Region.W*l.Region.H, l.Compared)
		case localsig.Edited:
			d = fmt.Sprintf("; %d of %d local signatures of the signed picture differ: the picture was edited", l.ChangedCount, l.Compared)
		case localsig.Contained:
			d = fmt.Sprintf("; the whole signed picture is inside this file (all %d local signatures match) at x %.0f–%.0f %%, y %.0f–%.0f %% of it; "+
				"the rest of the file (%.0f %% of its area) is not part of the signed picture and is not vouched for", l.Compared,
				100*l.Within.X, 100*(l.Within.X+l.Within.W), 100*l.Within.Y, 100*(l.Within.Y+l.Within.H), 100*l.Surround)
			if l.Region.W < localsig.FullCover || l.Region.H < localsig.FullCover {
				d = fmt.Sprintf("; %.0f %% of the signed picture is inside this file (all %d overlapping local signatures match) at x %.0f–%.0f %%, y %.0f–%.0f %% of it; "+
					"the rest of the file (%.0f %% of its area) is not part of the signed picture and is not vouched for", 100*l.Region.W*l.Region.H, l.Compared,
					100*l.Within.X, 100*(l.Within.X+l.Within.W), 100*l.Within.Y, 100*(l.Within.Y+l.Within.H), 100*l.Surround)
			}
		case localsig.Mismatch:
			if l.Compared == 0 {
				d = "; the picture does not fit inside the signed picture: the watermark was transplanted into another picture"
			} else {
				d = fmt.Sprintf("; %d of %d local signatures differ: the picture is not the signed picture, the watermark was transplanted", l.ChangedCount, l.Compared)
			}
		default:
			d = "; too little of the signed picture overlaps to compare local signatures"
		}
	case e.grid == nil && e.rec.LocalSig == nil:
		d = "; the record predates local signatures, so the picture's content cannot be shown to be the signed picture's"
	default:
		d = "; the picture's local signatures were not compared"
	}
	r.Checks.Watermark.Details += d
}

// localRelation is the resemblance relation and detail of a watermark
// match the local signatures did not confirm; ok is false otherwise.
func localRelation(e *eval) (relation, detail string, ok bool) {
	id := e.rec.ID.String()
	switch e.match {
	case MatchEdited:
		x0, y0, x1, y1 := changedBox(e)
		return wire.RelationDerived, fmt.Sprintf("an edited copy of the picture signed as record %s: %d of %d blocks differ from the signed picture, "+
			"within x %.0f–%.0f %%, y %.0f–%.0f %% of it (see changed_blocks); the rest matches", id, e.local.ChangedCount, e.local.Compared,
			100*x0, 100*x1, 100*y0, 100*y1), true
	case MatchMismatch:
		return wire.RelationWatermarkTransplant, "warning: the file carries the watermark of record " + id +
			", but its picture is not the signed picture: the watermark was copied into another picture and does not show who made it", true
	case MatchPerceptual:
		switch {
		case e.wmEq && len(e.rec.LocalSig) == 0:
			ev := "its watermark"
			if e.near {
				ev += " and a near perceptual hash"
			}
			return wire.RelationDerived, "derived from the picture signed as record " + id +
				" (" + ev + "); the content may differ: the record has no local signatures to show it is unchanged", true
		case e.wmEq:
			return wire.RelationDerived, "carries the watermark of record " + id +
				"; its content was not compared, or too little of the signed picture could be, to show whether this picture is it", true
		}
	}
	return "", "", false
}

// wireLocal sets the response's match, region and changed_blocks.
func (r Result) wireLocal(w *wire.VerifyResponse) {
	w.Match = r.Match.String()
	l := r.local
	if l == nil || r.grid == nil {
		return
	}
	round := func(v float64) float64 { return math.Round(v*1000) / 1000 }
	switch r.Match {
	case MatchCrop, MatchEdited, MatchContained:
		w.Region = &wire.Region{X: round(l.Region.X), Y: round(l.Region.Y), W: round(l.Region.W), H: round(l.Region.H)}
	}
	if r.Match == MatchContained {
		w.Contained = &wire.Containment{Region: wire.Region{X: round(l.Within.X), Y: round(l.Within.Y), W: round(l.Within.W), H: round(l.Within.H)},
			Unvouched: round(l.Surround)}
	}
	if r.Match == MatchEdited {
		bm := &wire.BlockMap{Cols: r.grid.Cols, Rows: r.grid.Rows, Cells: []int{}}
		for i, c := range l.Changed {
			if c {
				bm.Cells = append(bm.Cells, i)
			}
		}
		w.ChangedBlocks = bm
	}
}

func isLocal(e *eval) bool { _, _, ok := localRelation(e); return ok }

// changedBox is the bounding box of the changed blocks, as fractions of
// the signed picture.
func changedBox(e *eval) (x0, y0, x1, y1 float64) {
	x0, y0 = 1, 1
	g := e.grid
	for i, c := range e.local.Changed {
		if !c {
			continue
		}
		col, row := i%g.Cols, i/g.Cols
		x0, y0 = min(x0, float64(col)/float64(g.Cols)), min(y0, float64(row)/float64(g.Rows))
		x1, y1 = max(x1, float64(col+1)/float64(g.Cols)), max(y1, float64(row+1)/float64(g.Rows))
	}
	return x0, y0, x1, y1
}
