package anchor

import (
	"fmt"
	"sort"
	"time"

	"github.com/provenant/provenant/origin/internal/events"
)

// BatchAnchored is the data of a batch.anchored event (docs/webhooks.md,
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

// batchAnchoredEvent wraps a batch.anchored payload for the event seam: the
// accounts to notify are the owners of the batch's records.
func batchAnchoredEvent(at time.Time, ba *BatchAnchored) (events.Event, error) {
	data, err := events.NewData(ba)
	if err != nil {
		return events.Event{}, fmt.Errorf("encode batch.anchored %s: %w", ba.BatchID, err)
	}
	accts := make([]string, 0, len(ba.Accounts))
	for a := range ba.Accounts {
		accts = append(accts, a)
	}
	sort.Strings(accts)
	return events.Event{Type: events.BatchAnchored, Time: at, Accounts: accts, Data: data}, nil
}
