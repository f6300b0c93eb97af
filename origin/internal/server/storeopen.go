package server

import (
	"context"
	"crypto/ed25519"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/httpapi"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/store/pgstore"
)

// ErrBackupUnsupported is returned by Backup when the store is PostgreSQL:
// the database is backed up with PostgreSQL's own tools (pg_dump or a
// base backup with WAL archiving), which see every origin's writes.
var ErrBackupUnsupported = errors.New("server: backup of a PostgreSQL store: use pg_dump or a PostgreSQL base backup")

// openStore opens the configured store: PostgreSQL when cfg.PostgresURL
// is set, else Badger under the data directory. bdg is the same store
// when it is Badger (nil otherwise); fresh reports a Badger database
// created by this call (the demo is seeded only then).
func openStore(cfg Config) (st store.Store, bdg *store.Badger, fresh bool, err error) {
	if cfg.BlobsDir != "" && cfg.PostgresURL == "" {
		// With Badger the files live in the data directory, which the
		// backup archive copies; elsewhere they would be left out of it.
		return nil, nil, false, errors.New("server: a blobs directory of its own is for PostgreSQL installations (shared by their origins); with Badger the files stay under the data directory")
	}
	if cfg.PostgresURL != "" {
		if len(cfg.MasterKey) == 0 {
			return nil, nil, false, errors.New("server: a PostgreSQL store needs the master key from the environment (PROVENANT_MASTER_KEY), the same on every origin")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		pg, err := pgstore.Open(ctx, pgstore.Config{URL: cfg.PostgresURL, Logger: cfg.Logger.With("component", "postgres")})
		if err != nil {
			return nil, nil, false, fmt.Errorf("server: %w", err)
		}
		if cfg.Anchor.Chain.RPCURL == "" {
			// Proofs are checked against the chain of the origin asked;
			// with several origins each would see only its own anchors.
			cfg.Logger.Warn("PostgreSQL store with the embedded chain: run a single origin, or point every origin at one chain with --eth-rpc")
		}
		return pg, nil, false, nil
	}
	_, statErr := os.Stat(filepath.Join(cfg.DataDir, dbSubdir))
	fresh = errors.Is(statErr, fs.ErrNotExist)
	b, err := store.Open(store.Config{Dir: filepath.Join(cfg.DataDir, dbSubdir), Logger: cfg.Logger.With("component", "badger"),
		MinFreeBytes: cfg.MinFreeDisk, FreeSpace: cfg.freeSpace})
	if err != nil {
		return nil, nil, false, err
	}
	return b, b, fresh, nil
}

// jwtSeedInfo labels the derivation of the JWT key from the master key.
const jwtSeedInfo = "provenant/jwt-ed25519-seed/v1"

// sharedJWTSeed derives the JWT signing key's seed from the master key, so
// that every origin sharing a PostgreSQL store signs and accepts the same
// tokens without a key file to copy between machines. It is one-way: the
// JWT key reveals nothing of the master key.
func sharedJWTSeed(master []byte) []byte {
	seed, err := hkdf.Key(sha256.New, master, nil, jwtSeedInfo, ed25519.SeedSize)
	if err != nil {
		// Only for lengths HKDF-SHA256 cannot produce; 32 bytes it can.
		panic(fmt.Sprintf("server: derive JWT seed: %v", err))
	}
	return seed
}

// storeSizes is the metrics source of the store's on-disk sizes: Badger
// knows its own; PostgreSQL's are the database's to report.
func storeSizes(b *store.Badger) func() (int64, int64) {
	if b == nil {
		return nil
	}
	return b.Sizes
}

// anchorLease returns the anchoring lease when several origins may share
// the store (PostgreSQL), nil on Badger where this origin is the only one.
// The holder name is the host name plus a random suffix, so a restarted
// origin is a new holder and must wait for (or take over) the lease.
func anchorLease(cfg Config, st store.Store) (*anchor.Lease, error) {
	if cfg.PostgresURL == "" {
		return nil, nil
	}
	host, _ := os.Hostname()
	var r [6]byte
	if _, err := io.ReadFull(cfg.Rand, r[:]); err != nil {
		return nil, fmt.Errorf("server: lease holder id: %w", err)
	}
	l, err := anchor.NewLease(anchor.LeaseConfig{Store: st, Holder: host + "-" + hex.EncodeToString(r[:]), TTL: cfg.Anchor.LeaseTTL,
		Clock: cfg.Clock, Logger: cfg.Logger.With("component", "anchor")})
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	return l, nil
}

// writableCheck is the readiness check "writable": it fails while the
// Badger database is open read-only (the origin started on a disk under
// the free-space margin), so that /ready tells an operator why writes
// answer 507 without a look at the log.
func writableCheck(b *store.Badger) httpapi.ReadyCheck {
	return httpapi.ReadyCheck{Name: "writable", Check: func(context.Context) error {
		if b.ReadOnly() {
			return errors.New("the database is open read-only until the free space is back over the margin")
		}
		return nil
	}}
}
