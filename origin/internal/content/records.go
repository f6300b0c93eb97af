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
// way (fence_test.go): below content, phindex (the near-duplicate index),
// nearindex (the same indexes held in memory, StartNear), counters (the
// dashboard counts each change bumps in its transaction), manifests
// (C2PA: the manifest a signed file carries, kept and resolved; content
// finds the candidates, ManifestCandidates) and videos
// (a video record's fingerprint and frame index, how a clip aligns on a
// signed video, the marking pipeline and a video verdict's wording;
// content signs and verifies video records through it); above it,
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
	"strings"

	"github.com/provenant/provenant/origin/internal/accounts"
	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/verdict"
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
