package anchor

import (
	"fmt"
	"sort"
	"time"

	"github.com/provenant/provenant/origin/internal/events"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/merkle"
	"github.com/provenant/provenant/shared/wire"
)

// AnchoredBatch is a batch that has just reached StateAnchored, as the
// batcher hands it to its Listener.
type AnchoredBatch struct {
	BatchID     string
	MerkleRoot  Hash
	LeafCount   uint64
	TxHash      Hash
	BlockNumber uint64
	Network     string
	// RecordIDs are the batch's records in leaf order.
	RecordIDs []string
	// Accounts counts the batch's records per owning account (Entry.AccountID),
	// so that announcements can be fanned out to the owners.
	Accounts map[string]int
	// AnchoredAt is when the batcher saw the required confirmations (the
	// batcher's clock, not a chain fact).
	AnchoredAt time.Time
	// Reanchored: the batch was anchored before, in a transaction a
	// chain reorganisation dropped; TxHash is its new anchor.
	Reanchored bool
}

// Listener is told that a batch is anchored. BatchAnchored runs inside the
// store transaction that moves the batch to StateAnchored, with that
// transaction, so what the listener writes commits together with the new
// batch state or not at all. It must write only through txn (no network, no
// goroutines): the transaction may be retried, and if BatchAnchored returns
// an error it is rolled back and the batch is anchored again (and the
// listener called again) at a later Step.
type Listener interface {
	BatchAnchored(txn store.Txn, b AnchoredBatch) error
}

// Listeners is a Listener that calls each of its elements in order and stops
// at the first error (which aborts the batcher's transaction).
type Listeners []Listener

// BatchAnchored implements Listener.
func (ls Listeners) BatchAnchored(txn store.Txn, b AnchoredBatch) error {
	for _, l := range ls {
		if err := l.BatchAnchored(txn, b); err != nil {
			return err
		}
	}
	return nil
}

// Announcer is the Listener that turns an anchored batch into the
// batch.anchored event (docs/webhooks.md) and publishes it to Events in the
// same transaction; the accounts notified are the owners of the batch's
// records.
type Announcer struct {
	Events events.Publisher
}

// BatchAnchored implements Listener.
func (a Announcer) BatchAnchored(txn store.Txn, b AnchoredBatch) error {
	data, err := events.NewData(wire.BatchAnchored{
		BatchID: b.BatchID, MerkleRoot: merkle.Hash(b.MerkleRoot).String(), LeafCount: b.LeafCount,
		TxHash: b.TxHash.String(), BlockNumber: b.BlockNumber, Network: b.Network, RecordIDs: b.RecordIDs,
	})
	if err != nil {
		return fmt.Errorf("encode batch.anchored %s: %w", b.BatchID, err)
	}
	accts := make([]string, 0, len(b.Accounts))
	for acct := range b.Accounts {
		accts = append(accts, acct)
	}
	sort.Strings(accts)
	return a.Events.Publish(txn, events.Event{Type: events.BatchAnchored, Time: b.AnchoredAt, Accounts: accts, Data: data})
}
