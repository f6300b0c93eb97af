package content

import (
	"context"

	"github.com/provenant/provenant/origin/internal/content/manifests"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/facts"
)

// What signing and verification need of C2PA; the manifests themselves
// (writing, keeping, resolving) are origin/internal/content/manifests.

// putC2PA keeps r's manifest, inside the transaction that stores r.
func putC2PA(tx store.Txn, r *Record) error {
	return manifests.Put(tx, r.ID, r.C2PAManifestID, r.c2paStore)
}

// c2paCA is the CA certificate (PEM) the verify answer's trust decision
// uses; "" without an authority.
func (s *Service) c2paCA(ctx context.Context) string {
	if s.cfg.Outputs.C2PA == nil {
		return ""
	}
	p, err := s.cfg.Outputs.C2PA.CAPEM(ctx)
	if err != nil {
		s.log.Warn("C2PA CA unavailable", "err", err)
		return ""
	}
	return string(p)
}

// ManifestCandidates implements manifests.Records: the records the
// verification search (candidates) links to f, by exact SHA-256 and
// watermark payload, and by perceptual neighbours only when byHash.
func (s *Service) ManifestCandidates(ctx context.Context, f facts.Facts, byHash bool) ([]manifests.Candidate, error) {
	ff := fromFacts(f)
	ff.NotDecoded = !byHash // no perceptual search
	cands, err := s.candidates(ctx, ff)
	if err != nil {
		return nil, err
	}
	out := make([]manifests.Candidate, len(cands))
	for i, c := range cands {
		r := c.rec
		out[i] = manifests.Candidate{RecordID: r.ID, SHA256: r.SHA256, WatermarkPayloadHex: r.WatermarkPayloadHex,
			PerceptualHash: r.PerceptualHash, Revoked: r.Status == StatusRevoked, ByOriginal: c.byOrig}
	}
	return out, nil
}
