package manifests

import (
	"context"
	"errors"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/clock"
	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
)

// Candidate is a record the candidate search linked to a file, with what
// resolution scores it by.
type Candidate struct {
	RecordID string
	// SHA256, WatermarkPayloadHex and PerceptualHash are the record's
	// (hex; the payload "" when it has none).
	SHA256, WatermarkPayloadHex, PerceptualHash string
	// Revoked records resolve to nothing; nor does a record found only by
	// its unwatermarked original (ByOriginal), whose manifest the file
	// does not carry.
	Revoked, ByOriginal bool
}

// Records finds the records a file may belong to (*content.Service
// implements it).
type Records interface {
	// ManifestCandidates returns the records the verification search
	// links to f: by exact SHA-256 and watermark payload, and, only when
	// byHash, by perceptual neighbours.
	ManifestCandidates(ctx context.Context, f facts.Facts, byHash bool) ([]Candidate, error)
}

// Config configures a Resolver. Store, Records and Clock are required.
type Config struct {
	Store   store.Store
	Records Records
	Clock   clock.Clock
	// Authority is the CA the manifests chain to; nil: the service writes
	// no manifests (CA answers ErrNoManifest).
	Authority Authority
	// Limits bounds the decode of a file resolved by content; zero value
	// means limits.Default().
	Limits limits.Limits
	// DecodeBudget, shared by every decode of the process, is reserved
	// before that decode; nil means unbounded.
	DecodeBudget *imagex.Budget
}

// Resolver answers the C2PA Soft Binding Resolution API. It is safe for
// concurrent use.
type Resolver struct{ cfg Config }

// NewResolver validates cfg and returns a Resolver.
func NewResolver(cfg Config) (*Resolver, error) {
	if cfg.Store == nil || cfg.Records == nil || cfg.Clock == nil {
		return nil, errors.New("manifests: Store, Records and Clock are required")
	}
	if cfg.Limits == (limits.Limits{}) {
		cfg.Limits = limits.Default()
	}
	return &Resolver{cfg: cfg}, nil
}
