package store

import (
	"encoding/json"
	"errors"
	"fmt"
)

// GetJSON reads the value stored under key in tx and decodes it from JSON
// into a T. It returns ErrNotFound (and the zero T) when the key does not
// exist, the error of Txn.Get unchanged when the read fails, and an error
// wrapping the json error when the stored bytes do not decode as a T.
// Callers map ErrNotFound to their own sentinel with errors.Is.
func GetJSON[T any](tx Txn, key []byte) (T, error) {
	var v T
	b, err := tx.Get(key)
	if err != nil {
		return v, err
	}
	if err := json.Unmarshal(b, &v); err != nil {
		var zero T
		return zero, fmt.Errorf("store: decode %q: %w", key, err)
	}
	return v, nil
}

// GetJSONOr is GetJSON for a record a caller names: a missing key is
// notFound (the caller's own sentinel, returned as is), and any other
// error is wrapped with what (say "content: record 42"), so the caller's
// log line names the record whose read failed.
func GetJSONOr[T any](tx Txn, key []byte, notFound error, what string) (T, error) {
	v, err := GetJSON[T](tx, key)
	if errors.Is(err, ErrNotFound) {
		return v, notFound
	}
	if err != nil {
		return v, fmt.Errorf("%s: %w", what, err)
	}
	return v, nil
}

// PutJSON encodes v as JSON and stores it under key in tx. Nothing is
// written when encoding fails; that error wraps the json error. Errors of
// Txn.Set are returned unchanged.
func PutJSON(tx Txn, key []byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("store: encode %q: %w", key, err)
	}
	return tx.Set(key, b)
}
