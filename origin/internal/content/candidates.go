package content

import (
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"

	"github.com/provenant/provenant/origin/internal/content/nearindex"
	"github.com/provenant/provenant/origin/internal/content/phindex"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/verdict"
)

// poolFactor is how many perceptual neighbours, per candidate slot, the
// search reads before choosing: enough that one account's near-duplicates
// cannot fill the pool alone at the registration rate register allows.
const poolFactor = 4

// variants are the perceptual hashes of an upload's mirrors and quarter
// turns (phash.Transform 1..7) that look-before-mark searches besides its
// own hash.
type variants struct {
	hs []phash.Hash
	// fromBits: derived from a registered hash's bits (phash.Hash.Dihedral),
	// a few bits off the exact variant, so the index is probed at radius
	// 2 (every hash within 11 bits is found, phindex package doc) instead
	// of 1 (within 7): a registration affords the reads (about 7× a radius
	// 1 lookup, bench/README.md), a sign has the pixels and exact variants.
	fromBits bool
}

// earliestClaims is how many of the earliest-claimed records within the
// exact radius, and within the candidate distance, a lookup adds to the
// pool beside its nearest (phindex.Index.LookupPool).
const earliestClaims = 2

// floodOwnerRecords is the number of near-duplicates of one picture from
// one account above which a search logs a flood.
const floodOwnerRecords = 4

// candidates collects, in one read transaction, the records linked to f
// and chooses at most Limits.MaxCandidates of them fairly (see
// selectCandidates), each with a verifying signature.
func (s *Service) candidates(ctx context.Context, f Facts) ([]candidate, error) {
	cs, err := s.candidatesFor(ctx, f, variants{})
	out := make([]candidate, len(cs))
	for i, c := range cs {
		out[i] = c.candidate
	}
	return out, err
}

// pooled is a record the search found, before the choice.
type pooled struct {
	rec    *Record
	byOrig bool
	// strong: found by the SHA-256 (signed output or original upload), the
	// watermark payload, or a valid C2PA manifest naming it.
	strong bool
	// d64 is the 64-bit distance from the index (0 for strong records);
	// d256 the smallest 256-bit distance to any query hash.
	d64, d256 int
	// geo is the nearest of the record's geometric hashes (look-before-mark
	// only; none for verification).
	geo   geoMatch
	order int
}

// near reports whether p is tied to the file by its perceptual hash, or
// (look-before-mark) by one of its geometric hashes.
func (p *pooled) near() bool {
	return p.d256 <= phash.NearDistance256 || p.geo.d256 <= phash.NearDistance256
}

// dist is p's perceptual distance to the file, geometric hashes included.
func (p *pooled) dist() int { return min(p.d256, p.geo.d256) }

// chosen is a candidate with what look-before-mark needs besides.
type chosen struct {
	candidate
	geo geoMatch
}

// candidatesFor is candidates with the file's mirrors and quarter turns:
// variants (phash.Dihedral, or Hash.Dihedral for a registration) are
// looked up in the index besides f.PHash, so that a mirrored or turned
// copy finds the record of the picture it was made from. Verification
// passes none: its answer scores f.PHash as is (shared/verdict). With
// variants, the records' geometric hashes (crops and small rotations of
// the signed picture, geometry.go) are searched and compared too.
func (s *Service) candidatesFor(ctx context.Context, f Facts, vs variants) ([]chosen, error) {
	maxC := s.cfg.Media.Limits.MaxCandidates
	if !f.NotDecoded {
		// A search from a partly loaded index would miss copies: wait a
		// little for it, then refuse (nearindex.ErrLoading) rather than answer.
		if err := s.cfg.Near.Index.Wait(ctx); err != nil {
			return nil, fmt.Errorf("content: candidate lookup: %w", err)
		}
	}
	var out []chosen
	err := s.cfg.Store.View(ctx, func(tx store.Txn) error {
		pool, err := s.pool(tx, f, vs, maxC)
		if err != nil {
			return err
		}
		out = out[:0]
		for _, p := range s.selectCandidates(pool, maxC) {
			sg, err := p.rec.Signed()
			if err != nil {
				continue
			}
			if _, err := record.Verify(sg); err != nil {
				s.log.Warn("stored record signature does not verify; ignored", "record_id", p.rec.ID)
				continue
			}
			out = append(out, chosen{candidate: candidate{rec: p.rec, signed: sg, byOrig: p.byOrig}, geo: p.geo})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("content: candidate lookup: %w", err)
	}
	return out, nil
}

// pool reads the records linked to f: exact SHA-256 (signed file, then
// original upload), a valid C2PA manifest's record, the watermark
// payload's record, then up to poolFactor·maxC perceptual neighbours of
// f.PHash and of each variant, nearest first.
func (s *Service) pool(tx store.Txn, f Facts, vs variants, maxC int) ([]*pooled, error) {
	var out []*pooled
	seen := map[string]*pooled{}
	add := func(id string, byOrig, strong bool, d64 int) error {
		if p := seen[id]; p != nil {
			p.strong = p.strong || strong
			p.d64 = min(p.d64, d64)
			return nil
		}
		if len(out) >= (poolFactor+1)*maxC {
			return nil
		}
		r, err := getRecord(tx, id)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		p := &pooled{rec: r, byOrig: byOrig, strong: strong, d64: d64, d256: phash.Bits256 + 1, geo: noGeo(), order: len(out)}
		seen[id] = p
		out = append(out, p)
		return nil
	}
	shaHex := hex.EncodeToString(f.SHA256[:])
	var orig []string
	err := tx.Scan(shaPrefix(shaHex), nil, func(k, v []byte) error {
		id := string(k[len(shaPrefix(shaHex)):])
		if string(v) == "o" {
			orig = append(orig, id)
			return nil
		}
		return add(id, false, true, 0)
	})
	if err != nil {
		return nil, err
	}
	for _, id := range orig {
		if err := add(id, true, true, 0); err != nil {
			return nil, err
		}
	}
	// A valid manifest names its record: a candidate like any other,
	// which the checks then score (the manifest proves nothing alone).
	if c := f.C2PA; c != nil && c.ValidationState == "valid" && c.RecordID != "" {
		if err := add(c.RecordID, false, true, 0); err != nil {
			return nil, err
		}
	}
	if f.Watermark.Found {
		id, err := tx.Get(payloadKey(hex.EncodeToString(f.Watermark.Payload)))
		if err == nil {
			if err := add(string(id), false, true, 0); err != nil {
				return nil, err
			}
		} else if !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	if f.NotDecoded {
		return out, nil
	}
	if !s.cfg.Near.Index.Loaded() {
		return nil, nearindex.ErrLoading
	}
	if len(vs.hs) > 0 && s.cfg.Near.Index != nil && s.cfg.Near.Index.Geo() == nil {
		return nil, ErrGeometricIndexOff
	}
	queries := append([]phash.Hash{f.PHash}, vs.hs...)
	ix := s.phindex()
	if vs.fromBits {
		ix.Radius = max(ix.Radius, 2)
	}
	var ms []phindex.Match
	indexes := []phindex.Index{ix}
	if len(vs.hs) > 0 {
		gx := s.geoIndex()
		gx.Radius = ix.Radius
		indexes = append(indexes, gx)
	}
	var first []phindex.Match
	for _, x := range indexes {
		for _, q := range queries {
			near, early, err := x.LookupPool(tx, q, phash.CandidateDistance64, poolFactor*maxC, earliestClaims)
			if err != nil {
				return nil, err
			}
			ms = append(ms, near...)
			first = append(first, early...)
		}
	}
	// A photo's earliest claims enter the pool before the nearest records
	// (a burst of nearer copies from many sources must not push them
	// out); then the nearest, by 64-bit distance.
	slices.SortStableFunc(ms, func(a, b phindex.Match) int { return a.D64 - b.D64 })
	ms = append(first, ms...)
	for _, m := range ms {
		if err := add(record.ID(m.ID).String(), false, false, m.D64); err != nil {
			return nil, err
		}
	}
	for _, p := range out {
		h, err := phash.Parse(p.rec.PerceptualHash)
		if err != nil {
			continue
		}
		for _, q := range queries {
			p.d256 = min(p.d256, phash.Distance256(q.P256, h.P256))
		}
		if len(vs.hs) > 0 && p.d256 > phash.NearDistance256 {
			gs, err := geoHashes(tx, p.rec.ID)
			if err != nil {
				return nil, err
			}
			p.geo = nearestGeo(queries, gs)
		}
	}
	return out, nil
}

// selectCandidates chooses at most maxC of the pool so that no account can
// crowd another out of an answer:
//
//  1. every strong record (SHA-256, payload, manifest) is kept;
//  2. the earliest perceptual claim (verdict.Earlier on the service's
//     times) and the nearest are kept;
//  3. the other slots go round-robin over the accounts, perceptually tied
//     records before mere 64-bit neighbours, each account's own nearest
//     first, accounts in the order of their earliest claim.
//
// The chosen records keep the pool's order (strong first, then by 64-bit
// distance), which the verdict's last tie rule reads. An account with more
// than floodOwnerRecords near-duplicates in the pool is logged as a flood.
func (s *Service) selectCandidates(pool []*pooled, maxC int) []*pooled {
	if len(pool) <= maxC {
		return pool
	}
	chosen := make(map[*pooled]bool, maxC)
	take := func(p *pooled) {
		if p != nil && len(chosen) < maxC {
			chosen[p] = true
		}
	}
	var earliest, nearest *pooled
	byOwner := map[string][]*pooled{}
	for _, p := range pool {
		if p.strong {
			take(p)
			continue
		}
		if p.near() {
			if earliest == nil || claimBefore(p, earliest) {
				earliest = p
			}
			if nearest == nil || p.dist() < nearest.dist() {
				nearest = p
			}
		}
		byOwner[p.rec.Owner] = append(byOwner[p.rec.Owner], p)
	}
	take(earliest)
	take(nearest)
	owners := make([]string, 0, len(byOwner))
	for o, ps := range byOwner {
		slices.SortStableFunc(ps, func(a, b *pooled) int {
			if a.near() != b.near() {
				if a.near() {
					return -1
				}
				return 1
			}
			return cmp.Compare(a.dist(), b.dist())
		})
		owners = append(owners, o)
		if n := countNear(ps); n > floodOwnerRecords {
			s.log.Warn("near-duplicate flood: one account holds many records of the same picture; its share of the candidates is capped",
				"account_id", o, "near_records", n, "max_candidates", maxC)
		}
	}
	slices.SortFunc(owners, func(a, b string) int {
		if claimBefore(byOwner[a][0], byOwner[b][0]) {
			return -1
		}
		if claimBefore(byOwner[b][0], byOwner[a][0]) {
			return 1
		}
		return cmp.Compare(a, b)
	})
	// Tied records of every account first, then the 64-bit neighbours.
	for _, nearPass := range []bool{true, false} {
		for round := 0; len(chosen) < maxC; round++ {
			progress := false
			for _, o := range owners {
				ps := byOwner[o]
				// The round-th record of this account among the pass's kind.
				k := 0
				for _, p := range ps {
					if p.near() != nearPass {
						continue
					}
					if k == round {
						take(p)
						progress = true
						break
					}
					k++
				}
			}
			if !progress {
				break
			}
		}
	}
	out := make([]*pooled, 0, len(chosen))
	for _, p := range pool {
		if chosen[p] {
			out = append(out, p)
		}
	}
	return out
}

// claimBefore orders claims by the service's times (verdict.Earlier), the
// nearer first between equal times.
func claimBefore(a, b *pooled) bool {
	ca, cb := timesOf(a.rec), timesOf(b.rec)
	if verdict.Earlier(&ca, &cb) {
		return true
	}
	if verdict.Earlier(&cb, &ca) {
		return false
	}
	return a.dist() < b.dist()
}

func countNear(ps []*pooled) int {
	n := 0
	for _, p := range ps {
		if p.near() {
			n++
		}
	}
	return n
}
