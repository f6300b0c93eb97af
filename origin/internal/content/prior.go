package content

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/verdict"
)

// link is a stored record a file is tied to, with what ties it.
type link struct {
	rec      *Record
	evidence []string
	// geometry says how the record's picture became the file (a mirror or
	// turn, a crop or rotation) when the perceptual link needed one; empty
	// when as is.
	geometry string
}

// links returns the records f is tied to (watermark, SHA-256 of the signed
// output or of the uploaded original, near perceptual hash of the file or
// of one of its variants, its mirrors and quarter turns), each with its
// evidence, in candidate order. Revoked records are left out: their signer
// withdrew the claim.
func (s *Service) links(ctx context.Context, f Facts, vs variants) ([]link, error) {
	cands, err := s.candidatesFor(ctx, f, vs)
	if err != nil {
		return nil, err
	}
	var out []link
	for _, c := range cands {
		if c.rec.Status == StatusRevoked {
			continue
		}
		rec, err := record.Parse(c.signed.Bytes)
		if err != nil {
			continue
		}
		ev, g := evidenceOf(f, vs.hs, rec, c.byOrig)
		l := link{rec: c.rec, evidence: ev}
		if hasEvidence(ev, EvidencePerceptualHash) && g != phash.Identity {
			l.geometry = g.String()
		}
		if !hasEvidence(ev, EvidencePerceptualHash) && c.geo.d256 <= phash.NearDistance256 {
			l.evidence = append(l.evidence, EvidencePerceptualGeometry)
			l.geometry = c.geo.describe()
		}
		if len(l.evidence) > 0 {
			out = append(out, l)
		}
	}
	return out, nil
}

// evidenceOf lists what ties the file with facts f (and the perceptual
// hashes variants of its mirrors and turns, indexed by phash.Transform
// from 1) to rec, strongest first, and the transform that makes rec's
// picture into the file.
func evidenceOf(f Facts, variants []phash.Hash, rec *record.Record, byOrig bool) ([]string, phash.Transform) {
	var ev []string
	if f.Watermark.Found && len(rec.WatermarkPayload) > 0 && bytes.Equal(f.Watermark.Payload, rec.WatermarkPayload) {
		ev = append(ev, EvidenceWatermark)
	}
	if f.SHA256 == rec.SHA256 {
		ev = append(ev, EvidenceSHA256)
	}
	if byOrig {
		ev = append(ev, EvidenceOriginalSHA256)
	}
	if f.NotDecoded {
		return ev, phash.Identity
	}
	g, best := phash.Identity, phash.Distance256(f.PHash.P256, rec.PerceptualHash.P256)
	for i, v := range variants {
		if d := phash.Distance256(v.P256, rec.PerceptualHash.P256); d < best {
			g, best = phash.Transform(i+1), d
		}
	}
	// Variant t undoes the file's geometry: the file is the record's
	// picture under t's inverse.
	g = g.Inverse()
	if best <= phash.NearDistance256 {
		ev = append(ev, EvidencePerceptualHash)
	}
	return ev, g
}

// prior picks, among the links, the record an upload derives from, in the
// order verification uses (verdict.SignedFirst, as verdict.Decide applies
// it): the one whose watermark is in the picture, else the
// earliest claim by the service's times (never the record's own timestamp
// claim); between claims of equal time, a parent before its derivative, an
// original before a derivative, then the stronger evidence.
func prior(ls []link) *link {
	var best *link
	for i := range ls {
		if l := &ls[i]; best == nil || priorBefore(l, best) {
			best = l
		}
	}
	return best
}

func priorBefore(a, b *link) bool {
	if wa, wb := hasEvidence(a.evidence, EvidenceWatermark), hasEvidence(b.evidence, EvidenceWatermark); wa != wb {
		return wa
	}
	if o := verdict.SignedFirst(claimOf(a.rec), claimOf(b.rec)); o != 0 {
		return o < 0
	}
	return evidenceRank(a.evidence) < evidenceRank(b.evidence)
}

// claimOf is r as verdict.SignedFirst reads it.
func claimOf(r *Record) verdict.Claim {
	c := verdict.Claim{ID: r.ID, Parent: r.ParentRecordID, CreatedAt: r.CreatedAt}
	if r.AnchoredAt != nil {
		c.AnchoredAt = *r.AnchoredAt
	}
	return c
}

// timesOf gives the service times of r in the form verdict.Earlier reads.
func timesOf(r *Record) verdict.Candidate {
	c := verdict.Candidate{CreatedAt: r.CreatedAt}
	if r.AnchoredAt != nil {
		c.AnchoredAt = *r.AnchoredAt
	}
	return c
}

// evidenceRank is the position of the strongest evidence in the evidence
// order (lower is stronger).
func evidenceRank(ev []string) int {
	for i, k := range []string{EvidenceWatermark, EvidenceSHA256, EvidenceOriginalSHA256, EvidencePerceptualHash, EvidencePerceptualGeometry} {
		if hasEvidence(ev, k) {
			return i
		}
	}
	return 5
}

func hasEvidence(ev []string, kind string) bool {
	for _, e := range ev {
		if e == kind {
			return true
		}
	}
	return false
}

// parentFor applies the sign-time rule to an upload of owner with facts f:
// it returns the parent link of the new record (nil when the upload is
// new content), or an *AlreadySignedError when the upload is another
// account's content and derivativeOf is empty, or ErrDerivativeMismatch
// when derivativeOf is not among the records the upload is tied to.
//
// variants are the perceptual hashes of the upload's mirrors and quarter
// turns (phash.Dihedral without the identity): a mirrored or turned copy
// of another account's picture is that account's content too.
func (s *Service) parentFor(ctx context.Context, f Facts, vs variants, owner, derivativeOf string) (*link, error) {
	ls, err := s.links(ctx, f, vs)
	if err != nil {
		return nil, err
	}
	if derivativeOf != "" {
		for i := range ls {
			if ls[i].rec.ID == derivativeOf {
				return &ls[i], nil
			}
		}
		if len(ls) == 0 {
			return nil, fmt.Errorf("%w: the upload is not linked to record %s (no watermark, SHA-256 or perceptual hash match)", ErrDerivativeMismatch, derivativeOf)
		}
		return nil, fmt.Errorf("%w: the upload is not linked to record %s but to record %s", ErrDerivativeMismatch, derivativeOf, prior(ls).rec.ID)
	}
	p := prior(ls)
	if p == nil {
		return nil, nil
	}
	if p.rec.Owner != owner {
		e := &AlreadySignedError{RecordID: p.rec.ID, Evidence: p.evidence}
		e.Geometry = p.geometry
		return nil, e
	}
	return p, nil
}

// Lineage returns r's provenance as the service recorded it at signing:
// its ancestors through parent links, oldest first, then r itself (at most
// maxParentDepth ancestors; a missing parent ends the walk). A record with
// no parent gives just itself.
func (s *Service) Lineage(ctx context.Context, r *Record) ([]*Record, error) {
	out := []*Record{r}
	seen := map[string]bool{r.ID: true}
	err := s.cfg.Store.View(ctx, func(tx store.Txn) error {
		for id, d := r.ParentRecordID, 0; id != "" && !seen[id] && d < maxParentDepth; d++ {
			seen[id] = true
			p, err := getRecord(tx, id)
			if errors.Is(err, ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			out = append(out, p)
			id = p.ParentRecordID
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("content: lineage of %s: %w", r.ID, err)
	}
	slices.Reverse(out)
	return out, nil
}
