package anchor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/merkle"
	"github.com/provenant/provenant/shared/record"
)

// ProofFormat names the proof layout and the anchoring convention: RFC 9162
// SHA-256 tree, calldata = "PVN1" ‖ root (docs/anchoring.md).
const ProofFormat = "provenant-anchor-v1"

// Proof is everything a third party needs to check that a record was
// anchored, without asking us: recompute the root from LeafHash, LeafIndex,
// TreeSize and AuditPath (RFC 9162 §2.1.3.2), then read TxHash from any node
// of Network (ChainID) and check that its calldata is "PVN1" ‖ MerkleRoot and
// that it is in block BlockNumber. Fields that do not exist yet (a record
// still waiting for its batch or transaction) are omitted.
type Proof struct {
	Format      string `json:"format"`
	RecordID    string `json:"record_id"`
	Status      Status `json:"status"`
	LeafHash    Hash   `json:"leaf_hash"`
	BatchID     string `json:"batch_id,omitempty"`
	LeafIndex   uint64 `json:"leaf_index"`
	TreeSize    uint64 `json:"tree_size,omitempty"`
	AuditPath   []Hash `json:"audit_path,omitempty"`
	MerkleRoot  Hash   `json:"merkle_root,omitzero"`
	Network     string `json:"network,omitempty"`
	ChainID     uint64 `json:"chain_id,omitempty"`
	TxHash      Hash   `json:"tx_hash,omitzero"`
	BlockNumber uint64 `json:"block_number,omitempty"`
	BlockHash   Hash   `json:"block_hash,omitzero"`
	// AnchoredAt is when we saw the required confirmations (not a chain fact).
	AnchoredAt time.Time `json:"anchored_at,omitzero"`
}

// Prover reads proofs from the anchoring state in a store, keeping the Merkle
// trees of a few recent batches in memory. It needs no running Batcher, so
// readers (verification, record details) can be built before the batcher.
// It is safe for concurrent use.
type Prover struct {
	st     store.Store
	treeMu sync.Mutex
	trees  map[uint64]*merkle.Tree
}

// NewProver returns a Prover reading st.
func NewProver(st store.Store) *Prover {
	return &Prover{st: st, trees: map[uint64]*merkle.Tree{}}
}

// Proof returns the current proof of recordID: always the leaf hash and
// status, the inclusion proof once the record's batch is closed, and the
// transaction once the batch is included. ErrNotFound if the record was
// never enqueued.
func (pv *Prover) Proof(ctx context.Context, recordID string) (Proof, error) {
	p := Proof{Format: ProofFormat, RecordID: recordID, Status: StatusPending}
	var br batchRec
	var leaves []merkle.Hash
	var rr recordRec
	err := pv.st.View(ctx, func(txn store.Txn) error {
		var err error
		rr, err = store.GetJSON[recordRec](txn, recordKey(recordID))
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("%w: record %s", ErrNotFound, recordID)
		}
		if err != nil {
			return err
		}
		if rr.Batch == 0 {
			return nil
		}
		if br, err = loadBatch(txn, rr.Batch); err != nil {
			return err
		}
		if pv.cachedTree(rr.Batch) == nil {
			leaves, err = loadLeaves(txn, rr.Batch)
		}
		return err
	})
	if err != nil {
		return Proof{}, fmt.Errorf("anchor: proof of %s: %w", recordID, err)
	}
	p.LeafHash = rr.Leaf
	if rr.Batch == 0 {
		return p, nil
	}
	tree := pv.cachedTree(rr.Batch)
	if tree == nil {
		tree = merkle.Build(leaves)
		pv.cacheTree(rr.Batch, tree)
	}
	path, err := tree.InclusionProof(rr.Index)
	if err != nil {
		return Proof{}, fmt.Errorf("anchor: proof of %s: %w", recordID, err)
	}
	p.Status = RecordStatus(br.State)
	p.BatchID = BatchID(br.Seq)
	p.LeafIndex = rr.Index
	p.TreeSize = br.LeafCount
	p.AuditPath = make([]Hash, len(path))
	for i, h := range path {
		p.AuditPath[i] = Hash(h)
	}
	p.MerkleRoot = br.Root
	p.Network, p.ChainID = br.Network, br.ChainID
	if br.Inclusion != nil {
		p.TxHash = br.Inclusion.TxHash
		p.BlockNumber = br.Inclusion.BlockNumber
		p.BlockHash = br.Inclusion.BlockHash
	}
	p.AnchoredAt = br.AnchoredAt
	return p, nil
}

// Reconfirm records that the transaction of proof's batch is now in the
// block moved says (a reorganisation re-mined it, root unchanged): the
// batch's inclusion becomes moved, if it is still the one proof carries
// (a concurrent re-confirmation wins; nothing else changes a closed
// batch's inclusion after it is anchored). Every record of the batch
// then proves its anchor in the new block.
func (pv *Prover) Reconfirm(ctx context.Context, proof Proof, moved Inclusion) error {
	seq, err := ParseBatchID(proof.BatchID)
	if err != nil {
		return err
	}
	if moved.TxHash != proof.TxHash {
		return fmt.Errorf("anchor: re-confirm batch %s: tx %s is not the batch's %s", proof.BatchID, moved.TxHash, proof.TxHash)
	}
	return pv.st.Update(ctx, func(txn store.Txn) error {
		br, err := loadBatch(txn, seq)
		if err != nil {
			return err
		}
		in := br.Inclusion
		if in == nil || in.TxHash != proof.TxHash || in.BlockNumber != proof.BlockNumber || in.BlockHash != proof.BlockHash {
			return nil
		}
		br.Inclusion = &inclusionRec{TxHash: moved.TxHash, BlockNumber: moved.BlockNumber, BlockHash: moved.BlockHash}
		return store.PutJSON(txn, seqKey(keyBatch, seq), br)
	})
}

// Reopen puts proof's batch, anchored (or included) in the transaction
// and block proof names, back to submitted, because a chain
// reorganisation took that transaction out of the canonical chain: the
// anchoring batcher then finds it again if it is re-mined, or, once its
// nonce went to another transaction, anchors the same root in a new
// transaction (docs/anchoring.md, "Reorganisations"). It does nothing
// when the batch no longer has that inclusion (another origin reopened or
// re-confirmed it first). Every record of the batch is pending until the
// batch is anchored again.
func (pv *Prover) Reopen(ctx context.Context, proof Proof) (bool, error) {
	seq, err := ParseBatchID(proof.BatchID)
	if err != nil {
		return false, err
	}
	done := false
	err = pv.st.Update(ctx, func(txn store.Txn) error {
		done = false
		br, err := loadBatch(txn, seq)
		if err != nil {
			return err
		}
		in := br.Inclusion
		if in == nil || in.TxHash != proof.TxHash || in.BlockNumber != proof.BlockNumber || in.BlockHash != proof.BlockHash ||
			(br.State != StateAnchored && br.State != StateIncluded) {
			return nil
		}
		// The attempt that was mined is rebroadcast first: move it last.
		for i, a := range br.Attempts {
			if a.Hash == in.TxHash && i != len(br.Attempts)-1 {
				br.Attempts = append(append(br.Attempts[:i:i], br.Attempts[i+1:]...), a)
				break
			}
		}
		if br.State == StateAnchored {
			br.Reanchored, br.ReopenedTx = true, in.TxHash
		}
		br.State, br.Inclusion, br.AnchoredAt = StateSubmitted, nil, time.Time{}
		if err := txn.Set(seqKey(keyOpen, seq), nil); err != nil {
			return err
		}
		done = true
		return store.PutJSON(txn, seqKey(keyBatch, seq), br)
	})
	return done, err
}

// RecordAnchor converts an anchored proof into the certificate's
// record.Anchor (shared/record), which the public certificate carries and
// record.Certificate.Verify checks offline. It returns nil unless the proof
// has a transaction (status submitted with inclusion, or anchored).
func (p Proof) RecordAnchor() *record.Anchor {
	if p.BatchID == "" || p.TxHash == (Hash{}) {
		return nil
	}
	a := &record.Anchor{
		BatchID: p.BatchID, LeafIndex: p.LeafIndex, TreeSize: p.TreeSize,
		AuditPath: make([]merkle.Hash, len(p.AuditPath)), Root: merkle.Hash(p.MerkleRoot),
		TxHash: p.TxHash.String(), BlockNumber: p.BlockNumber, Network: p.Network, ChainID: p.ChainID,
	}
	if p.BlockHash != (Hash{}) {
		a.BlockHash = p.BlockHash.String()
	}
	for i, h := range p.AuditPath {
		a.AuditPath[i] = merkle.Hash(h)
	}
	return a
}

const treeCacheSize = 8

func (pv *Prover) cachedTree(seq uint64) *merkle.Tree {
	pv.treeMu.Lock()
	defer pv.treeMu.Unlock()
	return pv.trees[seq]
}

func (pv *Prover) cacheTree(seq uint64, t *merkle.Tree) {
	pv.treeMu.Lock()
	defer pv.treeMu.Unlock()
	if len(pv.trees) >= treeCacheSize {
		for k := range pv.trees { // evict an arbitrary entry
			delete(pv.trees, k)
			break
		}
	}
	pv.trees[seq] = t
}

// Outcome classifies a verification.
type Outcome string

// Verification outcomes.
const (
	// Verified: the Merkle proof holds and the chain holds the root with
	// enough confirmations.
	Verified Outcome = "verified"
	// Pending: nothing contradicts the record, but it is not anchored (yet):
	// no batch, no transaction, or not enough confirmations.
	Pending Outcome = "pending"
	// Invalid: the proof or the chain contradicts the record.
	Invalid Outcome = "invalid"
	// Unavailable: the check could not be run (chain unreachable, or the
	// proof is for another network than the one we can read).
	Unavailable Outcome = "unavailable"
)

// Result is the outcome of Verify with a human-readable detail for the
// verify endpoint's blockchain check.
type Result struct {
	Outcome Outcome
	Detail  string
	// Moved, for an Invalid result wrapping ErrMoved, is where the proof's
	// transaction is now: a canonical block other than the proof's, with
	// the proof's root in its calldata.
	Moved *Inclusion
}

// ErrMoved wraps (with ErrInvalidProof) the Invalid result of a proof
// whose transaction, with the right root, is now in another canonical
// block than the proof says: a reorganisation re-mined it. The anchor
// holds again once it is re-confirmed there (Checker does).
var ErrMoved = errors.New("anchor: transaction re-mined in another block")

// ErrTxGone wraps (with ErrInvalidProof) the Invalid result of a proof
// whose transaction is in no canonical block: never mined there, or taken
// out by a chain reorganisation (back in a node's pool, or dropped for
// good when another transaction took its nonce).
var ErrTxGone = errors.New("anchor: transaction not in the canonical chain")

// Passed reports whether the blockchain check passes.
func (r Result) Passed() bool { return r.Outcome == Verified }

// ErrInvalidProof wraps every reason Verify returns Invalid.
var ErrInvalidProof = errors.New("anchor: proof does not verify")

// Verify checks p for a record whose leaf hash is leaf: it recomputes the
// Merkle root from the audit path, then reads p.TxHash from chain and checks
// that its calldata carries that root, that it is in block p.BlockNumber of
// the canonical chain, and that the block has at least minConfirmations
// (≥ 1). It never trusts p.Status.
//
// The error is nil for Verified and Pending; for Invalid it wraps
// ErrInvalidProof; for Unavailable it is the underlying failure.
func Verify(ctx context.Context, chain ChainReader, leaf Hash, p Proof, minConfirmations uint64) (Result, error) {
	invalid := func(format string, args ...any) (Result, error) {
		d := fmt.Sprintf(format, args...)
		return Result{Outcome: Invalid, Detail: d}, fmt.Errorf("%w: %s", ErrInvalidProof, d)
	}
	if minConfirmations == 0 {
		minConfirmations = 1
	}
	if p.LeafHash != leaf {
		return invalid("proof is for leaf %s, record has leaf %s", p.LeafHash, leaf)
	}
	if p.BatchID == "" {
		return Result{Outcome: Pending, Detail: "pending: queued for the next batch"}, nil
	}
	path := make([]merkle.Hash, len(p.AuditPath))
	for i, h := range p.AuditPath {
		path[i] = merkle.Hash(h)
	}
	if err := merkle.VerifyInclusion(p.LeafIndex, p.TreeSize, merkle.Hash(leaf), path, merkle.Hash(p.MerkleRoot)); err != nil {
		return invalid("Merkle proof does not lead to root %s of batch %s", p.MerkleRoot, p.BatchID)
	}
	if p.TxHash == (Hash{}) {
		return Result{Outcome: Pending, Detail: fmt.Sprintf("pending: queued for batch %s (Merkle proof verified, root %s not yet in a block)", p.BatchID, p.MerkleRoot)}, nil
	}
	if p.Network != chain.Network() || p.ChainID != chain.ChainID() {
		err := fmt.Errorf("anchor: proof is for network %s (chain %d), this verifier reads %s (chain %d)", p.Network, p.ChainID, chain.Network(), chain.ChainID())
		return Result{Outcome: Unavailable, Detail: err.Error()}, err
	}
	tx, err := chain.Transaction(ctx, p.TxHash)
	if errors.Is(err, ErrNotIncluded) {
		d := fmt.Sprintf("tx %s is not in the canonical chain of %s", p.TxHash, p.Network)
		return Result{Outcome: Invalid, Detail: d}, fmt.Errorf("%w: %w: %s", ErrInvalidProof, ErrTxGone, d)
	}
	if err != nil {
		return Result{Outcome: Unavailable, Detail: fmt.Sprintf("could not read tx %s: chain unavailable", p.TxHash)}, err
	}
	got, err := RootFromCalldata(tx.Data)
	if err != nil {
		return invalid("tx %s is not a Provenant anchor", p.TxHash)
	}
	if got != p.MerkleRoot {
		return invalid("tx %s anchors root %s, not %s", p.TxHash, got, p.MerkleRoot)
	}
	if tx.BlockNumber != p.BlockNumber || (p.BlockHash != (Hash{}) && tx.BlockHash != p.BlockHash) {
		d := fmt.Sprintf("tx %s is in block %d, proof says block %d", p.TxHash, tx.BlockNumber, p.BlockNumber)
		if tx.BlockNumber == p.BlockNumber {
			d = fmt.Sprintf("tx %s is in block %d %s, proof says block %s", p.TxHash, tx.BlockNumber, tx.BlockHash, p.BlockHash)
		}
		return Result{Outcome: Invalid, Detail: d, Moved: &Inclusion{TxHash: p.TxHash, BlockNumber: tx.BlockNumber, BlockHash: tx.BlockHash}},
			fmt.Errorf("%w: %w: %s", ErrInvalidProof, ErrMoved, d)
	}
	head, err := chain.Head(ctx)
	if err != nil {
		return Result{Outcome: Unavailable, Detail: "could not read the chain head"}, err
	}
	conf := uint64(0)
	if head >= tx.BlockNumber {
		conf = head - tx.BlockNumber + 1
	}
	if conf < minConfirmations {
		return Result{Outcome: Pending, Detail: fmt.Sprintf("pending: Merkle proof verified in tx %s block %d, %d of %d confirmations", p.TxHash, tx.BlockNumber, conf, minConfirmations)}, nil
	}
	return Result{Outcome: Verified, Detail: fmt.Sprintf("Merkle proof verified in tx %s block %d on %s (%d confirmations)", p.TxHash, tx.BlockNumber, p.Network, conf)}, nil
}

// Stats are the operator's anchoring counters, over all accounts. (Each
// owner's dashboard counters are the content service's, kept by its
// Listener.)
type Stats struct {
	// Pending counts records enqueued and not yet anchored.
	Pending uint64
	// Anchored counts anchored records.
	Anchored uint64
	// AnchoredBatches counts anchored batches.
	AnchoredBatches uint64
}

// Stats returns the global counters. Pending costs a scan of the queue and
// the open batches.
func (b *Batcher) Stats(ctx context.Context) (Stats, error) {
	var s Stats
	err := b.st.View(ctx, func(txn store.Txn) error {
		st, err := store.GetJSON[statsRec](txn, keyStats)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		s.Anchored, s.AnchoredBatches = st.AnchoredRecords, st.AnchoredBatches
		if err := txn.Scan(keyQueue, nil, func(_, _ []byte) error { s.Pending++; return nil }); err != nil {
			return err
		}
		return txn.Scan(keyOpen, nil, func(k, _ []byte) error {
			br, err := loadBatch(txn, beUint64(k[len(keyOpen):]))
			if err != nil {
				return err
			}
			s.Pending += br.LeafCount
			return nil
		})
	})
	if err != nil {
		return Stats{}, fmt.Errorf("anchor: stats: %w", err)
	}
	return s, nil
}

// Batch is a batch as stored, for operators and the batch.anchored payload.
type Batch struct {
	BatchID     string     `json:"batch_id"`
	State       BatchState `json:"state"`
	MerkleRoot  Hash       `json:"merkle_root"`
	LeafCount   uint64     `json:"leaf_count"`
	TxHash      Hash       `json:"tx_hash,omitzero"`
	BlockNumber uint64     `json:"block_number,omitempty"`
	BlockHash   Hash       `json:"block_hash,omitzero"`
	Network     string     `json:"network"`
	RecordIDs   []string   `json:"record_ids"`
	// TxHashes lists every transaction signed for the batch (fee bumps and
	// resubmissions included); at most one of them can be mined.
	TxHashes []Hash `json:"tx_hashes,omitempty"`
	// Nonce of the current transaction.
	Nonce     uint64    `json:"nonce,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	// LastError is the last chain error seen for the batch by this process.
	LastError string `json:"last_error,omitempty"`
}

// Batch returns batch id. ErrNotFound if it does not exist.
func (b *Batcher) Batch(ctx context.Context, id string) (Batch, error) {
	seq, err := ParseBatchID(id)
	if err != nil {
		return Batch{}, err
	}
	var out Batch
	err = b.st.View(ctx, func(txn store.Txn) error {
		br, err := loadBatch(txn, seq)
		if err != nil {
			return err
		}
		ids, err := loadIDs(txn, seq)
		if err != nil {
			return err
		}
		out = Batch{
			BatchID: id, State: br.State, MerkleRoot: br.Root, LeafCount: br.LeafCount,
			Network: br.Network, RecordIDs: ids, CreatedAt: br.CreatedAt,
		}
		for _, a := range append(append([]attempt{}, br.Abandoned...), br.Attempts...) {
			out.TxHashes = append(out.TxHashes, a.Hash)
		}
		if n := len(br.Attempts); n > 0 {
			out.Nonce = br.Attempts[n-1].Nonce
		}
		if br.Inclusion != nil {
			out.TxHash, out.BlockNumber, out.BlockHash = br.Inclusion.TxHash, br.Inclusion.BlockNumber, br.Inclusion.BlockHash
		}
		return nil
	})
	if err != nil {
		return Batch{}, fmt.Errorf("anchor batch %s: %w", id, err)
	}
	if b.stepMu.TryLock() { // never wait for a Step in progress
		if m := b.mem[seq]; m != nil {
			out.LastError = m.lastErr
		}
		b.stepMu.Unlock()
	}
	return out, nil
}
