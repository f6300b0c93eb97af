// Package badges says what the public badges show (docs/widget.md): the
// state of one record, and an organisation's count of signed and
// anchored records.
//
// It guarantees that a badge never reads better than verify would: a
// revoked record, or one its signing key's revocation makes not
// authentic, is never shown anchored, and an organisation's counts leave
// such records out; a name is shown with a verified domain only when the
// one account using it proved that domain. It reads records through
// Records (*content.Service) and writes nothing.
package badges

import (
	"context"
	"errors"

	"github.com/provenant/provenant/origin/internal/content"
	"github.com/provenant/provenant/shared/wire"
)

// Records is what badges read of the content records (*content.Service
// implements it).
type Records interface {
	// Find returns any account's record id, or content.ErrNotFound.
	Find(ctx context.Context, id string) (*content.Record, error)
	// KeyRevocationOf is what the revocation of r's signing key decided
	// about r, nil when the key is not revoked.
	KeyRevocationOf(ctx context.Context, r *content.Record) *wire.KeyRevocation
	// KeyRevocations decides as KeyRevocationOf does for many records,
	// reading each signing key once.
	KeyRevocations() func(ctx context.Context, r *content.Record) *wire.KeyRevocation
	// EachOrgRecord calls fn with each record signed under org, at most
	// max index entries, and reports whether more were left.
	EachOrgRecord(ctx context.Context, org string, max int, fn func(*content.Record)) (truncated bool, err error)
	// Identify fills the display members of each record's signer.
	Identify(ctx context.Context, rs ...*content.Record)
}

// Config configures a Service. Records is required.
type Config struct {
	Records Records
	// Network describes the chain records are anchored on, as configured;
	// a record badge names it. Nil says nothing.
	Network *wire.Network
}

// Service answers badge states. It is safe for concurrent use.
type Service struct{ cfg Config }

// New validates cfg and returns a Service.
func New(cfg Config) (*Service, error) {
	if cfg.Records == nil {
		return nil, errors.New("badges: Records is required")
	}
	return &Service{cfg: cfg}, nil
}
