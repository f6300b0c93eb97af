// Package store is the origin's only door to persistent state. It defines the
// small Store interface every domain package codes against and its Badger v4
// implementation; no other package imports Badger.
//
// Keys are raw bytes. Each domain package owns a key prefix (for example
// "acct/" for accounts, "ak/" for API keys, "sk/" for signing keys) and the
// encoding of its values; the store gives no meaning to either. GetJSON and
// PutJSON serve the packages that choose JSON for their values.
package store

import (
	"context"
	"errors"
)

// ErrNotFound is returned by Txn.Get when the key does not exist.
var ErrNotFound = errors.New("store: key not found")

// ErrConflict is returned by Store.Update when the transaction still
// conflicted with concurrent writers after the bounded number of retries.
var ErrConflict = errors.New("store: transaction conflict, retries exhausted")

// ErrStopIteration may be returned by a Scan callback to stop the scan early;
// Scan then returns nil.
var ErrStopIteration = errors.New("store: stop iteration")

// Store is a transactional, ordered key-value store.
//
// Durability contract: when Update returns nil, every write made by fn is
// committed and has been flushed to stable storage (fsync), so it survives a
// process crash and a power loss. The Badger implementation opens the
// database with SyncWrites on, which is what gives this guarantee; see Open.
//
// Isolation: View and Update run fn in a snapshot-isolated transaction with
// write-write and read-write conflict detection (serializable for the keys
// fn reads). Update retries fn when the commit conflicts, up to a bounded
// number of attempts, so fn must be re-runnable: it must have no side effects
// outside the transaction it is given (no channel sends, no mail, no counters).
//
// Implementations are safe for concurrent use.
type Store interface {
	// View runs fn in a read-only transaction.
	View(ctx context.Context, fn func(Txn) error) error
	// Update runs fn in a read-write transaction and commits it if fn returns
	// nil. If fn returns an error, nothing fn wrote is committed and the
	// error is returned unchanged (wrapped by nothing), so callers may branch
	// on their own sentinel errors with errors.Is.
	Update(ctx context.Context, fn func(Txn) error) error
	// Close flushes and closes the store. No method may be called afterwards.
	Close() error
}

// Txn is a transaction handed to View or Update callbacks. It must not be
// used after the callback returns. Byte slices passed in may be reused by the
// caller after the call returns; byte slices handed out are copies owned by
// the caller.
type Txn interface {
	// Get returns a copy of the value stored under key, or ErrNotFound.
	Get(key []byte) ([]byte, error)
	// Set stores value under key. It fails in a read-only transaction.
	Set(key, value []byte) error
	// Delete removes key; deleting a missing key is not an error.
	Delete(key []byte) error
	// Scan calls fn for each key with the given prefix, in ascending byte
	// order, starting at the first key >= start (start nil or shorter than
	// prefix means the beginning of the prefix). key and value are copies.
	// If fn returns ErrStopIteration, Scan stops and returns nil; any other
	// error stops the scan and is returned.
	Scan(prefix, start []byte, fn func(key, value []byte) error) error
}

// Shared is implemented by stores that several processes use at once
// (PostgreSQL): what must be serialised across origins (an idempotency
// key) needs a lease in the store there, while one process owns a Badger
// directory and an in-process lock is enough.
type Shared interface {
	// SharedAcrossProcesses reports whether other processes may write
	// the same keys concurrently.
	SharedAcrossProcesses() bool
}

// IsShared reports whether st is Shared and says it is.
func IsShared(st Store) bool {
	s, ok := st.(Shared)
	return ok && s.SharedAcrossProcesses()
}

// MultiGetter is implemented by transactions that read several keys in one
// round trip (PostgreSQL). Callers use GetMany, which falls back to one
// Get per key on transactions without it (Badger reads in process, where
// a loop costs the same).
type MultiGetter interface {
	// GetMany returns the values of keys in the order given: a copy of
	// each value, nil for a key that does not exist (an existing empty
	// value is an empty, non-nil slice). It sees the transaction's own
	// writes, as Get does.
	GetMany(keys [][]byte) ([][]byte, error)
}

// GetMany reads keys through txn, in one call when txn is a MultiGetter;
// see MultiGetter for the result.
func GetMany(txn Txn, keys [][]byte) ([][]byte, error) {
	if m, ok := txn.(MultiGetter); ok {
		return m.GetMany(keys)
	}
	out := make([][]byte, len(keys))
	for i, k := range keys {
		v, err := txn.Get(k)
		switch {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			return nil, err
		case v == nil:
			out[i] = []byte{}
		default:
			out[i] = v
		}
	}
	return out, nil
}
