// Package receipts hands out the offline receipt of a content record
// (shared/receipt, docs/receipt.md): the signed record, its Merkle
// inclusion proof and the anchoring transaction, which anyone checks
// without this service.
//
// It guarantees that no receipt goes out before the record's anchor
// verifies against the chain (the same check as verify's blockchain
// check) and its anchoring time is recorded, and that every receipt it
// gives verifies offline (receipt.New refuses one that does not). It
// reads records through Records (*content.Service) and writes nothing.
package receipts

import (
	"context"
	"errors"
	"fmt"

	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/content"
	"github.com/provenant/provenant/shared/merkle"
	"github.com/provenant/provenant/shared/receipt"
	"github.com/provenant/provenant/shared/wire"
)

// Records is what receipts read of the content records
// (*content.Service implements it).
type Records interface {
	// Find returns any account's record id, or content.ErrNotFound.
	Find(ctx context.Context, id string) (*content.Record, error)
	// AnchorState reports r's anchoring state, recomputed, not trusted
	// from the record.
	AnchorState(ctx context.Context, r *content.Record) anchor.State
	// KeyRevocationOf is what the revocation of r's signing key decided
	// about r, nil when the key is not revoked.
	KeyRevocationOf(ctx context.Context, r *content.Record) *wire.KeyRevocation
}

// Config configures a Service. Records is required.
type Config struct {
	Records Records
	// Network describes the chain records are anchored on, as configured;
	// every receipt carries it. Nil says nothing.
	Network *wire.Network
}

// Service gives receipts. It is safe for concurrent use.
type Service struct{ cfg Config }

// New validates cfg and returns a Service.
func New(cfg Config) (*Service, error) {
	if cfg.Records == nil {
		return nil, errors.New("receipts: Records is required")
	}
	return &Service{cfg: cfg}, nil
}

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
