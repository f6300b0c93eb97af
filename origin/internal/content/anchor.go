package content

import (
	"context"
	"errors"
	"fmt"

	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/content/counters"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/wire"
)

// AnchorQueue queues a new record for anchoring. Enqueue is called inside
// the store transaction that creates the record, so the record and its
// queue entry commit together or not at all; it must write only through
// txn (it may be re-run when the transaction retries) and be idempotent for
// the same entry. The entry's leaf is record.Signed.LeafHash() (RFC 9162
// leaf hash of the canonical bytes followed by the signature) and its
// account the record's owner. anchor.Queue implements it.
type AnchorQueue interface {
	Enqueue(txn store.Txn, e anchor.Entry) error
}

// ProofSource reports the anchoring state of a record for verification and
// the record detail. It must not trust any status stored by the origin: an
// anchor.Verified outcome means the audit path from leaf leads to a root
// that the chain holds in the named transaction. An error means the state
// could not be determined (the verify response then says so and stays
// usable); it must never be used to signal "pending". anchor.Checker
// implements it.
type ProofSource interface {
	AnchorState(ctx context.Context, recordID string, leaf anchor.Hash) (anchor.State, error)
}

// PendingAnchor is the default AnchorQueue and ProofSource while no
// anchoring service is wired in: Enqueue does nothing and every record
// stays pending.
type PendingAnchor struct{}

// Enqueue implements AnchorQueue and does nothing.
func (PendingAnchor) Enqueue(store.Txn, anchor.Entry) error { return nil }

// AnchorState implements ProofSource: always pending.
func (PendingAnchor) AnchorState(context.Context, string, anchor.Hash) (anchor.State, error) {
	return anchor.State{Outcome: anchor.Pending, Detail: "pending: queued for anchoring"}, nil
}

// BatchAnchored implements anchor.Listener. Inside the batcher's own
// transaction (the one that marks the batch anchored) it records that the
// batch's records are anchored in transaction b.TxHash: their
// blockchain_status becomes "anchored" and their owners' counters move from
// pending to anchored. The record is the one place that holds this
// per-record state (docs/anchoring.md, "Record status"); the batcher keeps
// only the batch. Unknown ids and records already anchored are skipped, so
// a replay of the same batch changes nothing. It writes only through txn.
func (s *Service) BatchAnchored(txn store.Txn, b anchor.AnchoredBatch) error {
	at := b.AnchoredAt.UTC()
	tx := b.TxHash.String()
	for _, id := range b.RecordIDs {
		r, err := getRecord(txn, id)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("content: batch %s anchored: %w", b.BatchID, err)
		}
		if r.BlockchainStatus == wire.StatusAnchored {
			// A batch anchored again after a reorganisation dropped its
			// transaction names the new one; counted once.
			if b.Reanchored && r.BlockchainTx != tx {
				r.BlockchainTx, r.AnchoredAt = tx, &at
				if err := store.PutJSON(txn, recordKey(id), r); err != nil {
					return err
				}
			}
			continue
		}
		r.BlockchainStatus, r.BlockchainTx, r.AnchoredAt = wire.StatusAnchored, tx, &at
		if err := store.PutJSON(txn, recordKey(id), r); err != nil {
			return err
		}
		if err := counters.Bump(txn, r.Owner, id, func(c *counters.Totals) { c.Anchored++ }); err != nil {
			return err
		}
	}
	return nil
}
