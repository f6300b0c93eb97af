package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"
)

// Idempotency claims close the window between a record's transaction and
// the idempotency entry that remembers the response (saved after it, once
// the response exists): the request's idempotency id travels in the
// context, and the transaction that creates the record also writes a
// claim naming it. A retry that finds the claim without the entry (the
// process died in between) answers from the record instead of creating
// another one (docs/api.md, "Idempotent requests").
//
// Key layout (under "idem/", with httpapi's entries):
//
//	idem/c/<entry id hex>                  created nanos (8 bytes BE) ‖ fingerprint ‖ 0 ‖ record id
//	idem/t/<created nanos hex>/<entry id>  expiry index, shared with the entries
const (
	// IdemClaimPrefix prefixes the claims.
	IdemClaimPrefix = "idem/c/"
	// IdemTimePrefix prefixes the expiry index.
	IdemTimePrefix = "idem/t/"
)

// IdemClaim is what a request under an Idempotency-Key lets the record's
// transaction claim.
type IdemClaim struct {
	// ID is the entry id (derived from the credential and the key).
	ID string
	// Fingerprint identifies the request (a retry must match it).
	Fingerprint string
	// Created is the request's time.
	Created time.Time
}

type idemClaimKey struct{}

// WithIdemClaim returns ctx carrying c for PutIdemClaim.
func WithIdemClaim(ctx context.Context, c IdemClaim) context.Context {
	return context.WithValue(ctx, idemClaimKey{}, c)
}

// PutIdemClaim writes, in tx, the claim ctx carries (if any) naming
// recordID; without one it does nothing.
func PutIdemClaim(ctx context.Context, tx Txn, recordID string) error {
	c, ok := ctx.Value(idemClaimKey{}).(IdemClaim)
	if !ok || c.ID == "" {
		return nil
	}
	created := uint64(c.Created.UnixNano())
	v := binary.BigEndian.AppendUint64(nil, created)
	v = append(v, c.Fingerprint...)
	v = append(v, 0)
	v = append(v, recordID...)
	if err := tx.Set([]byte(IdemClaimPrefix+c.ID), v); err != nil {
		return fmt.Errorf("store: idempotency claim: %w", err)
	}
	return tx.Set(fmt.Appendf(nil, "%s%016x/%s", IdemTimePrefix, created, c.ID), nil)
}

// ParseIdemClaim decodes a claim's value.
func ParseIdemClaim(v []byte) (created time.Time, fingerprint, recordID string, err error) {
	if len(v) < 9 {
		return time.Time{}, "", "", fmt.Errorf("store: idempotency claim of %d bytes", len(v))
	}
	rest := string(v[8:])
	for i := 0; i < len(rest); i++ {
		if rest[i] == 0 {
			return time.Unix(0, int64(binary.BigEndian.Uint64(v))), rest[:i], rest[i+1:], nil
		}
	}
	return time.Time{}, "", "", fmt.Errorf("store: idempotency claim without a record id")
}
