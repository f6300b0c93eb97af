package content

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/provenant/provenant/internal/hamming"
	"github.com/provenant/provenant/origin/internal/blobs"
	"github.com/provenant/provenant/origin/internal/content/manifests"
	"github.com/provenant/provenant/origin/internal/content/nearindex"
	"github.com/provenant/provenant/origin/internal/content/phindex"
	"github.com/provenant/provenant/origin/internal/events"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/video"
	"github.com/provenant/provenant/shared/clock"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/wire"
)

// Config configures a Service. Store, Keys, Accounts, Clock and Rand are
// required; every group's zero value is a working service that signs and
// verifies images, keeps no files, writes no C2PA manifests and leaves
// records pending anchoring.
type Config struct {
	Store    store.Store
	Keys     Keys
	Accounts Accounts
	Clock    clock.Clock
	// Rand supplies record ids and watermark payloads (crypto/rand.Reader
	// in production).
	Rand io.Reader
	// Events receives content.signed and content.verified inside the
	// transaction that causes them; nil means events.Nop{}.
	Events events.Publisher
	// Identities tells who a signer account is beyond its declared name
	// (verified domain, shared name); nil shows every organisation as
	// unverified.
	Identities Identities
	// Logger; nil discards. It never receives file contents or keys.
	Logger *slog.Logger

	// Media bounds and reads the uploads.
	Media MediaConfig
	// Near is the perceptual near-duplicate index.
	Near NearConfig
	// Chain is where new records queue for anchoring and where their
	// proofs are read.
	Chain ChainConfig
	// Outputs is what a signed file is given and where it is kept.
	Outputs OutputConfig

	// AfterCommit, if set, is called with a new record's id right after
	// its transaction commits: crash tests stop the process there.
	AfterCommit func(recordID string)
}

// MediaConfig bounds the uploads and names the codecs that read them.
type MediaConfig struct {
	// Limits bounds decoded images; zero value means limits.Default().
	Limits limits.Limits
	// DecodeBudget, shared by every decode of the process, is reserved
	// before each sign and verify decode; nil means unbounded.
	DecodeBudget *imagex.Budget
	// JPEG decodes JPEG uploads and encodes JPEG outputs when signing;
	// nil means imagex.StdJPEG (pure Go). The origin's turbo build passes
	// libjpeg-turbo.
	JPEG imagex.JPEGCodec
	// Video probes, fingerprints and watermarks videos; nil refuses them
	// (ErrVideoUnavailable) and leaves images unaffected.
	Video *video.Engine
}

// NearConfig configures the perceptual near-duplicate lookups and the
// allowance of near-duplicate registrations.
type NearConfig struct {
	// Index, if set, answers the perceptual and geometric lookups from
	// memory (LoadNear, StartNear) instead of the store's index buckets.
	Index *nearindex.Index
	// Radius is the per-band Hamming radius of the index probe (see
	// phindex); 0 means phindex.DefaultRadius.
	Radius int
	// MaxDuplicates is the number of registrations of one picture (near
	// perceptual hashes, mirrors and turns included) an account may make
	// within NearDuplicateWindow; 0 means DefaultMaxNearDuplicates,
	// negative means no limit.
	MaxDuplicates int
}

// index is the store index under prefix, answered from the in-memory
// index mem picks when Index is set.
func (c NearConfig) index(prefix string, mem func(*nearindex.Index) *hamming.Index) phindex.Index {
	ix := phindex.Index{Prefix: []byte(prefix), Radius: c.Radius}
	if c.Index != nil {
		ix.Mem = mem(c.Index)
	}
	return ix
}

// ChainConfig connects records to anchoring.
type ChainConfig struct {
	// Queue takes new records for anchoring inside the sign transaction;
	// nil means PendingAnchor{} (records stay pending).
	Queue AnchorQueue
	// Proofs reports a record's anchoring proof for verify and detail;
	// nil means PendingAnchor{}.
	Proofs ProofSource
	// Network describes the chain records are anchored on, as configured
	// (name, chain id, whether it is public); verify, lookup answers,
	// certificates and receipts carry it so that no surface presents an
	// anchor on a local chain as a public timestamp. Nil says nothing,
	// which verification counts as not public.
	Network *wire.Network
}

// OutputConfig says what a signed file carries and where it is kept.
type OutputConfig struct {
	// Blobs keeps every signed output, stored before the record that
	// references it commits; nil keeps none (sign answers the file only
	// once, as it is returned).
	Blobs blobs.Store
	// C2PA signs the C2PA manifests of signed JPEG and PNG outputs and is
	// the CA verify decides their trust against; nil writes none.
	C2PA manifests.Authority
}

// Service implements content record operations. It is safe for concurrent
// use.
type Service struct {
	cfg Config
	log *slog.Logger
}

// New validates cfg and returns a Service.
func New(cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Keys == nil || cfg.Accounts == nil || cfg.Clock == nil || cfg.Rand == nil {
		return nil, errors.New("content: Store, Keys, Accounts, Clock and Rand are required")
	}
	if cfg.Events == nil {
		cfg.Events = events.Nop{}
	}
	if cfg.Chain.Queue == nil {
		cfg.Chain.Queue = PendingAnchor{}
	}
	if cfg.Chain.Proofs == nil {
		cfg.Chain.Proofs = PendingAnchor{}
	}
	if cfg.Media.Limits == (limits.Limits{}) {
		cfg.Media.Limits = limits.Default()
	}
	if err := cfg.Media.Limits.Validate(); err != nil {
		return nil, fmt.Errorf("content: %w", err)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{cfg: cfg, log: log}, nil
}

// Limits returns the image limits the service enforces (the HTTP layer
// caps uploads with MaxUploadBytes).
func (s *Service) Limits() limits.Limits { return s.cfg.Media.Limits }

func (s *Service) now() time.Time { return s.cfg.Clock.Now().UTC() }
