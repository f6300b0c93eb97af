package store

import (
	"bytes"
	"encoding/base64"
	"errors"
)

// Page is one page of a listing: at most the requested number of items, in
// the listing's order, and Next, the opaque cursor of the following page
// ("" on the last page). Every service that pages through the store returns
// it, so the HTTP layer renders all lists the same way.
type Page[T any] struct {
	Items []T
	Next  string
}

// ErrBadCursor is returned by ScanPage for a cursor it did not produce.
var ErrBadCursor = errors.New("store: malformed page cursor")

// ScanPage calls fn for at most limit keys under prefix, in key order,
// resuming after the key a previous call's cursor designates ("" starts at
// the beginning). It returns the cursor for the next page, or "" when no key
// follows. Cursors are opaque (base64url of the last key's suffix after
// prefix) and stay valid across writes: a page resumes strictly after the
// last key returned, whatever was inserted or deleted since.
func ScanPage(tx Txn, prefix []byte, cursor string, limit int, fn func(key, value []byte) error) (string, error) {
	if limit <= 0 {
		return "", errors.New("store: page limit must be positive")
	}
	start := prefix
	if cursor != "" {
		suffix, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil || len(suffix) == 0 {
			return "", ErrBadCursor
		}
		start = append(append(bytes.Clone(prefix), suffix...), 0)
	}
	var next string
	var last []byte
	n := 0
	err := tx.Scan(prefix, start, func(k, v []byte) error {
		if n == limit {
			next = base64.RawURLEncoding.EncodeToString(last[len(prefix):])
			return ErrStopIteration
		}
		n++
		last = k
		return fn(k, v)
	})
	if err != nil {
		return "", err
	}
	return next, nil
}

// IndexPage reads one page of an index under prefix whose keys end in
// "/<id>", loading each listed id with get inside tx. get reports ok=false
// for an id to leave out (an entry whose target is gone); such an entry
// still counts toward limit, so the page's cursor stays where ScanPage put
// it.
func IndexPage[T any](tx Txn, prefix []byte, cursor string, limit int, get func(id string) (v T, ok bool, err error)) (Page[T], error) {
	var p Page[T]
	next, err := ScanPage(tx, prefix, cursor, limit, func(key, _ []byte) error {
		v, ok, err := get(string(key[bytes.LastIndexByte(key, '/')+1:]))
		if err != nil || !ok {
			return err
		}
		p.Items = append(p.Items, v)
		return nil
	})
	if err != nil {
		return Page[T]{}, err
	}
	p.Next = next
	return p, nil
}
