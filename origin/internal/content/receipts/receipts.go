package receipts

import (
	"context"
	"errors"
	"fmt"

	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/shared/merkle"
	"github.com/provenant/provenant/shared/receipt"
)

// ErrNotAnchored: the record's anchor is not verified yet (its batch is
// open, or its transaction lacks confirmations), so there is no receipt to
// give. The error is a *NotAnchoredError saying why.
var ErrNotAnchored = errors.New("receipts: record not anchored yet")

// NotAnchoredError is returned by Receipt while the record's anchor does
// not verify. It wraps ErrNotAnchored.
type NotAnchoredError struct {
	// Detail is the blockchain check's sentence ("pending: queued for the
	// next batch", ...).
	Detail string
}

func (e *NotAnchoredError) Error() string { return "receipts: record not anchored: " + e.Detail }

// Unwrap makes errors.Is(err, ErrNotAnchored) hold.
func (e *NotAnchoredError) Unwrap() error { return ErrNotAnchored }

// Receipt returns the offline receipt (shared/receipt) of record id, any
// owner's, once its anchor verifies against the chain (the same check as
// verify's blockchain check); before that a *NotAnchoredError. The
// receipt is built from the stored signed record and the proof recomputed
// from the anchoring state, and receipt.New refuses one that does not
// verify offline, so the service never hands out a receipt it could not
// check itself. When the record's signing key is revoked the receipt
// carries the decision (key_revocation). An unknown id is
// content.ErrNotFound.
func (s *Service) Receipt(ctx context.Context, id string) (*receipt.Receipt, error) {
	r, err := s.cfg.Records.Find(ctx, id)
	if err != nil {
		return nil, err
	}
	sg, err := r.Signed()
	if err != nil {
		return nil, err
	}
	st := s.cfg.Records.AnchorState(ctx, r)
	if st.Outcome != anchor.Verified || st.Proof == nil {
		return nil, &NotAnchoredError{Detail: st.Detail}
	}
	// The batch is on chain but the record does not carry its anchoring
	// time yet (the batch callback runs a moment later). A signing key's
	// revocation is judged against that time, so no receipt goes out
	// before it is known: the receipt and a later verify then agree.
	if r.AnchoredAt == nil {
		return nil, &NotAnchoredError{Detail: "anchored: the record's anchoring time is being recorded"}
	}
	p := st.Proof
	in := receipt.Inclusion{LeafIndex: p.LeafIndex, TreeSize: p.TreeSize, AuditPath: make([]merkle.Hash, len(p.AuditPath)),
		Root: merkle.Hash(p.MerkleRoot), ChainID: p.ChainID, TxHash: p.TxHash, BlockNumber: p.BlockNumber, BlockHash: p.BlockHash}
	for i, h := range p.AuditPath {
		in.AuditPath[i] = merkle.Hash(h)
	}
	rc, err := receipt.New(sg, in)
	if err != nil {
		return nil, fmt.Errorf("receipts: receipt of %s: %w", id, err)
	}
	if n := s.cfg.Network; n != nil {
		cp := *n
		rc.Network = &cp
	}
	if kr := s.cfg.Records.KeyRevocationOf(ctx, r); kr != nil {
		rc.KeyRevocation = kr
	}
	return rc, nil
}
