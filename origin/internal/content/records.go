// Package content owns content records ("rec/" prefix) and everything the
// origin does with them:
//
//   - signing an uploaded image (watermark, local signatures, re-encode,
//     canonical record, Ed25519 signature through the key service, a C2PA
//     manifest when the service has a C2PA authority) and a video (through
//     the ffmpeg engine of origin/internal/video: a watermark and a
//     fingerprint);
//   - registering pre-signed content (hash-only, from the SDK);
//   - verifying an image or a video against the stored records (exact
//     SHA-256, watermark payload, perceptual near-duplicate index, C2PA
//     manifest), and answering a verification by facts (Lookup);
//   - anchoring: the queue of new records and their inclusion proofs once
//     a batch is anchored, and the kept signed files and previews;
//   - signing-key revocation decisions, signer identities, listing,
//     revocation, the public registry and the dashboard counters.
//
// Its subpackages each own one concept beside the records, layered one
// way (fence_test.go): below content, phindex (the near-duplicate index)
// and manifests (C2PA: the manifest a signed file carries, kept and
// resolved; content finds the candidates, ManifestCandidates); above it,
// reading records through small interfaces only, receipts (offline
// receipts, shared/receipt) and badges (record and organisation badges).
//
// Every state change (a signed record and its indexes, its anchoring queue
// entry, its C2PA manifest, its content.signed event and the owner's
// counters) is written in one store transaction, so a crash keeps all of
// it or none of it.
package content

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/provenant/provenant/origin/internal/accounts"
	"github.com/provenant/provenant/origin/internal/blobs"
	"github.com/provenant/provenant/origin/internal/content/manifests"
	"github.com/provenant/provenant/origin/internal/events"
	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/video"
	"github.com/provenant/provenant/shared/clock"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/verdict"
	"github.com/provenant/provenant/shared/wire"
)

// Errors callers branch on.
var (
	// ErrNotFound: no such record for this caller (records of other
	// accounts are reported as not found, never as forbidden).
	ErrNotFound = errors.New("content: not found")
	// ErrDuplicate: a record with this id, SHA-256 (for this signer key) or
	// watermark payload already exists (register).
	ErrDuplicate = errors.New("content: duplicate record")
	// ErrBadSignature: a registered record's signature does not verify
	// over the canonical bytes the server rebuilt.
	ErrBadSignature = errors.New("content: signature does not verify")
	// ErrAlreadyRevoked: the record was revoked before.
	ErrAlreadyRevoked = errors.New("content: record already revoked")
	// ErrPayloadExhausted: no unused watermark payload was found (a broken
	// random source; 2^64 payloads make a collision otherwise negligible).
	ErrPayloadExhausted = errors.New("content: could not allocate a unique watermark payload")
	// ErrAlreadySigned: the upload is content another account already
	// signed and the caller did not declare it a derivative; the error is
	// an *AlreadySignedError naming the record.
	ErrAlreadySigned = errors.New("content: already signed by another account")
	// ErrDerivativeMismatch: the declared parent (derivative_of) is not a
	// record the upload is linked to.
	ErrDerivativeMismatch = errors.New("content: declared parent does not match the upload")
	// ErrNearDuplicateLimit: the account registered its allowance of
	// near-duplicates of this picture within the window (register); the
	// error is a *NearDuplicateLimitError.
	ErrNearDuplicateLimit = errors.New("content: near-duplicate registration allowance reached")
	// ErrFileNotKept: the record's signed file is not stored (a registered
	// record, whose file the service never saw, or one signed before signed
	// outputs were kept).
	ErrFileNotKept = errors.New("content: the signed file of this record is not stored")
)

// AlreadySignedError is returned by Sign when the upload carries the
// watermark of, or matches by SHA-256 or perceptual hash, a record of
// another account. It wraps ErrAlreadySigned.
type AlreadySignedError struct {
	// RecordID is the existing record the upload is linked to.
	RecordID string
	// Evidence names what linked it (Evidence* constants).
	Evidence []string
	// Geometry, when the link is the perceptual hash of a mirrored or
	// turned copy, names the transform ("mirrored", "turned 90°
	// clockwise", …); empty otherwise.
	Geometry string
}

func (e *AlreadySignedError) Error() string {
	g := ""
	if e.Geometry != "" {
		g = ", " + e.Geometry
	}
	return "content: already signed as record " + e.RecordID + " (" + strings.Join(e.Evidence, ", ") + g + ")"
}

// Unwrap makes errors.Is(err, ErrAlreadySigned) hold.
func (e *AlreadySignedError) Unwrap() error { return ErrAlreadySigned }

// Evidence kinds that link a file to a record, strongest first: the
// record's watermark payload found in the picture, the SHA-256 of its
// signed output, the SHA-256 of its uploaded original (kept by the
// service, not covered by the signature), a near perceptual hash, and a
// parent link recorded when the record was signed.
const (
	EvidenceWatermark      = verdict.EvidenceWatermark
	EvidenceSHA256         = verdict.EvidenceSHA256
	EvidenceOriginalSHA256 = verdict.EvidenceOriginalSHA256
	EvidencePerceptualHash = verdict.EvidencePerceptualHash
	EvidenceParentLink     = verdict.EvidenceParentLink
)

// Status values of a record's revocation state.
const (
	StatusActive  = "active"
	StatusRevoked = "revoked"
)

// Sources of a record.
const (
	SourceSign     = "sign"
	SourceRegister = "register"
)

// Keys is what records needs from the key service. *keys.Service
// implements it; the private key never leaves it.
type Keys interface {
	// GetSigningKey returns owner's key id or keys.ErrNotFound.
	GetSigningKey(ctx context.Context, owner, id string) (keys.SigningKey, error)
	// Sign signs msg with owner's key id or returns keys.ErrNotFound.
	Sign(ctx context.Context, owner, id string, msg []byte) ([]byte, keys.SigningKey, error)
	// ListSigningKeys pages through owner's keys.
	ListSigningKeys(ctx context.Context, owner, cursor string, limit int) (store.Page[keys.SigningKey], error)
}

// Accounts is what records needs from the account service.
type Accounts interface {
	// Get returns the account id or accounts.ErrNotFound.
	Get(ctx context.Context, id string) (accounts.User, error)
}

// Config configures a Service. Store, Keys, Accounts, Clock and Rand are
// required.
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
	// Anchor queues new records for anchoring inside the sign transaction;
	// nil means PendingAnchor{} (records stay pending).
	Anchor AnchorQueue
	// Proofs reports a record's anchoring proof for verify and detail; nil
	// means PendingAnchor{}.
	Proofs ProofSource
	// Limits bounds decoded images; zero value means limits.Default().
	Limits limits.Limits
	// DecodeBudget, shared by every decode of the process, is reserved
	// before each sign and verify decode; nil means unbounded.
	DecodeBudget *imagex.Budget
	// AfterCommit, if set, is called with a new record's id right after
	// its transaction commits: crash tests stop the process there.
	AfterCommit func(recordID string)
	// JPEG decodes JPEG uploads and encodes JPEG outputs when signing;
	// nil means imagex.StdJPEG (pure Go). The origin's turbo build passes
	// libjpeg-turbo.
	JPEG imagex.JPEGCodec
	// NearRadius is the per-band Hamming radius of the perceptual index
	// probe (see phindex); 0 means phindex.DefaultRadius.
	NearRadius int
	// Near, if set, answers the perceptual and geometric lookups from
	// memory (LoadNear) instead of the store's index buckets.
	Near *Near
	// Identities tells who a signer account is beyond its declared name
	// (verified domain, shared name); nil shows every organisation as
	// unverified.
	Identities Identities
	// Blobs keeps every signed output, stored before the record that
	// references it commits; nil keeps none (sign answers the file only
	// once, as it is returned).
	Blobs blobs.Store
	// Network describes the chain records are anchored on, as configured
	// (name, chain id, whether it is public); verify, lookup answers,
	// certificates and receipts carry it so that no surface presents an
	// anchor on a local chain as a public timestamp. Nil says nothing,
	// which verification counts as not public.
	Network *wire.Network
	// Video probes, fingerprints and watermarks videos; nil refuses them
	// (ErrVideoUnavailable) and leaves images unaffected.
	Video *video.Engine
	// C2PA signs the C2PA manifests of signed JPEG and PNG outputs and is
	// the CA verify decides their trust against; nil writes none.
	C2PA manifests.Authority
	// MaxNearDuplicates is the number of registrations of one picture
	// (near perceptual hashes, mirrors and turns included) an account may
	// make within NearDuplicateWindow; 0 means DefaultMaxNearDuplicates,
	// negative means no limit.
	MaxNearDuplicates int
	// Logger; nil discards. It never receives file contents or keys.
	Logger *slog.Logger
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
	if cfg.Anchor == nil {
		cfg.Anchor = PendingAnchor{}
	}
	if cfg.Proofs == nil {
		cfg.Proofs = PendingAnchor{}
	}
	if cfg.Limits == (limits.Limits{}) {
		cfg.Limits = limits.Default()
	}
	if err := cfg.Limits.Validate(); err != nil {
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
func (s *Service) Limits() limits.Limits { return s.cfg.Limits }

func (s *Service) now() time.Time { return s.cfg.Clock.Now().UTC() }
