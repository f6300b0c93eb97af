package keys

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/provenant/provenant/origin/internal/ids"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/validate"
	"github.com/provenant/provenant/shared/wire"
)

// API key scopes.
const (
	ScopeSign     = "sign"     // sign, sign-batch, register pre-signed content
	ScopeRead     = "read"     // read own content records
	ScopeWebhooks = "webhooks" // manage webhooks
)

// AllScopes lists every scope, the default for a new key.
func AllScopes() []string { return []string{ScopeSign, ScopeRead, ScopeWebhooks} }

// APIKeyPrefix starts every API key.
const APIKeyPrefix = "iai_"

// API key text layout: prefix + randomLen base62 characters (~256 bits) +
// checksumLen base62 characters of CRC32 over prefix+random.
const (
	randomLen   = 43
	checksumLen = 6
	// APIKeyLen is the exact length of a well-formed API key.
	APIKeyLen = len(APIKeyPrefix) + randomLen + checksumLen
)

const maxNameLen = 100

// lastUsedResolution bounds how often last_used_at is written: at most once
// per key per minute, so authentication does not cost a durable write on
// every request.
const lastUsedResolution = time.Minute

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// APIKey is an API key's metadata: the key as the API lists it
// (wire.APIKey), its owner and the hash it is looked up by. The key text
// is never stored; only its SHA-256 is.
type APIKey struct {
	wire.APIKey
	AccountID string `json:"account_id"`
	Hash      string `json:"hash"` // hex SHA-256 of the full key text
}

// HasScope reports whether k carries scope.
func (k APIKey) HasScope(scope string) bool { return slices.Contains(k.Scopes, scope) }

// CreateAPIKeyInput is the data for a new API key. Nil Scopes means
// AllScopes; an empty non-nil slice is refused.
type CreateAPIKeyInput struct {
	Name   string
	Scopes []string
}

func akKey(id string) []byte            { return []byte("ak/k/" + id) }
func akHashKey(hash string) []byte      { return []byte("ak/h/" + hash) }
func akOwnerPrefix(owner string) []byte { return []byte("ak/o/" + owner + "/") }
func ownerIndexSuffix(t time.Time, id string) string {
	return fmt.Sprintf("%016x/%s", uint64(t.UnixNano()), id)
}

// CheckAPIKeyFormat reports whether s has the API key layout and a valid
// checksum. It does no lookup, so typos and scanner noise are refused
// cheaply. It is safe on arbitrary input.
func CheckAPIKeyFormat(s string) bool {
	if len(s) != APIKeyLen || !strings.HasPrefix(s, APIKeyPrefix) {
		return false
	}
	for i := len(APIKeyPrefix); i < len(s); i++ {
		if strings.IndexByte(base62, s[i]) < 0 {
			return false
		}
	}
	body := s[:len(s)-checksumLen]
	return subtle.ConstantTimeCompare([]byte(checksum(body)), []byte(s[len(body):])) == 1
}

func checksum(body string) string {
	c := crc32.ChecksumIEEE([]byte(body))
	var out [checksumLen]byte
	for i := checksumLen - 1; i >= 0; i-- {
		out[i] = base62[c%62]
		c /= 62
	}
	return string(out[:])
}

func (s *Service) newAPIKeyText() (string, error) {
	var b strings.Builder
	b.Grow(APIKeyLen)
	b.WriteString(APIKeyPrefix)
	buf := make([]byte, 64)
	for b.Len() < len(APIKeyPrefix)+randomLen {
		if _, err := io.ReadFull(s.rand, buf); err != nil {
			return "", fmt.Errorf("keys: random API key: %w", err)
		}
		for _, c := range buf {
			// Rejection sampling: 248 = 4*62 keeps the alphabet uniform.
			if c < 248 && b.Len() < len(APIKeyPrefix)+randomLen {
				b.WriteByte(base62[c%62])
			}
		}
	}
	body := b.String()
	return body + checksum(body), nil
}

func hashAPIKey(text string) string {
	h := sha256.Sum256([]byte(text))
	return hex.EncodeToString(h[:])
}

func validateName(name string) (string, error) {
	n := strings.TrimSpace(name)
	if n == "" {
		return "", validate.Field("name", "is required")
	}
	if err := validate.Text("name", n, maxNameLen); err != nil {
		return "", err
	}
	return n, nil
}

// normalizeScopes validates a key's scopes (nil: all of them) and keeps
// them sorted, as a key's scopes are stored and shown.
func normalizeScopes(in []string) ([]string, error) {
	out, err := validate.Subset("scopes", in, AllScopes(), "must not be empty")
	slices.Sort(out)
	return out, err
}

// CreateAPIKey creates an API key for owner and returns its metadata and
// its text. The text is returned only here; it is stored only as a hash.
func (s *Service) CreateAPIKey(ctx context.Context, owner string, in CreateAPIKeyInput) (APIKey, string, error) {
	var errs validate.Errors
	name, err := validateName(in.Name)
	_ = errs.Check(err)
	scopes, err := normalizeScopes(in.Scopes)
	_ = errs.Check(err)
	if err := errs.Err(); err != nil {
		return APIKey{}, "", err
	}
	id, err := ids.NewUUID(s.rand)
	if err != nil {
		return APIKey{}, "", err
	}
	text, err := s.newAPIKeyText()
	if err != nil {
		return APIKey{}, "", err
	}
	now := s.clock.Now().UTC()
	k := APIKey{APIKey: wire.APIKey{ID: id, Name: name, Scopes: scopes, Last4: text[len(text)-4:], CreatedAt: now},
		AccountID: owner, Hash: hashAPIKey(text)}
	val, err := json.Marshal(k)
	if err != nil {
		return APIKey{}, "", fmt.Errorf("keys: encode API key: %w", err)
	}
	err = s.st.Update(ctx, func(tx store.Txn) error {
		if err := tx.Set(akKey(id), val); err != nil {
			return err
		}
		if err := tx.Set(akHashKey(k.Hash), []byte(id)); err != nil {
			return err
		}
		// An idempotent request's claim commits with the key, holding
		// the text (sealed under the request's key): the text is shown
		// once and the store keeps only its hash.
		if err := store.PutIdemClaimSecret(ctx, tx, id, []byte(text)); err != nil {
			return err
		}
		return tx.Set(append(akOwnerPrefix(owner), ownerIndexSuffix(now, id)...), nil)
	})
	if err != nil {
		return APIKey{}, "", fmt.Errorf("keys: create API key: %w", err)
	}
	s.log.Info("api key created", "account_id", owner, "api_key_id", id)
	return k, text, nil
}

func getAPIKey(tx store.Txn, id string) (APIKey, error) {
	return getJSON[APIKey](tx, akKey(id), "API key", id)
}

// GetAPIKey returns owner's API key id (revoked or not); ErrNotFound
// when it does not exist or belongs to another account.
func (s *Service) GetAPIKey(ctx context.Context, owner, id string) (APIKey, error) {
	var k APIKey
	err := s.st.View(ctx, func(tx store.Txn) (err error) {
		k, err = getAPIKey(tx, id)
		return err
	})
	if err != nil {
		return APIKey{}, err
	}
	if k.AccountID != owner {
		return APIKey{}, ErrNotFound
	}
	return k, nil
}

// ListAPIKeys returns one page of owner's API keys, revoked ones included,
// oldest first.
func (s *Service) ListAPIKeys(ctx context.Context, owner, cursor string, limit int) (store.Page[APIKey], error) {
	p, err := listPage(ctx, s.st, akOwnerPrefix(owner), cursor, limit, getAPIKey)
	if err != nil {
		return store.Page[APIKey]{}, fmt.Errorf("keys: list API keys: %w", err)
	}
	return p, nil
}

// RevokeAPIKey revokes owner's key id; it stops authenticating as soon as
// this returns. Revoking an already revoked key succeeds and keeps the first
// revocation time. ErrNotFound if owner has no such key.
func (s *Service) RevokeAPIKey(ctx context.Context, owner, id string) (APIKey, error) {
	var out APIKey
	err := s.st.Update(ctx, func(tx store.Txn) error {
		k, err := getAPIKey(tx, id)
		if err != nil {
			return err
		}
		if k.AccountID != owner {
			return ErrNotFound
		}
		if k.RevokedAt == nil {
			now := s.clock.Now().UTC()
			k.RevokedAt = &now
			if err := store.PutJSON(tx, akKey(id), k); err != nil {
				return err
			}
		}
		out = k
		return nil
	})
	if err != nil {
		return APIKey{}, fmt.Errorf("keys: revoke API key: %w", err)
	}
	s.log.Info("api key revoked", "account_id", owner, "api_key_id", id)
	return out, nil
}

// AuthenticateAPIKey returns the live API key whose text is text, or
// ErrInvalidAPIKey. The checksum is checked before any lookup; the stored
// hash is compared in constant time. It records last_used_at at most once a
// minute.
func (s *Service) AuthenticateAPIKey(ctx context.Context, text string) (APIKey, error) {
	if !CheckAPIKeyFormat(text) {
		return APIKey{}, ErrInvalidAPIKey
	}
	h := hashAPIKey(text)
	var k APIKey
	err := s.st.View(ctx, func(tx store.Txn) error {
		id, err := tx.Get(akHashKey(h))
		if errors.Is(err, store.ErrNotFound) {
			return ErrInvalidAPIKey
		}
		if err != nil {
			return err
		}
		k, err = getAPIKey(tx, string(id))
		if errors.Is(err, ErrNotFound) {
			return ErrInvalidAPIKey
		}
		return err
	})
	if err != nil {
		if errors.Is(err, ErrInvalidAPIKey) {
			return APIKey{}, ErrInvalidAPIKey
		}
		return APIKey{}, fmt.Errorf("keys: authenticate API key: %w", err)
	}
	if subtle.ConstantTimeCompare([]byte(k.Hash), []byte(h)) != 1 || k.RevokedAt != nil {
		return APIKey{}, ErrInvalidAPIKey
	}
	now := s.clock.Now().UTC()
	if k.LastUsedAt == nil || now.Sub(*k.LastUsedAt) >= lastUsedResolution {
		if err := s.touch(ctx, k.ID, now); err != nil {
			s.log.Warn("api key last_used_at not recorded", "api_key_id", k.ID, "err", err)
		}
		k.LastUsedAt = &now
	}
	return k, nil
}

func (s *Service) touch(ctx context.Context, id string, now time.Time) error {
	return s.st.Update(ctx, func(tx store.Txn) error {
		k, err := getAPIKey(tx, id)
		if err != nil {
			return err
		}
		k.LastUsedAt = &now
		return store.PutJSON(tx, akKey(id), k)
	})
}
