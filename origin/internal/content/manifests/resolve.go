package manifests

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

// Key layout: c2pam/<manifest id> holds the store and its record (JSON),
// c2par/<record id> the record's manifest id.
func c2paManifestKey(id string) []byte  { return []byte("c2pam/" + id) }
func c2paRecordKey(recID string) []byte { return []byte("c2par/" + recID) }

// Put keeps manifest store st, whose id is manifestID, as record
// recordID's. It writes only through tx: call it inside the transaction
// that stores the record, so that both commit or neither does. An empty
// manifestID (a record without a manifest) writes nothing.
func Put(tx store.Txn, recordID, manifestID string, st []byte) error {
	if manifestID == "" {
		return nil
	}
	if err := store.PutJSON(tx, c2paManifestKey(manifestID), c2paManifest{RecordID: recordID, Store: st}); err != nil {
		return err
	}
	return tx.Set(c2paRecordKey(recordID), []byte(manifestID))
}

// ErrNoManifest: no manifest by that id (or the service writes none).
var ErrNoManifest = errors.New("manifests: no such C2PA manifest")

// Match is one manifest a soft binding or a file resolves to.
type Match struct {
	ManifestID string
	RecordID   string
	// Score is the similarity, 0 to 100: 100 for an exact file, our
	// watermark or an identical perceptual hash, less as the perceptual
	// hashes differ.
	Score int
}

// ErrUnknownAlgorithm: the soft-binding algorithm is not one of ours.
var ErrUnknownAlgorithm = errors.New("manifests: unsupported soft-binding algorithm")

// ErrBindingValue: the value does not have the algorithm's form.
var ErrBindingValue = errors.New("manifests: soft-binding value does not fit the algorithm")

// Manifest returns the manifest store kept under id and its record, or
// ErrNoManifest.
func (s *Resolver) Manifest(ctx context.Context, id string) (manifestStore []byte, recordID string, err error) {
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
		return nil, "", fmt.Errorf("manifests: C2PA manifest: %w", err)
	}
	return m.Store, m.RecordID, nil
}

// ManifestOf returns the id of the manifest written into record recID's
// signed file ("" when none).
func (s *Resolver) ManifestOf(ctx context.Context, recID string) (string, error) {
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
		return "", fmt.Errorf("manifests: C2PA manifest of %s: %w", recID, err)
	}
	return id, nil
}

// CA returns the CA certificate (PEM) this origin's manifests are signed
// under, to add as a trust anchor; ErrNoManifest when the service writes
// no manifests.
func (s *Resolver) CA(ctx context.Context) ([]byte, error) {
	if s.cfg.Authority == nil {
		return nil, ErrNoManifest
	}
	return s.cfg.Authority.CAPEM(ctx)
}

// ByBinding resolves a soft-binding value of one of our algorithms
// (facts.AlgWatermark: the 8-byte payload; facts.AlgPHash: the 40-byte
// perceptual hash, matched when the 256-bit hashes are within
// phash.NearDistance256) to the manifests of active records, best first,
// at most max.
func (s *Resolver) ByBinding(ctx context.Context, alg string, value []byte, max int) ([]Match, error) {
	var f facts.Facts
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
	return s.matches(ctx, f, alg == facts.AlgPHash, max)
}

// ByContent computes the watermark and perceptual hash of file
// (shared/facts, as verify does) and resolves them, with the file's exact
// SHA-256, to manifests as ByBinding does.
func (s *Resolver) ByContent(ctx context.Context, file []byte, max int) ([]Match, error) {
	release, err := s.cfg.DecodeBudget.Reserve(ctx, file, s.cfg.Limits, imagex.UseVerify)
	if err != nil {
		return nil, err
	}
	f, err := facts.Analyze(file, s.cfg.Limits, s.cfg.Clock.Now())
	release()
	if err != nil {
		return nil, err
	}
	return s.matches(ctx, f, true, max)
}

// matches scores the records the candidate search finds for f: the exact
// SHA-256 and the watermark payload score 100, a perceptual neighbour by
// its 256-bit distance (none past NearDistance256, none at all unless
// byHash). Revoked records, records found by their original and records
// without a manifest are left out.
func (s *Resolver) matches(ctx context.Context, f facts.Facts, byHash bool, max int) ([]Match, error) {
	cands, err := s.cfg.Records.ManifestCandidates(ctx, f, byHash)
	if err != nil {
		return nil, err
	}
	var out []Match
	for _, c := range cands {
		if c.Revoked || c.ByOriginal {
			continue
		}
		score := 0
		switch {
		case c.SHA256 == hex.EncodeToString(f.SHA256[:]):
			score = 100
		case f.Watermark.Found && c.WatermarkPayloadHex == hex.EncodeToString(f.Watermark.Payload):
			score = 100
		case byHash:
			h, err := phash.Parse(c.PerceptualHash)
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
		id, err := s.ManifestOf(ctx, c.RecordID)
		if err != nil {
			return nil, err
		}
		if id == "" {
			continue
		}
		out = append(out, Match{ManifestID: id, RecordID: c.RecordID, Score: score})
	}
	slices.SortStableFunc(out, func(a, b Match) int { return b.Score - a.Score })
	if max > 0 && len(out) > max {
		out = out[:max]
	}
	return out, nil
}
