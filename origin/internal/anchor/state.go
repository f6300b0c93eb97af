package anchor

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"time"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/merkle"
)

// BatchState is where a batch is in the anchoring state machine
// (docs/anchoring.md).
type BatchState string

// Batch states.
const (
	// StateQueued: the tree is built and the root computed; no transaction
	// has been persisted for it yet (or the previous one failed).
	StateQueued BatchState = "queued"
	// StateSubmitted: a signed transaction is persisted (and broadcast, or
	// about to be rebroadcast); no canonical receipt yet.
	StateSubmitted BatchState = "submitted"
	// StateIncluded: a receipt was seen in a canonical block; waiting for
	// the configured confirmations.
	StateIncluded BatchState = "included"
	// StateAnchored: the block has the configured confirmations and was
	// still canonical when checked. Terminal; batch.anchored was emitted.
	StateAnchored BatchState = "anchored"
	// StateFailed: the transaction reverted, or its nonce was consumed by
	// another transaction. The batch is resubmitted with a new nonce.
	StateFailed BatchState = "failed"
)

// Status is a record's blockchain_status.
type Status string

// Record statuses, derived from the record's batch (docs/anchoring.md).
const (
	// StatusPending: waiting for a batch to close or for its transaction.
	StatusPending Status = "pending"
	// StatusSubmitted: the batch's transaction is sent or mined but not yet
	// confirmed deeply enough.
	StatusSubmitted Status = "submitted"
	// StatusAnchored: the batch root is in a transaction with enough confirmations.
	StatusAnchored Status = "anchored"
	// StatusFailed: the batch's transaction failed; it is being retried.
	StatusFailed Status = "failed"
)

// RecordStatus maps a batch state to the status of its records.
func RecordStatus(s BatchState) Status {
	switch s {
	case StateSubmitted, StateIncluded:
		return StatusSubmitted
	case StateAnchored:
		return StatusAnchored
	case StateFailed:
		return StatusFailed
	default:
		return StatusPending
	}
}

// Storage keys. Everything anchoring stores lives under "anchor/".
var (
	keyQueue  = []byte("anchor/q/")      // + 8-byte BE enqueue unix-nanos + record id → leaf(32) ‖ account id
	keyRecord = []byte("anchor/r/")      // + record id → recordRec JSON
	keyBatch  = []byte("anchor/b/")      // + 8-byte BE seq → batchRec JSON
	keyLeaves = []byte("anchor/bl/")     // + 8-byte BE seq → leaf hashes, 32 bytes each, in leaf order
	keyIDs    = []byte("anchor/bi/")     // + 8-byte BE seq → JSON array of record ids, in leaf order
	keyOpen   = []byte("anchor/open/")   // + 8-byte BE seq → empty: batches not yet anchored
	keySeq    = []byte("anchor/m/seq")   // last batch seq, 8-byte BE
	keyNonce  = []byte("anchor/m/nonce") // next nonce to use, 8-byte BE
	keyStats  = []byte("anchor/m/stats") // statsRec JSON
)

func seqKey(prefix []byte, seq uint64) []byte {
	k := make([]byte, len(prefix)+8)
	copy(k, prefix)
	binary.BigEndian.PutUint64(k[len(prefix):], seq)
	return k
}

func queueKey(at time.Time, recordID string) []byte {
	k := make([]byte, 0, len(keyQueue)+8+len(recordID))
	k = append(k, keyQueue...)
	k = binary.BigEndian.AppendUint64(k, uint64(at.UnixNano()))
	return append(k, recordID...)
}

func recordKey(id string) []byte { return append(append([]byte{}, keyRecord...), id...) }

// BatchID renders a batch sequence number as its public id.
func BatchID(seq uint64) string { return strconv.FormatUint(seq, 10) }

// ParseBatchID is the inverse of BatchID.
func ParseBatchID(id string) (uint64, error) {
	seq, err := strconv.ParseUint(id, 10, 64)
	if err != nil || seq == 0 {
		return 0, fmt.Errorf("%w: batch id %q", ErrNotFound, id)
	}
	return seq, nil
}

// recordRec is stored per record from Enqueue on.
type recordRec struct {
	Batch      uint64 `json:"b,omitempty"` // 0 while waiting in the queue
	Index      uint64 `json:"i,omitempty"`
	Leaf       Hash   `json:"l"`
	EnqueuedAt int64  `json:"t"`
	Account    string `json:"a,omitempty"`
}

// attempt is one signed transaction for a batch. Attempts of one batch
// share a nonce unless the batch failed and was resubmitted.
type attempt struct {
	Nonce  uint64    `json:"nonce"`
	Hash   Hash      `json:"hash"`
	Raw    []byte    `json:"raw"`
	TipCap string    `json:"tip_cap"`
	FeeCap string    `json:"fee_cap"`
	SentAt time.Time `json:"signed_at"`
}

func (a attempt) fees() Fees {
	tip, _ := new(big.Int).SetString(a.TipCap, 10)
	fc, _ := new(big.Int).SetString(a.FeeCap, 10)
	return Fees{TipCap: tip, FeeCap: fc}
}

type inclusionRec struct {
	TxHash      Hash   `json:"tx_hash"`
	BlockNumber uint64 `json:"block_number"`
	BlockHash   Hash   `json:"block_hash"`
}

// batchRec is a batch header.
type batchRec struct {
	Seq        uint64         `json:"seq"`
	Root       Hash           `json:"root"`
	LeafCount  uint64         `json:"leaf_count"`
	State      BatchState     `json:"state"`
	CreatedAt  time.Time      `json:"created_at"`
	Network    string         `json:"network"`
	ChainID    uint64         `json:"chain_id"`
	Attempts   []attempt      `json:"attempts,omitempty"`
	Abandoned  []attempt      `json:"abandoned,omitempty"` // attempts of failed submissions
	Inclusion  *inclusionRec  `json:"inclusion,omitempty"`
	AnchoredAt time.Time      `json:"anchored_at,omitzero"`
	Accounts   map[string]int `json:"accounts,omitempty"` // leaves per account
	// Reanchored: the batch was anchored once and a reorganisation took
	// its transaction out of the canonical chain (Prover.Reopen); it is
	// counted in the stats once, and its next anchoring is announced
	// again with the new transaction.
	Reanchored bool `json:"reanchored,omitempty"`
	// ReopenedTx is the transaction the batch was anchored in when it was
	// reopened: found again in the same transaction (a node that briefly
	// lacked it), the batch is anchored again without a new announcement.
	ReopenedTx Hash `json:"reopened_tx,omitzero"`
}

type statsRec struct {
	AnchoredRecords uint64 `json:"anchored_records"`
	AnchoredBatches uint64 `json:"anchored_batches"`
}

func loadBatch(txn store.Txn, seq uint64) (batchRec, error) {
	br, err := store.GetJSON[batchRec](txn, seqKey(keyBatch, seq))
	if errors.Is(err, store.ErrNotFound) {
		return br, fmt.Errorf("%w: batch %d", ErrNotFound, seq)
	}
	return br, err
}

func loadLeaves(txn store.Txn, seq uint64) ([]merkle.Hash, error) {
	b, err := txn.Get(seqKey(keyLeaves, seq))
	if err != nil {
		return nil, fmt.Errorf("leaves of batch %d: %w", seq, err)
	}
	if len(b)%32 != 0 {
		return nil, fmt.Errorf("leaves of batch %d: length %d not a multiple of 32", seq, len(b))
	}
	out := make([]merkle.Hash, len(b)/32)
	for i := range out {
		copy(out[i][:], b[i*32:])
	}
	return out, nil
}

func loadIDs(txn store.Txn, seq uint64) ([]string, error) {
	ids, err := store.GetJSON[[]string](txn, seqKey(keyIDs, seq))
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: record ids of batch %d", ErrNotFound, seq)
	}
	if err != nil {
		return nil, err
	}
	return ids, nil
}
