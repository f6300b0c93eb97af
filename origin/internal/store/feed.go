package store

import "context"

// ChangeFeed is implemented by stores that several processes share
// (PostgreSQL), so that a process keeping something in memory beside the
// store (the near-duplicate index) can follow what the others commit.
// Badger admits one process, whose own write path sees every commit.
type ChangeFeed interface {
	// Changes calls fn with every key under prefix, and its value, written
	// by a transaction that had not committed when the cursor since was
	// returned, and returns the cursor to pass next time. It may also
	// repeat keys seen before (callers are idempotent). A nil since only
	// returns the current cursor: take it before loading a snapshot, then
	// follow from it, and nothing committed after the snapshot is missed.
	Changes(ctx context.Context, prefix, since []byte, fn func(key, value []byte) error) (next []byte, err error)
}
