// Package keys owns API keys ("ak/" prefix) and Ed25519 signing keys ("sk/"
// prefix): creation, listing, revocation, API-key authentication, and
// signing with a sealed private key that never leaves this package.
package keys

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/clock"
)

// Sentinel errors callers branch on.
var (
	// ErrNotFound: no such key for this owner (keys of other accounts are
	// reported as not found, never as forbidden).
	ErrNotFound = errors.New("keys: not found")
	// ErrInvalidAPIKey: malformed, bad checksum, unknown or revoked API key
	// (deliberately indistinguishable to the caller).
	ErrInvalidAPIKey = errors.New("keys: invalid API key")
	// ErrUnsealFailed: a sealed private key could not be opened, typically
	// because the master key changed.
	ErrUnsealFailed = errors.New("keys: cannot unseal signing key (wrong master key?)")
	// ErrDeviceKey: the signing key is a device key (custody "device"):
	// the service holds only its public half and cannot sign with it.
	ErrDeviceKey = errors.New("keys: device key: the service holds no private key to sign with")
	// ErrPublicKeyTaken: a signing key with this public key exists already
	// (a public key names one key of one account).
	ErrPublicKeyTaken = errors.New("keys: public key already registered")
	// ErrSigningKeyRevoked: the signing key is revoked and signs nothing
	// any more (sign refuses it, register refuses records by it).
	ErrSigningKeyRevoked = errors.New("keys: signing key revoked")
	// ErrSigningKeyAlreadyRevoked: revoking a key revoked before.
	ErrSigningKeyAlreadyRevoked = errors.New("keys: signing key already revoked")
)

// MasterKeySize is the length of the master key that seals signing keys.
const MasterKeySize = 32

// Config configures a Service. All fields but Logger are required.
type Config struct {
	Store store.Store
	Clock clock.Clock
	// Rand is the randomness source (crypto/rand.Reader in production).
	Rand io.Reader
	// MasterKey seals signing private keys at rest (XChaCha20-Poly1305).
	MasterKey []byte
	// Logger for operational messages; never receives key material. Nil discards.
	Logger *slog.Logger
}

// Service implements API key and signing key operations. It is safe for
// concurrent use.
type Service struct {
	st     store.Store
	clock  clock.Clock
	rand   io.Reader
	sealer sealer
	log    *slog.Logger
}

// New returns a Service.
func New(cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Clock == nil || cfg.Rand == nil {
		return nil, errors.New("keys: Store, Clock and Rand are required")
	}
	sl, err := newSealer(cfg.MasterKey, cfg.Rand)
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{st: cfg.Store, clock: cfg.Clock, rand: cfg.Rand, sealer: sl, log: log}, nil
}

// getJSON reads the what record id stored under key, mapping a missing key
// to ErrNotFound.
func getJSON[T any](tx store.Txn, key []byte, what, id string) (T, error) {
	return store.GetJSONOr[T](tx, key, ErrNotFound, "keys: "+what+" "+id)
}

// listPage returns one page of the owner index under prefix, loading each
// listed id with get in the same transaction.
func listPage[T any](ctx context.Context, st store.Store, prefix []byte, cursor string, limit int,
	get func(tx store.Txn, id string) (T, error)) (store.Page[T], error) {
	var p store.Page[T]
	err := st.View(ctx, func(tx store.Txn) (err error) {
		p, err = store.IndexPage(tx, prefix, cursor, limit, func(id string) (T, bool, error) {
			v, err := get(tx, id)
			return v, err == nil, err
		})
		return err
	})
	return p, err
}
