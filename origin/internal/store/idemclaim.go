package store

import (
	"bytes"
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
//	idem/c/<entry id hex>                  created nanos (8 bytes BE) ‖ fingerprint ‖ 0 ‖ resource id [‖ 0 ‖ sealed secret]
//	idem/t/<created nanos hex>/<entry id>  expiry index, shared with the entries
//
// The claim names what the request created (a record, an API key, a
// signing key, a webhook). A response that carries a secret shown only
// once (an API key's text, a webhook's signing secret) cannot be rebuilt
// from the stored resource, which keeps only a hash or a sealed copy
// under the server's key: the claim then also holds the secret sealed
// under the request's idempotency key (IdemClaim.Seal), so only a client
// holding that key can have it answered again.
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
	// Seal encrypts a secret for the claim (PutIdemClaimSecret); nil
	// refuses secrets.
	Seal func(plain []byte) ([]byte, error)
}

// ClaimedResource is a decoded claim.
type ClaimedResource struct {
	// Created is the request's time.
	Created time.Time
	// Fingerprint identifies the request.
	Fingerprint string
	// ID is the resource the request created.
	ID string
	// SealedSecret is the secret written with the claim, sealed; nil
	// without one.
	SealedSecret []byte
}

type idemClaimKey struct{}

// WithIdemClaim returns ctx carrying c for PutIdemClaim.
func WithIdemClaim(ctx context.Context, c IdemClaim) context.Context {
	return context.WithValue(ctx, idemClaimKey{}, c)
}

// IdemClaimFrom returns the claim ctx carries, if any.
func IdemClaimFrom(ctx context.Context) (IdemClaim, bool) {
	c, ok := ctx.Value(idemClaimKey{}).(IdemClaim)
	return c, ok && c.ID != ""
}

// PutIdemClaim writes, in tx, the claim ctx carries (if any) naming
// recordID; without one it does nothing.
func PutIdemClaim(ctx context.Context, tx Txn, recordID string) error {
	return PutIdemClaimSecret(ctx, tx, recordID, nil)
}

// PutIdemClaimSecret is PutIdemClaim for a resource whose response
// carries secret, shown once: the claim keeps it sealed (IdemClaim.Seal)
// so that a retry can be answered with it. Without a claim in ctx it does
// nothing.
func PutIdemClaimSecret(ctx context.Context, tx Txn, resourceID string, secret []byte) error {
	c, ok := IdemClaimFrom(ctx)
	if !ok {
		return nil
	}
	created := uint64(c.Created.UnixNano())
	v := binary.BigEndian.AppendUint64(nil, created)
	v = append(v, c.Fingerprint...)
	v = append(v, 0)
	v = append(v, resourceID...)
	if secret != nil {
		if c.Seal == nil {
			return fmt.Errorf("store: idempotency claim: no sealing key for a secret")
		}
		sealed, err := c.Seal(secret)
		if err != nil {
			return fmt.Errorf("store: idempotency claim: seal: %w", err)
		}
		v = append(v, 0)
		v = append(v, sealed...)
	}
	if err := tx.Set([]byte(IdemClaimPrefix+c.ID), v); err != nil {
		return fmt.Errorf("store: idempotency claim: %w", err)
	}
	return tx.Set(fmt.Appendf(nil, "%s%016x/%s", IdemTimePrefix, created, c.ID), nil)
}

// ParseIdemClaim decodes a claim's value.
func ParseIdemClaim(v []byte) (ClaimedResource, error) {
	if len(v) < 9 {
		return ClaimedResource{}, fmt.Errorf("store: idempotency claim of %d bytes", len(v))
	}
	created := time.Unix(0, int64(binary.BigEndian.Uint64(v)))
	fp, rest, ok := bytes.Cut(v[8:], []byte{0})
	if !ok {
		return ClaimedResource{}, fmt.Errorf("store: idempotency claim without a resource id")
	}
	id, sealed, withSecret := bytes.Cut(rest, []byte{0})
	c := ClaimedResource{Created: created, Fingerprint: string(fp), ID: string(id)}
	if withSecret {
		c.SealedSecret = bytes.Clone(sealed)
	}
	return c, nil
}
