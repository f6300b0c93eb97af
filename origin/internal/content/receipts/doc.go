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

	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/content"
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
