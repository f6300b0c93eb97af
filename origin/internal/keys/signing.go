package keys

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/provenant/provenant/origin/internal/ids"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/validate"
	"github.com/provenant/provenant/shared/wire"
)

const (
	maxDeviceIDLen   = 200
	maxDeviceInfoLen = 1000
)

// SigningKey is a signing key's public metadata: the key as the API
// shows it (wire.SigningKey, so that a member added there is stored and
// answered without a copy by hand) and its owner. The private key is not
// part of it. Keys stored before custody was recorded have no custody
// member; they are service keys (the accessors fill it in).
type SigningKey struct {
	wire.SigningKey
	AccountID string `json:"account_id"`
}

// Cutoff is the time from which records signed with a revoked key are no
// longer trusted: CompromisedSince when given, else RevokedAt. ok is false
// for a key that is not revoked.
func (k SigningKey) Cutoff() (t time.Time, ok bool) {
	switch {
	case k.RevokedAt == nil:
		return time.Time{}, false
	case k.CompromisedSince != nil:
		return *k.CompromisedSince, true
	}
	return *k.RevokedAt, true
}

// Custody values of a signing key.
const (
	CustodyService = wire.CustodyService
	CustodyDevice  = wire.CustodyDevice
)

// Device reports whether the service holds no private key for k.
func (k SigningKey) Device() bool { return k.Custody == CustodyDevice }

func (k SigningKey) withCustody() SigningKey {
	if k.Custody == "" {
		k.Custody = CustodyService
	}
	return k
}

// PublicKey returns the Ed25519 public key.
func (k SigningKey) PublicKey() (ed25519.PublicKey, error) {
	b, err := hex.DecodeString(k.PublicKeyHex)
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("keys: malformed public key of %s", k.ID)
	}
	return ed25519.PublicKey(b), nil
}

// signingRecord is the stored form (sk/k/<id>): metadata plus the sealed seed.
type signingRecord struct {
	SigningKey
	Sealed []byte `json:"sealed_seed"`
}

// CreateSigningKeyInput is the data for a new signing key. Name and
// OriginType are required; DeviceID and DeviceInfo are optional.
// PublicKeyHex, when set, is an Ed25519 public key (64 hex digits) whose
// private half the client keeps (a camera's secure element, an HSM): the
// key is a device key and the service never holds a private key for it.
type CreateSigningKeyInput struct {
	Name         string
	OriginType   string
	DeviceID     string
	DeviceInfo   string
	PublicKeyHex string
}

func skKey(id string) []byte            { return []byte("sk/k/" + id) }
func skPubKey(pubHex string) []byte     { return []byte("sk/p/" + pubHex) }
func skOwnerPrefix(owner string) []byte { return []byte("sk/o/" + owner + "/") }

func optionalText(field, v string, max int) (string, error) {
	v = strings.TrimSpace(v)
	if err := validate.Text(field, v, max); err != nil {
		return "", err
	}
	return v, nil
}

// CreateSigningKey generates an Ed25519 key pair for owner, seals the
// private key under the master key and stores it.
func (s *Service) CreateSigningKey(ctx context.Context, owner string, in CreateSigningKeyInput) (SigningKey, error) {
	// name and device_id end up in signed records, certificates and every
	// verify answer naming the signer, hence the name rules
	// (docs/verification.md, "Who a signer is"); device_info is shown to
	// the owner only, hence single-line control-free text.
	var errs validate.Errors
	name, err := validate.DisplayName("name", in.Name, maxNameLen)
	if err != nil {
		_ = errs.Check(err)
	} else if name == "" {
		errs.Add("name", "is required")
	}
	if _, ok := LookupOriginType(in.OriginType); in.OriginType == "" {
		errs.Add("origin_type", "is required")
	} else if !ok {
		errs.Add("origin_type", "is not a known origin type code (see GET /api/v1/origin-types)")
	}
	devID, err := validate.Name("device_id", in.DeviceID, maxDeviceIDLen)
	_ = errs.Check(err)
	devInfo, err := optionalText("device_info", in.DeviceInfo, maxDeviceInfoLen)
	_ = errs.Check(err)
	var devicePub []byte
	if in.PublicKeyHex != "" {
		devicePub, err = hex.DecodeString(in.PublicKeyHex)
		if err != nil || len(devicePub) != ed25519.PublicKeySize || in.PublicKeyHex != strings.ToLower(in.PublicKeyHex) {
			errs.Add("public_key_hex", "must be an Ed25519 public key, 64 lowercase hex digits")
		} else if isZero(devicePub) {
			errs.Add("public_key_hex", "must not be all zero")
		}
	}
	if err := errs.Err(); err != nil {
		return SigningKey{}, err
	}
	id, err := ids.NewUUID(s.rand)
	if err != nil {
		return SigningKey{}, err
	}
	now := s.clock.Now().UTC()
	rec := signingRecord{SigningKey: SigningKey{AccountID: owner, SigningKey: wire.SigningKey{ID: id, Name: name,
		OriginType: in.OriginType, DeviceID: devID, DeviceInfo: devInfo, CreatedAt: now, Custody: CustodyService}}}
	if devicePub != nil {
		rec.PublicKeyHex, rec.Custody = hex.EncodeToString(devicePub), CustodyDevice
	} else {
		seed := make([]byte, ed25519.SeedSize)
		if _, err := io.ReadFull(s.rand, seed); err != nil {
			return SigningKey{}, fmt.Errorf("keys: random seed: %w", err)
		}
		defer clear(seed)
		priv := ed25519.NewKeyFromSeed(seed)
		defer clear(priv)
		rec.PublicKeyHex = hex.EncodeToString(priv.Public().(ed25519.PublicKey))
		if rec.Sealed, err = s.sealer.seal(seed, id, owner); err != nil {
			return SigningKey{}, err
		}
	}
	val, err := json.Marshal(rec)
	if err != nil {
		return SigningKey{}, fmt.Errorf("keys: encode signing key: %w", err)
	}
	err = s.st.Update(ctx, func(tx store.Txn) error {
		// One public key names one key: register looks keys up by public
		// key, and a device key claimed twice would let a second account
		// register what the first one's device signed.
		if _, err := tx.Get(skPubKey(rec.PublicKeyHex)); err == nil {
			return ErrPublicKeyTaken
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if err := tx.Set(skPubKey(rec.PublicKeyHex), []byte(id)); err != nil {
			return err
		}
		if err := tx.Set(skKey(id), val); err != nil {
			return err
		}
		// An idempotent request's claim commits with the key.
		if err := store.PutIdemClaim(ctx, tx, id); err != nil {
			return err
		}
		return tx.Set(append(skOwnerPrefix(owner), ownerIndexSuffix(now, id)...), nil)
	})
	if errors.Is(err, ErrPublicKeyTaken) {
		return SigningKey{}, ErrPublicKeyTaken
	}
	if err != nil {
		return SigningKey{}, fmt.Errorf("keys: create signing key: %w", err)
	}
	s.log.Info("signing key created", "account_id", owner, "signing_key_id", id, "custody", rec.Custody)
	return rec.SigningKey, nil
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func getSigning(tx store.Txn, id string) (signingRecord, error) {
	return getJSON[signingRecord](tx, skKey(id), "signing key", id)
}

// ListSigningKeys returns one page of owner's signing keys, oldest first.
func (s *Service) ListSigningKeys(ctx context.Context, owner, cursor string, limit int) (store.Page[SigningKey], error) {
	p, err := listPage(ctx, s.st, skOwnerPrefix(owner), cursor, limit, func(tx store.Txn, id string) (SigningKey, error) {
		r, err := getSigning(tx, id)
		return r.SigningKey.withCustody(), err
	})
	if err != nil {
		return store.Page[SigningKey]{}, fmt.Errorf("keys: list signing keys: %w", err)
	}
	return p, nil
}

// GetSigningKey returns owner's signing key id, or ErrNotFound (also when
// the key belongs to another account).
func (s *Service) GetSigningKey(ctx context.Context, owner, id string) (SigningKey, error) {
	r, err := s.lookupSigning(ctx, id)
	if err != nil {
		return SigningKey{}, err
	}
	if r.AccountID != owner {
		return SigningKey{}, ErrNotFound
	}
	return r.SigningKey.withCustody(), nil
}

// LookupSigningKey returns the public metadata of signing key id whoever
// owns it (for verification and certificates), or ErrNotFound.
func (s *Service) LookupSigningKey(ctx context.Context, id string) (SigningKey, error) {
	r, err := s.lookupSigning(ctx, id)
	if err != nil {
		return SigningKey{}, err
	}
	return r.SigningKey.withCustody(), nil
}

func (s *Service) lookupSigning(ctx context.Context, id string) (signingRecord, error) {
	if !ids.IsUUID(id) {
		return signingRecord{}, ErrNotFound
	}
	var r signingRecord
	err := s.st.View(ctx, func(tx store.Txn) (err error) {
		r, err = getSigning(tx, id)
		return err
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return signingRecord{}, ErrNotFound
		}
		return signingRecord{}, fmt.Errorf("keys: get signing key: %w", err)
	}
	return r, nil
}

// Sign signs msg with owner's signing key id (pure Ed25519, RFC 8032) and
// returns the signature and the key's metadata. The private key is unsealed
// only for the duration of the call and wiped afterwards. ErrNotFound if
// owner has no such key; ErrDeviceKey for a device key; ErrUnsealFailed if
// the master key does not open it.
func (s *Service) Sign(ctx context.Context, owner, id string, msg []byte) ([]byte, SigningKey, error) {
	r, err := s.lookupSigning(ctx, id)
	if err != nil {
		return nil, SigningKey{}, err
	}
	if r.AccountID != owner {
		return nil, SigningKey{}, ErrNotFound
	}
	if r.RevokedAt != nil {
		return nil, SigningKey{}, ErrSigningKeyRevoked
	}
	if r.Device() || len(r.Sealed) == 0 {
		return nil, SigningKey{}, ErrDeviceKey
	}
	seed, err := s.sealer.open(r.Sealed, r.ID, r.AccountID)
	if err != nil {
		return nil, SigningKey{}, fmt.Errorf("keys: sign with %s: %w", id, err)
	}
	defer clear(seed)
	priv := ed25519.NewKeyFromSeed(seed)
	defer clear(priv)
	if hex.EncodeToString(priv[ed25519.SeedSize:]) != r.PublicKeyHex {
		return nil, SigningKey{}, fmt.Errorf("keys: sign with %s: %w", id, ErrUnsealFailed)
	}
	return ed25519.Sign(priv, msg), r.SigningKey.withCustody(), nil
}

// maxRevocationReason bounds the owner's note on a revoked key.
const maxRevocationReason = 500

// RevokeSigningKey revokes owner's signing key id: it signs nothing from
// now on, and records signed with it are trusted only when they were
// anchored before the key's Cutoff (compromisedSince if given, which must
// not be in the future, else now). ErrNotFound for a key that is not
// owner's; ErrSigningKeyAlreadyRevoked for a second revocation. The sealed
// private key is erased: a revoked key never signs again.
func (s *Service) RevokeSigningKey(ctx context.Context, owner, id, reason string, compromisedSince *time.Time) (SigningKey, error) {
	var errs validate.Errors
	// The reason is prose shown on the public certificate: line breaks
	// are allowed (docs/api.md), bidi controls are not.
	reason = strings.TrimSpace(reason)
	_ = errs.Check(validate.MultilineText("reason", reason, maxRevocationReason))
	now := s.clock.Now().UTC()
	if compromisedSince != nil {
		cs := compromisedSince.UTC()
		if cs.After(now) {
			errs.Add("compromised_since", "is in the future")
		}
		compromisedSince = &cs
	}
	if err := errs.Err(); err != nil {
		return SigningKey{}, err
	}
	if !ids.IsUUID(id) {
		return SigningKey{}, ErrNotFound
	}
	var out SigningKey
	err := s.st.Update(ctx, func(tx store.Txn) error {
		r, err := getSigning(tx, id)
		if err != nil {
			return err
		}
		if r.AccountID != owner {
			return ErrNotFound
		}
		if r.RevokedAt != nil {
			return ErrSigningKeyAlreadyRevoked
		}
		r.RevokedAt, r.CompromisedSince, r.RevocationReason = &now, compromisedSince, reason
		clear(r.Sealed)
		r.Sealed = nil
		val, err := json.Marshal(r)
		if err != nil {
			return err
		}
		out = r.SigningKey.withCustody()
		return tx.Set(skKey(id), val)
	})
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrSigningKeyAlreadyRevoked) {
		return SigningKey{}, err
	}
	if err != nil {
		return SigningKey{}, fmt.Errorf("keys: revoke signing key: %w", err)
	}
	s.log.Info("signing key revoked", "account_id", owner, "signing_key_id", id, "compromised_since_given", compromisedSince != nil)
	return out, nil
}
