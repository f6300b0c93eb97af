package store

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// GetUint64 reads the counter stored under key in tx as 8 big-endian
// bytes (the layout PutUint64 writes). A key that does not exist reads as
// 0, so a counter needs no initial write; a value of another length is an
// error (a corrupt counter is never read as a number), and errors of
// Txn.Get are returned unchanged.
func GetUint64(tx Txn, key []byte) (uint64, error) {
	b, err := tx.Get(key)
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if len(b) != 8 {
		return 0, fmt.Errorf("store: decode %q: want 8 bytes, got %d", key, len(b))
	}
	return binary.BigEndian.Uint64(b), nil
}

// PutUint64 stores v under key in tx as 8 big-endian bytes, the layout
// GetUint64 reads. Errors of Txn.Set are returned unchanged.
func PutUint64(tx Txn, key []byte, v uint64) error {
	return tx.Set(key, binary.BigEndian.AppendUint64(nil, v))
}
