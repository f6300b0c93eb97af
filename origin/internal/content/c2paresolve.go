package content

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/phash"
)

// c2paManifest is a stored manifest store and the record it belongs to,
// kept so that the Soft Binding Resolution API can serve the manifest of
// a copy stripped of it.
type c2paManifest struct {
	RecordID string `json:"record_id"`
	Store    []byte `json:"store"`
}

func c2paManifestKey(id string) []byte  { return []byte("c2pam/" + id) }
func c2paRecordKey(recID string) []byte { return []byte("c2par/" + recID) }

// putC2PA stores r's manifest, inside the transaction that stores r.
func putC2PA(tx store.Txn, r *Record) error {
	if r.C2PAManifestID == "" {
		return nil
	}
	if err := store.PutJSON(tx, c2paManifestKey(r.C2PAManifestID), c2paManifest{RecordID: r.ID, Store: r.c2paStore}); err != nil {
		return err
	}
	return tx.Set(c2paRecordKey(r.ID), []byte(r.C2PAManifestID))
}

// ErrNoManifest: no manifest by that id (or the record has none).
var ErrNoManifest = errors.New("content: no such C2PA manifest")

// C2PAManifest returns the manifest store stored under id and its record.
func (s *Service) C2PAManifest(ctx context.Context, id string) (manifestStore []byte, recordID string, err error) {
	var m c2paManifest
	err = s.cfg.Store.View(ctx, func(tx store.Txn) error {
		var err error
		m, err = store.GetJSON[c2paManifest](tx, c2paManifestKey(id))
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, "", ErrNoManifest
	}
	if err != nil {
		return nil, "", fmt.Errorf("content: C2PA manifest: %w", err)
	}
	return m.Store, m.RecordID, nil
}

// C2PAManifestOf returns the id of the manifest written into record
// recID's signed file ("" when none).
func (s *Service) C2PAManifestOf(ctx context.Context, recID string) (string, error) {
	var id string
	err := s.cfg.Store.View(ctx, func(tx store.Txn) error {
		v, err := tx.Get(c2paRecordKey(recID))
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		id = string(v)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("content: C2PA manifest of %s: %w", recID, err)
	}
	return id, nil
}

// C2PACA returns the CA certificate (PEM) this origin's manifests are
// signed under, to add as a trust anchor; ErrNoManifest when the service
// writes no manifests.
func (s *Service) C2PACA(ctx context.Context) ([]byte, error) {
	if s.cfg.C2PA == nil {
		return nil, ErrNoManifest
	}
	return s.cfg.C2PA.CAPEM(ctx)
}

// c2paCA is the CA certificate (PEM) the verify answer's trust decision
// uses; "" without an authority.
func (s *Service) c2paCA(ctx context.Context) string {
	if s.cfg.C2PA == nil {
		return ""
	}
	p, err := s.cfg.C2PA.CAPEM(ctx)
	if err != nil {
		s.log.Warn("C2PA CA unavailable", "err", err)
		return ""
	}
	return string(p)
}

// C2PAMatch is one manifest a soft binding or a file resolves to.
type C2PAMatch struct {
	ManifestID string
	RecordID   string
	// Score is the similarity, 0 to 100: 100 for an exact file, our
	// watermark or an identical perceptual hash, less as the perceptual
	// hashes differ.
	Score int
}

// ErrUnknownAlgorithm: the soft-binding algorithm is not one of ours.
var ErrUnknownAlgorithm = errors.New("content: unsupported soft-binding algorithm")

// ErrBindingValue: the value does not have the algorithm's form.
var ErrBindingValue = errors.New("content: soft-binding value does not fit the algorithm")

// C2PAMatchesByBinding resolves a soft-binding value of one of our
// algorithms (facts.AlgWatermark: the 8-byte payload; facts.AlgPHash:
// the 40-byte perceptual hash, matched when the 256-bit hashes are within
// phash.NearDistance256) to the manifests of active records, best first,
// at most max.
func (s *Service) C2PAMatchesByBinding(ctx context.Context, alg string, value []byte, max int) ([]C2PAMatch, error) {
	var f Facts
	switch alg {
	case facts.AlgWatermark:
		if len(value) != 8 {
			return nil, ErrBindingValue
		}
		f.Watermark.Found, f.Watermark.Payload = true, value
	case facts.AlgPHash:
		h, err := phash.FromBytes(value)
		if err != nil {
			return nil, ErrBindingValue
		}
		f.PHash = h
	default:
		return nil, ErrUnknownAlgorithm
	}
	return s.c2paMatches(ctx, f, alg == facts.AlgPHash, max)
}

// C2PAMatchesByContent computes the watermark and perceptual hash of file
// (shared/facts, as verify does) and resolves them, with the file's exact
// SHA-256, to manifests as C2PAMatchesByBinding does.
func (s *Service) C2PAMatchesByContent(ctx context.Context, file []byte, max int) ([]C2PAMatch, error) {
	release, err := s.cfg.DecodeBudget.Reserve(ctx, file, s.cfg.Limits, imagex.UseVerify)
	if err != nil {
		return nil, err
	}
	ff, err := facts.Analyze(file, s.cfg.Limits, s.cfg.Clock.Now())
	release()
	if err != nil {
		return nil, err
	}
	return s.c2paMatches(ctx, fromFacts(ff), true, max)
}

// c2paMatches scores the records the candidate search finds for f: the
// exact SHA-256 and the watermark payload score 100, a perceptual
// neighbour by its 256-bit distance (none past NearDistance256, none at
// all unless byHash). Revoked records and records without a manifest are
// left out.
func (s *Service) c2paMatches(ctx context.Context, f Facts, byHash bool, max int) ([]C2PAMatch, error) {
	if !byHash {
		f.NotDecoded = true // no perceptual search
	}
	cands, err := s.candidates(ctx, f)
	if err != nil {
		return nil, err
	}
	var out []C2PAMatch
	for _, c := range cands {
		r := c.rec
		if r.Status == StatusRevoked || c.byOrig {
			continue
		}
		score := 0
		switch {
		case r.SHA256 == hex.EncodeToString(f.SHA256[:]):
			score = 100
		case f.Watermark.Found && r.WatermarkPayloadHex == hex.EncodeToString(f.Watermark.Payload):
			score = 100
		case byHash:
			h, err := phash.Parse(r.PerceptualHash)
			if err != nil {
				continue
			}
			d := phash.Distance256(h.P256, f.PHash.P256)
			if d > phash.NearDistance256 {
				continue
			}
			score = 100 - (100*d+phash.Bits256/2)/phash.Bits256
		}
		if score == 0 {
			continue
		}
		id, err := s.C2PAManifestOf(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		if id == "" {
			continue
		}
		out = append(out, C2PAMatch{ManifestID: id, RecordID: r.ID, Score: score})
	}
	slices.SortStableFunc(out, func(a, b C2PAMatch) int { return b.Score - a.Score })
	if max > 0 && len(out) > max {
		out = out[:max]
	}
	return out, nil
}
