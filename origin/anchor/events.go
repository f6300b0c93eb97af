package anchor

import (
	"context"
	"time"

	"github.com/provenant/provenant/origin/store"
)

// EventBatchAnchored is the type of the event emitted when a batch is anchored.
const EventBatchAnchored = "batch.anchored"

// BatchAnchored is the data of a batch.anchored event (interface spec,
// "Events"); its JSON is the event's data object.
type BatchAnchored struct {
	BatchID string `json:"batch_id"`
	// MerkleRoot is 64 hex digits without 0x, as in certificates (wire.Anchor).
	MerkleRoot string `json:"merkle_root"`
	LeafCount  uint64 `json:"leaf_count"`
	// TxHash is 0x-prefixed hex, as Ethereum tools write it.
	TxHash      string   `json:"tx_hash"`
	BlockNumber uint64   `json:"block_number"`
	Network     string   `json:"network"`
	RecordIDs   []string `json:"record_ids"`
	// Accounts counts the batch's records per owning account (not part of
	// the public payload), so that deliveries can be fanned out per account.
	Accounts map[string]int `json:"-"`
}

// Event is one domain event.
type Event struct {
	// Type is the event type, e.g. EventBatchAnchored.
	Type string
	// At is when the event happened (the batcher's clock).
	At time.Time
	// BatchAnchored is set for EventBatchAnchored.
	BatchAnchored *BatchAnchored
}

// Publisher receives domain events. Publish is called inside the store
// transaction that makes the event true, so a durable subscriber (the
// webhook queue) writes its deliveries through txn and the event is
// recorded exactly when the state change commits: once, never before.
// Publish may be called again for the same event if the transaction is
// retried on conflict; it must therefore only write through txn, and
// returning an error aborts the state change (it is retried later).
type Publisher interface {
	Publish(ctx context.Context, txn store.Txn, ev Event) error
}

// NopPublisher discards events.
type NopPublisher struct{}

// Publish implements Publisher and does nothing.
func (NopPublisher) Publish(context.Context, store.Txn, Event) error { return nil }
