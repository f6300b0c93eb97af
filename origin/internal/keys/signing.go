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
)

const (
	maxDeviceIDLen   = 200
	maxDeviceInfoLen = 1000
)

// SigningKey is a signing key's public metadata. The private key is not
// part of it.
type SigningKey struct {
	ID           string    `json:"id"`
	AccountID    string    `json:"account_id"`
	Name         string    `json:"name"`
	PublicKeyHex string    `json:"public_key_hex"`
	OriginType   string    `json:"origin_type"`
	DeviceID     string    `json:"device_id"`
	DeviceInfo   string    `json:"device_info"`
	CreatedAt    time.Time `json:"created_at"`
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
type CreateSigningKeyInput struct {
	Name       string
	OriginType string
	DeviceID   string
	DeviceInfo string
}

func skKey(id string) []byte            { return []byte("sk/k/" + id) }
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
	name, err := validate.Name("name", in.Name, maxNameLen)
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
	if err := errs.Err(); err != nil {
		return SigningKey{}, err
	}
	id, err := ids.NewUUID(s.rand)
	if err != nil {
		return SigningKey{}, err
	}
	seed := make([]byte, ed25519.SeedSize)
	if _, err := io.ReadFull(s.rand, seed); err != nil {
		return SigningKey{}, fmt.Errorf("keys: random seed: %w", err)
	}
	defer clear(seed)
	priv := ed25519.NewKeyFromSeed(seed)
	defer clear(priv)
	pub := priv.Public().(ed25519.PublicKey)
	sealed, err := s.sealer.seal(seed, id, owner)
	if err != nil {
		return SigningKey{}, err
	}
	now := s.clock.Now().UTC()
	rec := signingRecord{
		SigningKey: SigningKey{ID: id, AccountID: owner, Name: name, PublicKeyHex: hex.EncodeToString(pub),
			OriginType: in.OriginType, DeviceID: devID, DeviceInfo: devInfo, CreatedAt: now},
		Sealed: sealed,
	}
	val, err := json.Marshal(rec)
	if err != nil {
		return SigningKey{}, fmt.Errorf("keys: encode signing key: %w", err)
	}
	err = s.st.Update(ctx, func(tx store.Txn) error {
		if err := tx.Set(skKey(id), val); err != nil {
			return err
		}
		return tx.Set(append(skOwnerPrefix(owner), ownerIndexSuffix(now, id)...), nil)
	})
	if err != nil {
		return SigningKey{}, fmt.Errorf("keys: create signing key: %w", err)
	}
	s.log.Info("signing key created", "account_id", owner, "signing_key_id", id)
	return rec.SigningKey, nil
}

func getSigning(tx store.Txn, id string) (signingRecord, error) {
	return getJSON[signingRecord](tx, skKey(id), "signing key", id)
}

// ListSigningKeys returns one page of owner's signing keys, oldest first.
func (s *Service) ListSigningKeys(ctx context.Context, owner, cursor string, limit int) (store.Page[SigningKey], error) {
	p, err := listPage(ctx, s.st, skOwnerPrefix(owner), cursor, limit, func(tx store.Txn, id string) (SigningKey, error) {
		r, err := getSigning(tx, id)
		return r.SigningKey, err
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
	return r.SigningKey, nil
}

// LookupSigningKey returns the public metadata of signing key id whoever
// owns it (for verification and certificates), or ErrNotFound.
func (s *Service) LookupSigningKey(ctx context.Context, id string) (SigningKey, error) {
	r, err := s.lookupSigning(ctx, id)
	if err != nil {
		return SigningKey{}, err
	}
	return r.SigningKey, nil
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
// owner has no such key; ErrUnsealFailed if the master key does not open it.
func (s *Service) Sign(ctx context.Context, owner, id string, msg []byte) ([]byte, SigningKey, error) {
	r, err := s.lookupSigning(ctx, id)
	if err != nil {
		return nil, SigningKey{}, err
	}
	if r.AccountID != owner {
		return nil, SigningKey{}, ErrNotFound
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
	return ed25519.Sign(priv, msg), r.SigningKey, nil
}
