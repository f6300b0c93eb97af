package content

import (
	"context"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/record"
)

// AnchorQueue queues a new record for anchoring. Enqueue is called inside
// the store transaction that creates the record, so the record and its
// queue entry commit together or not at all; it must write only through
// txn (it may be re-run when the transaction retries) and be idempotent for
// the same (recordID, leaf). leaf is record.Signed.LeafHash() (RFC 9162
// leaf hash of the canonical bytes followed by the signature); accountID
// owns the record. origin/internal/anchor.Batcher.Enqueue(txn, anchor.Entry{...})
// has this shape.
type AnchorQueue interface {
	Enqueue(txn store.Txn, recordID string, leaf [32]byte, accountID string) error
}

// Outcome is the state of a record's anchoring as a ProofSource reports it.
type Outcome string

// Anchoring outcomes (the names origin/internal/anchor.Verify uses).
const (
	// AnchorVerified: the Merkle proof holds and the chain holds the root.
	AnchorVerified Outcome = "verified"
	// AnchorPending: nothing contradicts the record; not anchored (yet).
	AnchorPending Outcome = "pending"
	// AnchorInvalid: the proof or the chain contradicts the record.
	AnchorInvalid Outcome = "invalid"
	// AnchorUnavailable: the check could not run (chain unreachable).
	AnchorUnavailable Outcome = "unavailable"
)

// AnchorState is what a ProofSource knows about one record.
type AnchorState struct {
	Outcome Outcome
	// Detail is a human-readable sentence for the verify response's
	// blockchain check, e.g. "pending: queued for anchoring".
	Detail string
	// Anchor is the inclusion proof once the record's batch is closed, nil
	// before.
	Anchor *record.Anchor
	// Proof is the full proof document for the record detail endpoint (any
	// JSON-marshalable value, e.g. origin/internal/anchor.Proof); nil while pending.
	Proof any
}

// ProofSource reports the anchoring state of a record for verification and
// the record detail. It must not trust any status it stored itself: an
// AnchorVerified outcome means the audit path from leaf leads to a root
// that the chain holds in the named transaction. An error means the state
// could not be determined (the verify response then says so and stays
// usable); it must never be used to signal "pending".
type ProofSource interface {
	AnchorState(ctx context.Context, recordID string, leaf [32]byte) (AnchorState, error)
}

// PendingAnchor is the default AnchorQueue and ProofSource while no
// anchoring service is wired in: Enqueue does nothing and every record
// stays pending.
type PendingAnchor struct{}

// Enqueue implements AnchorQueue and does nothing.
func (PendingAnchor) Enqueue(store.Txn, string, [32]byte, string) error { return nil }

// AnchorState implements ProofSource: always pending.
func (PendingAnchor) AnchorState(context.Context, string, [32]byte) (AnchorState, error) {
	return AnchorState{Outcome: AnchorPending, Detail: "pending: queued for anchoring"}, nil
}
