package anchor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/clock"
)

// Entry is a record to anchor.
type Entry struct {
	// RecordID identifies the record (its UUID).
	RecordID string
	// LeafHash is the record's RFC 9162 leaf hash from shared/record
	// (Signed.LeafHash): SHA-256(0x00 ‖ canonical record bytes ‖ signature),
	// so the anchored root commits to the signature too.
	LeafHash Hash
	// AccountID owns the record; AnchoredBatch.Accounts carries it so that
	// batch.anchored reaches the owners. Optional.
	AccountID string
}

// Queue writes entries into the anchoring queue that a Batcher on the same
// store drains. It needs no running Batcher (only the clock that orders the
// queue), so the sign path can be built before the batcher, which in turn is
// given the content service as its Listener: no construction cycle.
type Queue struct{ clk clock.Clock }

// NewQueue returns a Queue that stamps entries with clk (clock.System if
// nil, as for the zero Queue).
func NewQueue(clk clock.Clock) Queue {
	if clk == nil {
		clk = clock.System{}
	}
	return Queue{clk: clk}
}

// Enqueue adds e to the anchoring queue inside txn, the sign path's own
// transaction, so the record and its queue entry commit together (or not at
// all). It is idempotent: enqueueing the same record id with the same leaf
// hash again does nothing; with a different leaf hash it returns
// ErrConflictingLeaf. It writes only through txn and may be re-run.
func (q Queue) Enqueue(txn store.Txn, e Entry) error {
	if e.RecordID == "" {
		return errors.New("anchor: enqueue: empty record id")
	}
	rr, err := store.GetJSON[recordRec](txn, recordKey(e.RecordID))
	switch {
	case err == nil:
		if rr.Leaf != e.LeafHash {
			return fmt.Errorf("anchor: enqueue %s: %w", e.RecordID, ErrConflictingLeaf)
		}
		return nil
	case !errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("anchor: enqueue %s: %w", e.RecordID, err)
	}
	clk := q.clk
	if clk == nil { // the zero Queue
		clk = clock.System{}
	}
	now := clk.Now()
	rr = recordRec{Leaf: e.LeafHash, EnqueuedAt: now.UnixNano(), Account: e.AccountID}
	if err := store.PutJSON(txn, recordKey(e.RecordID), rr); err != nil {
		return fmt.Errorf("anchor: enqueue %s: %w", e.RecordID, err)
	}
	val := append(append([]byte{}, e.LeafHash[:]...), e.AccountID...)
	if err := txn.Set(queueKey(now, e.RecordID), val); err != nil {
		return fmt.Errorf("anchor: enqueue %s: %w", e.RecordID, err)
	}
	return nil
}

// QueueStats describes the records waiting for a batch to close.
type QueueStats struct {
	// Depth is the number of queued records.
	Depth int
	// Oldest is when the oldest queued record was enqueued (zero when the
	// queue is empty).
	Oldest time.Time
}

// ReadQueueStats counts the anchoring queue in st. It reads the whole
// queue, which the batcher keeps to about one batch (BatchSize records)
// in normal operation; a growing depth means anchoring is falling behind.
func ReadQueueStats(ctx context.Context, st store.Store) (QueueStats, error) {
	var qs QueueStats
	err := st.View(ctx, func(txn store.Txn) error {
		qs = QueueStats{}
		return txn.Scan(keyQueue, nil, func(k, _ []byte) error {
			if qs.Depth == 0 && len(k) >= len(keyQueue)+8 {
				qs.Oldest = time.Unix(0, int64(beUint64(k[len(keyQueue):])))
			}
			qs.Depth++
			return nil
		})
	})
	if err != nil {
		return QueueStats{}, fmt.Errorf("anchor: queue stats: %w", err)
	}
	return qs, nil
}
