package content

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/validate"
	"github.com/provenant/provenant/origin/internal/video"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/watermark"
	"github.com/provenant/provenant/shared/wire"
)

// MaxClockSkew is how far in the future a registered record's timestamp
// may be.
const MaxClockSkew = 5 * time.Minute

// RegisterInput is pre-signed content, registered by hashes only. The
// signature must cover the canonical record (shared/record, version 1)
// built from RecordID, SHA256, PerceptualHash, the signer's public key,
// Timestamp (millisecond precision), OriginType, the account's org_name
// and the watermark payload (8 bytes big-endian, or empty).
type RegisterInput struct {
	Owner               string
	RecordID            string
	SHA256              string
	PerceptualHash      string
	WatermarkPayloadHex string
	SignatureHex        string
	// SigningKeyID or SignerPublicKey (hex) names the caller's key; when
	// both are given they must agree.
	SigningKeyID    string
	SignerPublicKey string
	// OriginType defaults to the key's origin type.
	OriginType       string
	Timestamp        string
	OriginalFilename string
	// MediaType is "" or an image type for an image; "video/mp4",
	// "video/quicktime" or "video/webm" for a video, which then needs
	// VideoFingerprint.
	MediaType string
	// VideoFingerprint is a video's fingerprint as the SDK computes it
	// (video.Fingerprint's binary form: one 40-byte frame hash a second,
	// base64). PerceptualHash must be its middle frame's hash (index
	// len/2), as for a video signed here. It is an index, not part of
	// what the signature covers: it lets verify find the record from a
	// clip.
	VideoFingerprint string
	// DerivativeOf, if set, declares the registered file a derivative of
	// that record (of any account): the canonical record then carries it
	// as its parent (version 2), and the signature must cover it. Without
	// it, hashes tied to another account's earlier record are refused
	// (*AlreadySignedError), as /sign refuses the file.
	DerivativeOf string
}

// registerVideoFormats maps the media types register accepts for video to
// the record's output format.
var registerVideoFormats = map[string]string{"video/mp4": "mp4", "video/quicktime": "mov", "video/webm": "webm"}

func decodeHexField(field, v string, n int) ([]byte, error) {
	b, err := hex.DecodeString(strings.ToLower(strings.TrimSpace(v)))
	if err != nil || (n > 0 && len(b) != n) {
		return nil, validate.Field(field, fmt.Sprintf("must be %d bytes of hex", n))
	}
	return b, nil
}

// findKey returns the caller's signing key named by id or public key.
func (s *Service) findKey(ctx context.Context, owner, id, pubHex string) (keys.SigningKey, error) {
	pubHex = strings.ToLower(strings.TrimSpace(pubHex))
	if id != "" {
		k, err := s.cfg.Keys.GetSigningKey(ctx, owner, id)
		if err != nil {
			return keys.SigningKey{}, err
		}
		if pubHex != "" && pubHex != k.PublicKeyHex {
			return keys.SigningKey{}, validate.Field("signer_public_key", "is not the public key of signing_key_id")
		}
		return k, nil
	}
	if pubHex == "" {
		return keys.SigningKey{}, validate.Field("signing_key_id", "or signer_public_key is required")
	}
	cursor := ""
	for {
		p, err := s.cfg.Keys.ListSigningKeys(ctx, owner, cursor, 100)
		if err != nil {
			return keys.SigningKey{}, err
		}
		for _, k := range p.Items {
			if k.PublicKeyHex == pubHex {
				return k, nil
			}
		}
		if p.Next == "" {
			return keys.SigningKey{}, keys.ErrNotFound
		}
		cursor = p.Next
	}
}

// Register verifies and stores pre-signed content. The server rebuilds the
// canonical bytes from the fields and verifies the signature under the
// caller's key before storing anything. Errors: a validate.Errors listing
// every invalid field (all checked before the key lookup), keys.ErrNotFound
// for a key that is not the caller's, ErrBadSignature, ErrDuplicate for a
// record id or watermark payload already registered, a SHA-256 the same
// key registered before, or a SHA-256 (of a signed file or of an uploaded
// original) or perceptual hash another account already holds: register
// cannot claim someone else's file (docs/verification.md, "Register
// cannot steal"). The refusal names nothing of the other record. Hashes
// tied to another account's earlier record otherwise (near, mirrored,
// turned, cropped, rotated) get an *AlreadySignedError naming it unless
// DerivativeOf declares one of those records (ErrDerivativeMismatch when
// it is not among them), and an account past its near-duplicate
// allowance a *NearDuplicateLimitError (registerLook).
//
// The record's timestamp is the client's claim: verify and the
// certificate show it as claimed, beside the time of record.
func (s *Service) Register(ctx context.Context, in RegisterInput) (*Record, error) {
	// Check every field before looking anything up, so the client learns
	// about all its mistakes at once.
	var errs validate.Errors
	rid, err := record.ParseID(strings.ToLower(in.RecordID))
	if err != nil {
		errs.Add("record_id", "must be a UUID")
	}
	sha, err := decodeHexField("sha256", in.SHA256, 32)
	_ = errs.Check(err)
	ph, err := phash.Parse(strings.ToLower(in.PerceptualHash))
	phOK := err == nil
	if err != nil {
		errs.Add("perceptual_hash", fmt.Sprintf("must be %d hex digits (64-bit then 256-bit hash)", phash.HexLen))
	}
	var payload []byte
	if in.WatermarkPayloadHex != "" {
		p, err := watermark.ParsePayload(in.WatermarkPayloadHex)
		if err != nil || len(in.WatermarkPayloadHex) != 16 {
			errs.Add("watermark_payload_hex", "must be 16 hex digits")
		} else {
			payload = binary.BigEndian.AppendUint64(nil, uint64(p))
		}
	}
	sig, err := decodeHexField("signature_hex", in.SignatureHex, ed25519.SignatureSize)
	_ = errs.Check(err)
	ts, err := time.Parse(time.RFC3339Nano, in.Timestamp)
	if err != nil {
		errs.Add("timestamp", "must be an RFC 3339 timestamp")
	} else if ts.After(s.now().Add(MaxClockSkew)) {
		errs.Add("timestamp", "is in the future")
	}
	if in.OriginType != "" {
		if _, ok := keys.LookupOriginType(in.OriginType); !ok {
			errs.Add("origin_type", "is not a known origin type code")
		}
	}
	var parentID *record.ID
	if in.DerivativeOf != "" {
		pid, err := record.ParseID(strings.ToLower(in.DerivativeOf))
		if err != nil {
			errs.Add("derivative_of", "must be a record id (UUID)")
		} else {
			parentID = &pid
		}
	}
	var fp *video.Fingerprint
	videoFormat, isVideo := registerVideoFormats[in.MediaType]
	switch {
	case isVideo:
		b, err := base64.StdEncoding.DecodeString(in.VideoFingerprint)
		var f video.Fingerprint
		if err != nil || len(b) == 0 || f.UnmarshalBinary(b) != nil {
			errs.Add("video_fingerprint", "must be a video fingerprint: base64 of 40-byte frame hashes, one a second")
		} else if phOK && f.Hashes[len(f.Hashes)/2] != ph {
			errs.Add("perceptual_hash", "must be the hash of the video fingerprint's middle frame")
		} else {
			fp = &f
		}
	case in.MediaType != "" && !strings.HasPrefix(in.MediaType, "image/"):
		errs.Add("media_type", "must be an image type, video/mp4, video/quicktime or video/webm")
	case in.VideoFingerprint != "":
		errs.Add("video_fingerprint", "is for a video media_type only")
	}
	// The filename is informational and cut to MaxFilenameLen bytes when
	// stored, so only its text is checked here, not its length.
	_ = errs.Check(validate.Text("original_filename", in.OriginalFilename, 0))
	key, err := s.findKey(ctx, in.Owner, in.SigningKeyID, in.SignerPublicKey)
	if err := errs.Check(err); err != nil && len(errs) == 0 {
		return nil, err
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	if key.RevokedAt != nil {
		// Anything registered now is after the revocation.
		return nil, keys.ErrSigningKeyRevoked
	}
	user, err := s.cfg.Accounts.Get(ctx, in.Owner)
	if err != nil {
		return nil, fmt.Errorf("content: register: owner: %w", err)
	}
	ot := in.OriginType
	if ot == "" {
		ot = key.OriginType
	}
	pub, err := key.PublicKey()
	if err != nil {
		return nil, err
	}
	rec := &record.Record{ID: rid, PerceptualHash: ph, SignerPublicKey: pub, Timestamp: ts.UTC(),
		OriginType: ot, Org: user.OrgName, WatermarkPayload: payload, Parent: parentID}
	copy(rec.SHA256[:], sha)
	canon, err := rec.Encode()
	if err != nil {
		return nil, validate.Field("record", "cannot be encoded: "+errors.Unwrap(err).Error())
	}
	if !ed25519.Verify(pub, canon, sig) {
		return nil, ErrBadSignature
	}
	parsed, err := record.Parse(canon)
	if err != nil {
		return nil, err
	}
	now := s.now()
	r := &Record{
		ID: rid.String(), Owner: in.Owner, SigningKeyID: key.ID, Source: SourceRegister,
		SHA256: hex.EncodeToString(sha), PerceptualHash: ph.String(), WatermarkPayloadHex: hex.EncodeToString(payload),
		SignatureHex: hex.EncodeToString(sig), Canonical: canon, OriginType: ot,
		Signer: signerOf(user.OrgName, user.OrgType, key), OriginalFilename: cleanFilename(in.OriginalFilename),
		BlockchainStatus: wire.StatusPending, Status: StatusActive, CreatedAt: now,
	}
	if err := s.checkNotClaimed(ctx, r, ph, key.ID); err != nil {
		return nil, err
	}
	if err := s.registerLook(ctx, r, in.DerivativeOf); err != nil {
		return nil, err
	}
	var extra func(tx store.Txn) error
	if fp != nil {
		// A registered video is found by its fingerprint as a signed one
		// is: the same frame index, in the record's transaction.
		r.OutputFormat = videoFormat
		extra = func(tx store.Txn) error { return s.videoIndex().Put(tx, rid, *fp) }
	}
	if err := s.commitNew(ctx, r, parsed, record.Signed{Bytes: canon, Signature: sig}, extra); err != nil {
		if errors.Is(err, ErrDuplicate) {
			return nil, ErrDuplicate
		}
		return nil, err
	}
	s.log.Info("content registered", "account_id", in.Owner, "record_id", r.ID, "signing_key_id", key.ID)
	return r, nil
}

// maxPHashConflicts bounds the records with the same 64-bit perceptual
// hash that register examines for an exact 256-bit collision.
const maxPHashConflicts = 256

// checkNotClaimed refuses (ErrDuplicate) a registration whose SHA-256 is
// the signed file or the uploaded original of another account's record,
// or the same key's earlier registration, or whose perceptual hash
// (64-bit and 256-bit, exactly) is another account's. The error text
// names a record only when it is the caller's own.
func (s *Service) checkNotClaimed(ctx context.Context, r *Record, ph phash.Hash, keyID string) error {
	return s.cfg.Store.View(ctx, func(tx store.Txn) error {
		err := tx.Scan(shaPrefix(r.SHA256), nil, func(k, _ []byte) error {
			other, err := getRecord(tx, string(k[len(shaPrefix(r.SHA256)):]))
			if err != nil {
				return err
			}
			switch {
			case other.Owner != r.Owner:
				return fmt.Errorf("%w: sha256 already registered by another account", ErrDuplicate)
			case other.SigningKeyID == keyID && other.SHA256 == r.SHA256:
				return fmt.Errorf("%w: sha256 already registered with this key as record %s", ErrDuplicate, other.ID)
			}
			return nil
		})
		if err != nil {
			return err
		}
		ms, _, err := s.phindex().Lookup(tx, ph, 0, maxPHashConflicts, 0)
		if err != nil {
			return err
		}
		for _, m := range ms {
			other, err := getRecord(tx, record.ID(m.ID).String())
			if errors.Is(err, ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if other.Owner != r.Owner && other.PerceptualHash == r.PerceptualHash {
				return fmt.Errorf("%w: perceptual hash already registered by another account", ErrDuplicate)
			}
		}
		return nil
	})
}

// DefaultMaxNearDuplicates is the number of registrations of one picture
// (near perceptual hashes, mirrors and turns included) an account may make
// within NearDuplicateWindow when NearConfig.MaxDuplicates is 0.
const DefaultMaxNearDuplicates = 4

// NearDuplicateWindow is the period over which near-duplicate
// registrations are counted.
const NearDuplicateWindow = 24 * time.Hour

// NearDuplicateLimitError refuses a registration that would exceed the
// account's near-duplicate allowance. It wraps ErrNearDuplicateLimit.
type NearDuplicateLimitError struct {
	// Count is the account's near-duplicates of the picture registered
	// within the window; RetryAfter when the oldest of them leaves it.
	Count      int
	RetryAfter time.Duration
}

func (e *NearDuplicateLimitError) Error() string {
	return fmt.Sprintf("content: %d near-duplicate registrations of this picture within %s", e.Count, NearDuplicateWindow)
}

// Unwrap makes errors.Is(err, ErrNearDuplicateLimit) hold.
func (e *NearDuplicateLimitError) Unwrap() error { return ErrNearDuplicateLimit }

// registerLook applies look-before-mark to a registration with the hashes
// the client sent: the SHA-256 and the perceptual hash, whose mirrors and
// quarter turns are derived from its bits (phash.Hash.Dihedral; the
// service has no pixels). Hashes tied to another account's earlier record
// are refused (*AlreadySignedError) unless declared with derivativeOf,
// which must then be one of the records they are tied to
// (ErrDerivativeMismatch); a declared parent is recorded with its
// evidence. An account registering more than its allowance of one picture
// within NearDuplicateWindow gets a *NearDuplicateLimitError: a flood of
// near-duplicates cannot be registered faster than that.
func (s *Service) registerLook(ctx context.Context, r *Record, derivativeOf string) error {
	var f Facts
	sha, err := hex.DecodeString(r.SHA256)
	if err != nil || len(sha) != len(f.SHA256) {
		return fmt.Errorf("content: register: sha256 %q", r.SHA256)
	}
	copy(f.SHA256[:], sha)
	ph, err := phash.Parse(r.PerceptualHash)
	if err != nil {
		return err
	}
	f.PHash = ph
	vs := ph.Dihedral()
	parent, err := s.parentFor(ctx, f, variants{hs: vs[1:], fromBits: true}, r.Owner, derivativeOf)
	if err != nil {
		return err
	}
	if parent != nil && derivativeOf != "" {
		r.ParentRecordID, r.ParentEvidence = parent.rec.ID, parent.evidence
	}
	return s.nearDuplicateAllowance(ctx, f, variants{hs: vs[1:], fromBits: true}, r.Owner)
}

// nearDuplicateAllowance counts the owner's records perceptually near f
// (or a mirror or turn of it) created within NearDuplicateWindow and
// refuses one more beyond the allowance.
func (s *Service) nearDuplicateAllowance(ctx context.Context, f Facts, vs variants, owner string) error {
	allow := s.cfg.Near.MaxDuplicates
	if allow == 0 {
		allow = DefaultMaxNearDuplicates
	}
	if allow < 0 {
		return nil
	}
	now := s.now()
	since := now.Add(-NearDuplicateWindow)
	n, oldest := 0, now
	err := s.cfg.Store.View(ctx, func(tx store.Txn) error {
		ps, err := s.pool(tx, f, vs, max(s.cfg.Media.Limits.MaxCandidates, allow))
		if err != nil {
			return err
		}
		for _, p := range ps {
			if p.rec.Owner != owner || !p.near() || p.rec.CreatedAt.Before(since) {
				continue
			}
			n++
			if p.rec.CreatedAt.Before(oldest) {
				oldest = p.rec.CreatedAt
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("content: register: near-duplicates: %w", err)
	}
	if n >= allow {
		s.log.Warn("near-duplicate registrations refused: allowance reached", "account_id", owner, "near_records", n, "allowance", allow)
		return &NearDuplicateLimitError{Count: n, RetryAfter: oldest.Add(NearDuplicateWindow).Sub(now)}
	}
	return nil
}
