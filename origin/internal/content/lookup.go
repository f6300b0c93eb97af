package content

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"time"

	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/wire"
)

// Lookup answers a verification by facts (POST /api/v1/verify/lookup):
// the candidate records Verify would score for a file with facts f, found
// by the same candidate search, each with its canonical signed bytes,
// signature, display fields, revocation and anchoring state, so that the
// caller checks them and computes the verdict itself (shared/lookup).
//
// As in Verify, a sha256 that is the signed output of a record this
// service signed takes that record's perceptual hash and payload for the
// search. When report is true the verification is also counted and
// content.verified published exactly as Verify does (VerifyFacts).
func (s *Service) Lookup(ctx context.Context, f Facts, report bool) (wire.LookupResponse, error) {
	ef, signed, ok, err := s.exactFacts(ctx, f.SHA256)
	if err != nil {
		return wire.LookupResponse{}, err
	}
	if ok && signed {
		ef.C2PA = f.C2PA
		f = ef
	}
	return s.lookup(ctx, f, report)
}

// LookupExact is Lookup for a client that knows only the file's SHA-256
// (sum) and, perhaps, its C2PA facts (c2pa): when sum is the signed output
// of a record this service signed, exact is true and the answer is
// Lookup's for that file, counted when report is true; otherwise exact is
// false and nothing is searched or counted, so the client analyses the
// file and asks Lookup. A registered record's output is not exact here:
// its facts are the client's claim, and Verify decodes such a file.
func (s *Service) LookupExact(ctx context.Context, sum [32]byte, c2pa *wire.C2PAFacts, report bool) (res wire.LookupResponse, exact bool, err error) {
	f, signed, ok, err := s.exactFacts(ctx, sum)
	if err != nil || !ok || !signed {
		return wire.LookupResponse{}, false, err
	}
	f.C2PA = c2pa
	res, err = s.lookup(ctx, f, report)
	return res, err == nil, err
}

// lookup answers the facts f as they are (exactFacts already applied).
func (s *Service) lookup(ctx context.Context, f Facts, report bool) (wire.LookupResponse, error) {
	cands, err := s.candidates(ctx, f)
	if err != nil {
		return wire.LookupResponse{}, err
	}
	if cands, err = s.withParents(ctx, cands); err != nil {
		return wire.LookupResponse{}, err
	}
	out := wire.LookupResponse{Candidates: make([]wire.LookupCandidate, 0, len(cands))}
	if f.C2PA != nil {
		out.C2PACA = s.c2paCA(ctx)
	}
	shaHex := hex.EncodeToString(f.SHA256[:])
	for _, c := range cands {
		out.Candidates = append(out.Candidates, s.lookupCandidate(ctx, c, shaHex))
	}
	if report {
		if _, err := s.VerifyFacts(ctx, f); err != nil {
			return wire.LookupResponse{}, err
		}
	}
	return out, nil
}

// lookupTime keeps full precision: the client orders competing claims by
// these times exactly as the origin does.
func lookupTime(t *time.Time) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func (s *Service) lookupCandidate(ctx context.Context, c candidate, shaHex string) wire.LookupCandidate {
	r := c.rec
	w := wire.LookupCandidate{
		RecordID: r.ID, Record: base64.StdEncoding.EncodeToString(c.signed.Bytes),
		SignatureHex: hex.EncodeToString(c.signed.Signature), Source: r.Source,
		OriginalMatch: r.OriginalSHA256 != "" && r.OriginalSHA256 == shaHex,
		Status:        r.Status, RevokedAt: lookupTime(r.RevokedAt), RevokedReason: r.RevokedReason,
		CreatedAt: lookupTime(&r.CreatedAt), AnchoredAt: lookupTime(r.AnchoredAt), ParentRecordID: r.ParentRecordID,
		WatermarkReason: r.WatermarkReason, SigningKey: s.keyState(ctx, r),
	}
	// The display fields come from the claim verify scores, decided on
	// the very key state the candidate carries.
	if rec, err := record.Parse(c.signed.Bytes); err == nil {
		w.SignerPublicKey = hex.EncodeToString(rec.SignerPublicKey)
	}
	cl := s.claimWithKey(ctx, c, w.SigningKey)
	w.Signer, w.Origin = cl.Signer, cl.Origin
	st, err := s.cfg.Chain.Proofs.AnchorState(ctx, r.ID, anchor.Hash(c.signed.LeafHash()))
	if err != nil {
		s.log.Warn("anchor state unavailable", "record_id", r.ID, "err", err)
		w.AnchorState, w.AnchorDetail = wire.AnchorUnavailable, "unavailable: the anchoring state could not be read"
		return w
	}
	w.AnchorState, w.RootConfirmed = wireAnchorState(st.Outcome), st.Outcome == anchor.Verified
	w.AnchorDetail, w.Network = st.Detail, s.cfg.Chain.Network
	if a := st.Anchor(); a != nil {
		wa := &wire.Anchor{BatchID: a.BatchID, LeafIndex: a.LeafIndex, TreeSize: a.TreeSize, MerkleRoot: a.Root.String(),
			TxHash: a.TxHash, BlockNumber: a.BlockNumber, Network: a.Network, ChainID: a.ChainID, BlockHash: a.BlockHash,
			AuditPath: make([]string, len(a.AuditPath))}
		for i, h := range a.AuditPath {
			wa.AuditPath[i] = h.String()
		}
		w.Anchor = wa
	}
	return w
}
