// Package anchor batches content records into RFC 9162 Merkle trees and
// anchors each tree's root on an Ethereum chain, keeping everything needed
// to prove a record's inclusion to a third party.
//
// The package depends on a Chain interface only; go-ethereum lives in
// origin/internal/anchor/ethchain. State is kept in the origin Store under "anchor/";
// docs/anchoring.md describes the keys, the state machine and the calldata.
package anchor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"sync"
	"time"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/clock"
	"github.com/provenant/provenant/shared/merkle"
)

// Defaults for zero Config fields.
const (
	DefaultBatchSize     = 1000
	DefaultBatchInterval = 60 * time.Second
	DefaultPollInterval  = time.Second
	DefaultBumpAfter     = 3 * time.Minute
	DefaultMaxInFlight   = 16
	DefaultMaxBackoff    = time.Minute
	// MaxBatchSize bounds BatchSize: closing a batch rewrites one key per
	// record in a single store transaction, which must stay well under
	// Badger's transaction size limit with the origin's 32 MiB memtables.
	MaxBatchSize = 4096
)

// DefaultMaxFeeCap is the default fee ceiling: 200 gwei per gas.
var DefaultMaxFeeCap = big.NewInt(200_000_000_000)

// Errors callers branch on.
var (
	// ErrNotFound: unknown record or batch.
	ErrNotFound = errors.New("anchor: not found")
	// ErrConflictingLeaf: Enqueue of a record id already enqueued with another leaf hash.
	ErrConflictingLeaf = errors.New("anchor: record already enqueued with a different leaf hash")
)

// Config configures a Batcher. Store and Chain are required.
type Config struct {
	Store store.Store
	Chain Chain
	// Anchored is told about every batch that becomes anchored, inside the
	// transaction that marks it anchored (see Listener); nil means nobody.
	Anchored Listener
	// Clock; clock.System if nil.
	Clock clock.Clock
	// Logger; discards if nil.
	Logger *slog.Logger
	// BatchSize closes a batch when this many records wait (default 1000, max MaxBatchSize).
	BatchSize int
	// BatchInterval closes a batch when its oldest record has waited this long (default 60 s).
	BatchInterval time.Duration
	// Confirmations a block needs before its batch is anchored: 1 = the
	// block itself (default 1).
	Confirmations uint64
	// RequireFinalized additionally waits until the block is at or below
	// the chain's finalized block (post-Merge finality) before anchoring.
	RequireFinalized bool
	// PollInterval paces Run (default 1 s).
	PollInterval time.Duration
	// BumpAfter resubmits an unmined transaction with fees raised by 12.5%
	// after this long (default 3 min).
	BumpAfter time.Duration
	// MaxFeeCap is the fee ceiling in wei per gas (default 200 gwei): fees
	// are never raised above it, and a batch is not submitted while the base
	// fee exceeds it.
	MaxFeeCap *big.Int
	// MaxInFlight bounds batches submitted but not yet included (default 16).
	MaxInFlight int
	// MaxBackoff caps the retry delay after chain errors (default 1 min).
	MaxBackoff time.Duration
	// Lease, when several origins share the store, makes this batcher work
	// only while it holds the anchoring lease and fences every one of its
	// state changes with the lease's epoch (see Lease); Run keeps the lease
	// renewed. Nil means this is the only batcher on the store.
	Lease *Lease
	// OnBatchClosed, if set, is called after a batch closed with this many
	// records has committed (the batch-size metric). It must not block.
	OnBatchClosed func(records int)
	// RecheckAnchored is how many of the latest anchored batches Step
	// looks at again for a reorganisation deeper than the confirmations
	// (default DefaultRecheckAnchored; negative: none), at most every
	// RecheckEvery (default DefaultRecheckEvery).
	RecheckAnchored int
	RecheckEvery    time.Duration
}

// Batcher closes batches, anchors them and tracks them to finality. All
// its methods are safe for concurrent use; Step and Run serialize.
type Batcher struct {
	cfg    Config
	st     store.Store
	ch     Chain
	on     Listener
	clk    clock.Clock
	log    *slog.Logger
	queue  Queue
	proofs *Prover

	stepMu sync.Mutex
	// In-memory per-batch progress, lost on restart by design (a restart
	// rebroadcasts everything in flight); dropped too when the lease is
	// acquired at a new epoch, as another leader worked meanwhile.
	mem      map[uint64]*batchMem
	memEpoch uint64
	// rechecked is when recheckAnchored last ran.
	rechecked time.Time
}

type batchMem struct {
	broadcast  bool      // latest attempt accepted by the node since start
	retryAt    time.Time // no chain calls for this batch before
	backoff    time.Duration
	nonceLowAt time.Time // first "nonce too low" without a receipt
	lastErr    string
}

// New validates cfg and returns a Batcher. It does not start anything.
func New(cfg Config) (*Batcher, error) {
	if cfg.Store == nil || cfg.Chain == nil {
		return nil, errors.New("anchor: Config.Store and Config.Chain are required")
	}
	if cfg.Anchored == nil {
		cfg.Anchored = Listeners(nil)
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.System{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	cfg.BatchSize = cmp.Or(cfg.BatchSize, DefaultBatchSize)
	if cfg.BatchSize < 1 || cfg.BatchSize > MaxBatchSize {
		return nil, fmt.Errorf("anchor: BatchSize %d outside [1, %d]", cfg.BatchSize, MaxBatchSize)
	}
	cfg.BatchInterval = cmp.Or(cfg.BatchInterval, DefaultBatchInterval)
	cfg.Confirmations = cmp.Or(cfg.Confirmations, 1)
	cfg.PollInterval = cmp.Or(cfg.PollInterval, DefaultPollInterval)
	cfg.BumpAfter = cmp.Or(cfg.BumpAfter, DefaultBumpAfter)
	if cfg.MaxFeeCap == nil {
		cfg.MaxFeeCap = DefaultMaxFeeCap
	}
	cfg.MaxInFlight = cmp.Or(cfg.MaxInFlight, DefaultMaxInFlight)
	cfg.MaxBackoff = cmp.Or(cfg.MaxBackoff, DefaultMaxBackoff)
	cfg.RecheckAnchored = cmp.Or(cfg.RecheckAnchored, DefaultRecheckAnchored)
	cfg.RecheckEvery = cmp.Or(cfg.RecheckEvery, DefaultRecheckEvery)
	if cfg.BatchInterval < 0 || cfg.PollInterval < 0 || cfg.BumpAfter < 0 || cfg.MaxInFlight < 0 || cfg.MaxBackoff < 0 {
		return nil, errors.New("anchor: negative durations or limits in Config")
	}
	return &Batcher{
		cfg:    cfg,
		st:     cfg.Store,
		ch:     cfg.Chain,
		on:     cfg.Anchored,
		clk:    cfg.Clock,
		log:    cfg.Logger,
		queue:  NewQueue(cfg.Clock),
		proofs: NewProver(cfg.Store),
		mem:    map[uint64]*batchMem{},
	}, nil
}

// Enqueue is Queue.Enqueue with the batcher's clock (see Queue).
func (b *Batcher) Enqueue(txn store.Txn, e Entry) error { return b.queue.Enqueue(txn, e) }

// Proof is Prover.Proof on the batcher's store (see Prover).
func (b *Batcher) Proof(ctx context.Context, recordID string) (Proof, error) {
	return b.proofs.Proof(ctx, recordID)
}

// Run calls Step every PollInterval until ctx is done, and
// returns ctx.Err(). Step errors are logged and retried, never fatal.
//
// With a Lease, Run also keeps it acquired and renewed in the background
// and releases it when ctx ends.
func (b *Batcher) Run(ctx context.Context) error {
	if l := b.cfg.Lease; l != nil {
		var wg sync.WaitGroup
		defer wg.Wait()
		wg.Go(func() { l.Run(ctx) })
	}
	t := time.NewTicker(b.cfg.PollInterval)
	defer t.Stop()
	for {
		if err := b.Step(ctx); err != nil && ctx.Err() == nil {
			b.log.Warn("anchor step", "err", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// Step does one round of work: it closes every batch that is due, checks
// submitted and included batches (receipts, fee bumps, confirmations,
// reorgs) and submits queued ones. Errors of one batch do not stop the
// others; the joined errors are returned and the work is retried next Step.
//
// With a Lease that this origin does not hold, Step does nothing.
func (b *Batcher) Step(ctx context.Context) error {
	b.stepMu.Lock()
	defer b.stepMu.Unlock()
	if !b.leading() {
		return nil
	}
	var errs []error
	if err := b.recheckAnchored(ctx); err != nil {
		errs = append(errs, err)
	}
	for {
		built, err := b.closeBatch(ctx, false)
		if err != nil {
			errs = append(errs, err)
			break
		}
		if !built {
			break
		}
	}
	open, err := b.openBatches(ctx)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	inFlight := 0
	startStates := make([]BatchState, len(open))
	for i := range open {
		startStates[i] = open[i].State
	}
	for i := range open {
		br := &open[i]
		var err error
		switch br.State {
		case StateSubmitted:
			err = b.checkSubmitted(ctx, br)
		case StateIncluded:
			err = b.checkIncluded(ctx, br)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("anchor batch %s: %w", BatchID(br.Seq), err))
		}
		if br.State == StateSubmitted {
			inFlight++
		}
	}
	for i := range open {
		br := &open[i]
		if startStates[i] != StateQueued && startStates[i] != StateFailed {
			continue
		}
		if inFlight >= b.cfg.MaxInFlight {
			break
		}
		err := b.submit(ctx, br)
		if err == nil && br.State == StateSubmitted {
			inFlight++
			// A chain that mines at once (the embedded one) has the receipt already.
			err = b.checkSubmitted(ctx, br)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("anchor batch %s: %w", BatchID(br.Seq), err))
		}
	}
	return errors.Join(errs...)
}

// Flush closes a batch of whatever is queued now (up to BatchSize), without
// waiting for BatchSize or BatchInterval. It reports whether it closed one.
// With a Lease that this origin does not hold it returns ErrNotLeader.
func (b *Batcher) Flush(ctx context.Context) (bool, error) {
	b.stepMu.Lock()
	defer b.stepMu.Unlock()
	if !b.leading() {
		return false, ErrNotLeader
	}
	return b.closeBatch(ctx, true)
}

var errNotDue = errors.New("not due")

// leading reports whether this batcher may work now: always without a
// Lease, else while the lease is held. Called with stepMu held.
func (b *Batcher) leading() bool {
	l := b.cfg.Lease
	if l == nil {
		return true
	}
	if !l.Held() {
		return false
	}
	if e := l.Epoch(); e != b.memEpoch {
		b.mem, b.memEpoch = map[uint64]*batchMem{}, e
	}
	return true
}

// fence aborts txn with ErrNotLeader unless this batcher still holds the
// lease at its epoch (no-op without a Lease).
func (b *Batcher) fence(txn store.Txn) error {
	if b.cfg.Lease == nil {
		return nil
	}
	return b.cfg.Lease.Check(txn)
}

// closeBatch builds one batch from the head of the queue if it is due (or
// force and non-empty), in one store transaction.
func (b *Batcher) closeBatch(ctx context.Context, force bool) (bool, error) {
	now := b.clk.Now()
	var seq uint64
	var size int
	err := b.st.Update(ctx, func(txn store.Txn) error {
		if err := b.fence(txn); err != nil {
			return err
		}
		type qe struct {
			key     []byte
			id      string
			leaf    merkle.Hash
			account string
			at      int64
		}
		var entries []qe
		err := txn.Scan(keyQueue, nil, func(k, v []byte) error {
			if len(entries) == b.cfg.BatchSize {
				return store.ErrStopIteration
			}
			if len(k) < len(keyQueue)+8 || len(v) < 32 {
				return fmt.Errorf("malformed queue entry %q", k)
			}
			e := qe{key: k, id: string(k[len(keyQueue)+8:]), account: string(v[32:])}
			copy(e.leaf[:], v)
			e.at = int64(beUint64(k[len(keyQueue):]))
			entries = append(entries, e)
			return nil
		})
		if err != nil {
			return err
		}
		if len(entries) == 0 {
			return errNotDue
		}
		oldest := time.Unix(0, entries[0].at)
		if !force && len(entries) < b.cfg.BatchSize && now.Sub(oldest) < b.cfg.BatchInterval {
			return errNotDue
		}
		last, err := store.GetUint64(txn, keySeq)
		if err != nil {
			return err
		}
		seq = last + 1
		leaves := make([]merkle.Hash, len(entries))
		ids := make([]string, len(entries))
		accounts := map[string]int{}
		blob := make([]byte, 0, 32*len(entries))
		for i, e := range entries {
			leaves[i], ids[i] = e.leaf, e.id
			blob = append(blob, e.leaf[:]...)
			if e.account != "" {
				accounts[e.account]++
			}
		}
		tree := merkle.Build(leaves)
		size = len(leaves)
		br := batchRec{
			Seq: seq, Root: Hash(tree.Root()), LeafCount: uint64(len(leaves)), State: StateQueued,
			CreatedAt: now, Network: b.ch.Network(), ChainID: b.ch.ChainID(), Accounts: accounts,
		}
		for i, e := range entries {
			if err := txn.Delete(e.key); err != nil {
				return err
			}
			rr := recordRec{Batch: seq, Index: uint64(i), Leaf: Hash(e.leaf), EnqueuedAt: e.at, Account: e.account}
			if err := store.PutJSON(txn, recordKey(e.id), rr); err != nil {
				return err
			}
		}
		if err := store.PutJSON(txn, seqKey(keyBatch, seq), br); err != nil {
			return err
		}
		if err := txn.Set(seqKey(keyLeaves, seq), blob); err != nil {
			return err
		}
		if err := store.PutJSON(txn, seqKey(keyIDs, seq), ids); err != nil {
			return err
		}
		if err := txn.Set(seqKey(keyOpen, seq), nil); err != nil {
			return err
		}
		return store.PutUint64(txn, keySeq, seq)
	})
	if errors.Is(err, errNotDue) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("anchor: close batch: %w", err)
	}
	b.log.Info("anchor batch closed", "batch", BatchID(seq))
	if b.cfg.OnBatchClosed != nil {
		b.cfg.OnBatchClosed(size)
	}
	return true, nil
}

func beUint64(b []byte) uint64 {
	var v uint64
	for _, c := range b[:8] {
		v = v<<8 | uint64(c)
	}
	return v
}

// openBatches loads every batch not yet anchored, in sequence order.
func (b *Batcher) openBatches(ctx context.Context) ([]batchRec, error) {
	out, err := store.Collect(ctx, b.st, keyOpen, func(txn store.Txn, k []byte) (batchRec, error) {
		return loadBatch(txn, beUint64(k[len(keyOpen):]))
	})
	if err != nil {
		return nil, fmt.Errorf("anchor: load open batches: %w", err)
	}
	return out, nil
}

func (b *Batcher) memOf(seq uint64) *batchMem {
	m := b.mem[seq]
	if m == nil {
		m = &batchMem{}
		b.mem[seq] = m
	}
	return m
}

// deferRetry records a chain error and backs off exponentially.
func (b *Batcher) deferRetry(seq uint64, err error) error {
	m := b.memOf(seq)
	if m.backoff == 0 {
		m.backoff = b.cfg.PollInterval
	} else {
		m.backoff *= 2
	}
	if m.backoff > b.cfg.MaxBackoff {
		m.backoff = b.cfg.MaxBackoff
	}
	m.retryAt = b.clk.Now().Add(m.backoff)
	m.lastErr = err.Error()
	return err
}

func (b *Batcher) clearRetry(seq uint64) {
	m := b.memOf(seq)
	m.backoff, m.retryAt, m.lastErr = 0, time.Time{}, ""
}

func (b *Batcher) waiting(seq uint64) bool {
	return b.clk.Now().Before(b.memOf(seq).retryAt)
}

// updateBatch re-reads the batch in a transaction, applies fn if the batch
// is still in state want, and writes it back. It returns the new header.
func (b *Batcher) updateBatch(ctx context.Context, seq uint64, want BatchState, fn func(txn store.Txn, br *batchRec) error) (batchRec, error) {
	var out batchRec
	err := b.st.Update(ctx, func(txn store.Txn) error {
		if err := b.fence(txn); err != nil {
			return err
		}
		br, err := loadBatch(txn, seq)
		if err != nil {
			return err
		}
		if br.State != want {
			return fmt.Errorf("state is %s, want %s", br.State, want)
		}
		if err := fn(txn, &br); err != nil {
			return err
		}
		out = br
		return store.PutJSON(txn, seqKey(keyBatch, seq), br)
	})
	return out, err
}

// submit signs a transaction for a queued or failed batch, persists it, then
// broadcasts it (persistence before broadcast).
func (b *Batcher) submit(ctx context.Context, br *batchRec) error {
	if b.waiting(br.Seq) {
		return nil
	}
	fees, err := b.ch.SuggestFees(ctx)
	if err != nil {
		return b.deferRetry(br.Seq, err)
	}
	fees, err = b.capFees(fees)
	if err != nil {
		return b.deferRetry(br.Seq, err)
	}
	pending, err := b.ch.PendingNonce(ctx)
	if err != nil {
		return b.deferRetry(br.Seq, err)
	}
	var local uint64
	if err := b.st.View(ctx, func(txn store.Txn) error {
		var err error
		local, err = store.GetUint64(txn, keyNonce)
		return err
	}); err != nil {
		return err
	}
	// Never reuse a nonce we persisted for another batch; never go below
	// what the chain has already consumed.
	nonce := max(local, pending)
	stx, err := b.ch.SignRoot(ctx, br.Root, nonce, fees)
	if err != nil {
		return b.deferRetry(br.Seq, err)
	}
	now := b.clk.Now()
	from := br.State
	nb, err := b.updateBatch(ctx, br.Seq, from, func(txn store.Txn, nb *batchRec) error {
		n, err := store.GetUint64(txn, keyNonce)
		if err != nil {
			return err
		}
		if n > nonce {
			return fmt.Errorf("nonce %d already used (next %d)", nonce, n)
		}
		if err := store.PutUint64(txn, keyNonce, nonce+1); err != nil {
			return err
		}
		nb.Abandoned = append(nb.Abandoned, nb.Attempts...)
		nb.Attempts = []attempt{newAttempt(stx, now)}
		nb.Inclusion = nil
		nb.State = StateSubmitted
		return nil
	})
	if err != nil {
		return fmt.Errorf("persist tx: %w", err)
	}
	*br = nb
	m := b.memOf(br.Seq)
	m.broadcast, m.nonceLowAt = false, time.Time{}
	b.log.Info("anchor tx persisted", "batch", BatchID(br.Seq), "tx", stx.Hash, "nonce", nonce)
	// Crash tests kill the process here, in their Chain's Broadcast: a
	// transaction reaches Broadcast only once it is persisted.
	return b.broadcast(ctx, br, stx.Raw, stx.Hash)
}

func newAttempt(stx SignedTx, now time.Time) attempt {
	return attempt{
		Nonce: stx.Nonce, Hash: stx.Hash, Raw: stx.Raw,
		TipCap: stx.TipCap.String(), FeeCap: stx.FeeCap.String(), SentAt: now,
	}
}

// broadcast sends raw. "Nonce too low" is not an error here: checkSubmitted
// resolves it from receipts.
func (b *Batcher) broadcast(ctx context.Context, br *batchRec, raw []byte, h Hash) error {
	err := b.ch.Broadcast(ctx, raw)
	m := b.memOf(br.Seq)
	switch {
	case err == nil:
		m.broadcast = true
		b.clearRetry(br.Seq)
		return nil
	case errors.Is(err, ErrNonceTooLow):
		if m.nonceLowAt.IsZero() {
			m.nonceLowAt = b.clk.Now()
		}
		m.lastErr = err.Error()
		return nil
	case errors.Is(err, ErrUnderpriced):
		// Only a fee bump helps; that happens after BumpAfter.
		m.broadcast = true
		m.lastErr = err.Error()
		return nil
	default:
		return b.deferRetry(br.Seq, fmt.Errorf("broadcast %s: %w", h, err))
	}
}

// capFees applies the fee ceiling. It refuses when even the base fee is
// above the ceiling.
func (b *Batcher) capFees(f Fees) (Fees, error) {
	if f.FeeCap.Cmp(b.cfg.MaxFeeCap) <= 0 {
		return f, nil
	}
	// SuggestFees returns FeeCap = 2×base + tip; the minimum to be minable now is base + tip.
	need := new(big.Int).Sub(f.FeeCap, f.TipCap)
	need.Rsh(need, 1)
	need.Add(need, f.TipCap)
	if need.Cmp(b.cfg.MaxFeeCap) > 0 {
		return Fees{}, fmt.Errorf("%w: need %s wei/gas, ceiling %s", ErrFeeCeiling, need, b.cfg.MaxFeeCap)
	}
	out := Fees{TipCap: f.TipCap, FeeCap: new(big.Int).Set(b.cfg.MaxFeeCap)}
	return out, nil
}

// ErrFeeCeiling: the chain's current fees exceed Config.MaxFeeCap; the batch
// stays queued (or its transaction is not bumped further).
var ErrFeeCeiling = errors.New("anchor: fees above the configured ceiling")

// bumpFees raises old by 12.5% (geth's replacement rule needs ≥ 10% on both
// caps), at least to the current suggestion, within the ceiling. ok is false
// if the ceiling leaves no room for a valid replacement.
func (b *Batcher) bumpFees(old, suggested Fees) (Fees, bool) {
	up := func(x *big.Int) *big.Int { // ceil(x × 1.125)
		y := new(big.Int).Mul(x, big.NewInt(9))
		y.Add(y, big.NewInt(7))
		return y.Div(y, big.NewInt(8))
	}
	tip := up(old.TipCap)
	if suggested.TipCap != nil && suggested.TipCap.Cmp(tip) > 0 {
		tip = suggested.TipCap
	}
	feeCap := up(old.FeeCap)
	if suggested.FeeCap != nil && suggested.FeeCap.Cmp(feeCap) > 0 {
		feeCap = suggested.FeeCap
	}
	if feeCap.Cmp(b.cfg.MaxFeeCap) > 0 {
		feeCap = new(big.Int).Set(b.cfg.MaxFeeCap)
	}
	if tip.Cmp(feeCap) > 0 {
		tip = new(big.Int).Set(feeCap)
	}
	min10 := func(x *big.Int) *big.Int { // ceil(x × 1.1)
		y := new(big.Int).Mul(x, big.NewInt(11))
		y.Add(y, big.NewInt(9))
		return y.Div(y, big.NewInt(10))
	}
	if feeCap.Cmp(min10(old.FeeCap)) < 0 || tip.Cmp(min10(old.TipCap)) < 0 {
		return Fees{}, false
	}
	return Fees{TipCap: tip, FeeCap: feeCap}, true
}

// checkSubmitted looks for a receipt of any attempt; otherwise rebroadcasts,
// bumps fees, or declares the batch failed if its nonce went to another tx.
func (b *Batcher) checkSubmitted(ctx context.Context, br *batchRec) error {
	if b.waiting(br.Seq) {
		return nil
	}
	if found, err := b.findReceipt(ctx, br); found || err != nil {
		return err
	}
	m := b.memOf(br.Seq)
	last := br.Attempts[len(br.Attempts)-1]
	now := b.clk.Now()
	var err error
	switch {
	case !m.nonceLowAt.IsZero() && now.Sub(m.nonceLowAt) >= b.cfg.BumpAfter:
		// The nonce is consumed but none of our attempts is canonical, and
		// receipts (indexing, a reorg in progress) had BumpAfter to show
		// up: resubmit with a fresh nonce.
		nb, err := b.updateBatch(ctx, br.Seq, StateSubmitted, func(_ store.Txn, nb *batchRec) error {
			nb.State = StateFailed
			return nil
		})
		if err != nil {
			return err
		}
		*br = nb
		b.log.Warn("anchor batch failed: nonce consumed by another transaction", "batch", BatchID(br.Seq), "nonce", last.Nonce)
		return nil
	case !m.nonceLowAt.IsZero():
		err = b.broadcast(ctx, br, last.Raw, last.Hash)
	case now.Sub(last.SentAt) >= b.cfg.BumpAfter:
		err = b.bump(ctx, br, last)
	case !m.broadcast:
		err = b.broadcast(ctx, br, last.Raw, last.Hash)
	default:
		return nil
	}
	if err != nil || !b.memOf(br.Seq).broadcast {
		return err
	}
	// Just (re)broadcast: a chain that mines at once has the receipt already.
	_, err = b.findReceipt(ctx, br)
	return err
}

// findReceipt looks for a canonical receipt of any attempt, newest first,
// and records the inclusion if there is one.
func (b *Batcher) findReceipt(ctx context.Context, br *batchRec) (bool, error) {
	for i := len(br.Attempts) - 1; i >= 0; i-- {
		inc, err := b.ch.Receipt(ctx, br.Attempts[i].Hash)
		if errors.Is(err, ErrNotIncluded) {
			continue
		}
		if err != nil {
			return false, b.deferRetry(br.Seq, err)
		}
		return true, b.recordInclusion(ctx, br, inc)
	}
	return false, nil
}

// bump replaces the latest attempt with a higher-fee one (same nonce),
// persisting it before broadcast. At the ceiling it rebroadcasts instead.
func (b *Batcher) bump(ctx context.Context, br *batchRec, last attempt) error {
	sugg, err := b.ch.SuggestFees(ctx)
	if err != nil {
		return b.deferRetry(br.Seq, err)
	}
	fees, ok := b.bumpFees(last.fees(), sugg)
	now := b.clk.Now()
	if !ok {
		b.memOf(br.Seq).lastErr = ErrFeeCeiling.Error()
		// Rebroadcast the last attempt and look again after BumpAfter.
		_, err := b.updateBatch(ctx, br.Seq, StateSubmitted, func(_ store.Txn, nb *batchRec) error {
			nb.Attempts[len(nb.Attempts)-1].SentAt = now
			return nil
		})
		if err != nil {
			return err
		}
		return b.broadcast(ctx, br, last.Raw, last.Hash)
	}
	stx, err := b.ch.SignRoot(ctx, br.Root, last.Nonce, fees)
	if err != nil {
		return b.deferRetry(br.Seq, err)
	}
	nb, err := b.updateBatch(ctx, br.Seq, StateSubmitted, func(_ store.Txn, nb *batchRec) error {
		nb.Attempts = append(nb.Attempts, newAttempt(stx, now))
		return nil
	})
	if err != nil {
		return fmt.Errorf("persist bumped tx: %w", err)
	}
	*br = nb
	b.log.Info("anchor tx fee bumped", "batch", BatchID(br.Seq), "tx", stx.Hash, "fee_cap", fees.FeeCap, "tip", fees.TipCap)
	b.memOf(br.Seq).broadcast = false
	return b.broadcast(ctx, br, stx.Raw, stx.Hash)
}

// recordInclusion makes the chain durable up to the receipt, then stores the
// inclusion (or the failure of a reverted tx), then checks confirmations.
func (b *Batcher) recordInclusion(ctx context.Context, br *batchRec, inc Inclusion) error {
	if err := b.ch.Sync(ctx); err != nil {
		return b.deferRetry(br.Seq, err)
	}
	nb, err := b.updateBatch(ctx, br.Seq, StateSubmitted, func(_ store.Txn, nb *batchRec) error {
		if !inc.Success {
			nb.State = StateFailed
			return nil
		}
		nb.State = StateIncluded
		nb.Inclusion = &inclusionRec{TxHash: inc.TxHash, BlockNumber: inc.BlockNumber, BlockHash: inc.BlockHash}
		return nil
	})
	if err != nil {
		return err
	}
	*br = nb
	b.clearRetry(br.Seq)
	b.memOf(br.Seq).nonceLowAt = time.Time{}
	if br.State == StateFailed {
		b.log.Warn("anchor tx reverted; resubmitting", "batch", BatchID(br.Seq), "tx", inc.TxHash)
		return nil
	}
	return b.checkIncluded(ctx, br)
}

// checkIncluded anchors the batch once its block has enough confirmations
// and is still canonical; on a reorg it goes back to submitted.
func (b *Batcher) checkIncluded(ctx context.Context, br *batchRec) error {
	if b.waiting(br.Seq) {
		return nil
	}
	head, err := b.ch.Head(ctx)
	if err != nil {
		return b.deferRetry(br.Seq, err)
	}
	inc := br.Inclusion
	// Re-check inclusion on every step, so a reorg is noticed (and the
	// batch goes back to submitted) as soon as the node knows about it.
	cur, err := b.ch.Receipt(ctx, inc.TxHash)
	switch {
	case errors.Is(err, ErrNotIncluded):
		return b.reorged(ctx, br, "receipt gone")
	case err != nil:
		return b.deferRetry(br.Seq, err)
	case cur.BlockHash != inc.BlockHash || cur.BlockNumber != inc.BlockNumber:
		// Re-mined elsewhere after a reorg: track the new block.
		if err := b.reorged(ctx, br, "block changed"); err != nil {
			return err
		}
		return b.checkSubmitted(ctx, br)
	}
	if head < cur.BlockNumber || head-cur.BlockNumber+1 < b.cfg.Confirmations {
		return nil
	}
	if b.cfg.RequireFinalized {
		fin, err := b.ch.Finalized(ctx)
		if err != nil {
			return b.deferRetry(br.Seq, err)
		}
		if cur.BlockNumber > fin {
			return nil
		}
	}
	if err := b.ch.Sync(ctx); err != nil {
		return b.deferRetry(br.Seq, err)
	}
	now := b.clk.Now()
	var ab AnchoredBatch
	nb, err := b.updateBatch(ctx, br.Seq, StateIncluded, func(txn store.Txn, nb *batchRec) error {
		nb.State = StateAnchored
		nb.AnchoredAt = now
		st, err := store.GetJSON[statsRec](txn, keyStats)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if !nb.Reanchored {
			st.AnchoredRecords += nb.LeafCount
			st.AnchoredBatches++
			if err := store.PutJSON(txn, keyStats, st); err != nil {
				return err
			}
		}
		if err := txn.Delete(seqKey(keyOpen, nb.Seq)); err != nil {
			return err
		}
		ids, err := loadIDs(txn, nb.Seq)
		if err != nil {
			return err
		}
		ab = AnchoredBatch{
			BatchID: BatchID(nb.Seq), MerkleRoot: nb.Root, LeafCount: nb.LeafCount,
			TxHash: inc.TxHash, BlockNumber: inc.BlockNumber, Network: nb.Network,
			RecordIDs: ids, Accounts: nb.Accounts, AnchoredAt: now, Reanchored: nb.Reanchored,
		}
		if nb.Reanchored && inc.TxHash == nb.ReopenedTx {
			// Back in the transaction it was announced with: nothing
			// changed for the listeners.
			return nil
		}
		return b.on.BatchAnchored(txn, ab)
	})
	if err != nil {
		return fmt.Errorf("mark anchored: %w", err)
	}
	*br = nb
	delete(b.mem, br.Seq)
	b.log.Info("anchor batch anchored", "batch", ab.BatchID, "tx", ab.TxHash, "block", ab.BlockNumber, "leaves", ab.LeafCount)
	return nil
}

// reorged puts an included batch back to submitted and rebroadcasts its
// transactions (the same signed bytes).
func (b *Batcher) reorged(ctx context.Context, br *batchRec, why string) error {
	b.log.Warn("anchor inclusion lost; back to submitted", "batch", BatchID(br.Seq), "tx", br.Inclusion.TxHash, "why", why)
	included := br.Inclusion.TxHash
	nb, err := b.updateBatch(ctx, br.Seq, StateIncluded, func(_ store.Txn, nb *batchRec) error {
		nb.State = StateSubmitted
		nb.Inclusion = nil
		// Rebroadcast the attempt that was mined first: move it last.
		for i, a := range nb.Attempts {
			if a.Hash == included && i != len(nb.Attempts)-1 {
				nb.Attempts = append(append(nb.Attempts[:i:i], nb.Attempts[i+1:]...), a)
				break
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	*br = nb
	b.memOf(br.Seq).broadcast = false
	last := br.Attempts[len(br.Attempts)-1]
	return b.broadcast(ctx, br, last.Raw, last.Hash)
}
