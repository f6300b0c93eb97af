package anchor_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/events"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/store/storetest"
	"github.com/provenant/provenant/shared/clock"
	"github.com/provenant/provenant/shared/merkle"
	"github.com/provenant/provenant/shared/wire"
)

// recPublisher records events and writes one key per event through the
// transaction, as the webhook queue will.
type recPublisher struct {
	mu     sync.Mutex
	events []recEvent // may include calls of retried transactions
}

type recEvent struct {
	Type          string
	Accounts      []string
	BatchAnchored *wire.BatchAnchored
}

func (p *recPublisher) Publish(txn store.Txn, ev events.Event) error {
	var ba wire.BatchAnchored
	if err := json.Unmarshal(ev.Data, &ba); err != nil {
		return err
	}
	p.mu.Lock()
	p.events = append(p.events, recEvent{Type: ev.Type, Accounts: ev.Accounts, BatchAnchored: &ba})
	p.mu.Unlock()
	return txn.Set([]byte("test-whq/"+ba.BatchID), []byte(ba.TxHash))
}

type harness struct {
	t   testing.TB
	st  *store.Badger
	ch  *fakeChain
	clk *clock.Fake
	pub *recPublisher
	b   *anchor.Batcher
	cfg anchor.Config
}

func newHarness(t testing.TB, mod func(*anchor.Config)) *harness {
	t.Helper()
	st := storetest.Badger(t)
	h := &harness{t: t, st: st, ch: newFakeChain(), clk: clock.NewFake(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)), pub: &recPublisher{}}
	h.cfg = anchor.Config{
		Store: st, Chain: h.ch, Anchored: anchor.Announcer{Events: h.pub}, Clock: h.clk,
		BatchSize: 1000, BatchInterval: time.Minute, Confirmations: 1,
		PollInterval: time.Second, BumpAfter: time.Minute, MaxBackoff: 10 * time.Second,
	}
	if mod != nil {
		mod(&h.cfg)
	}
	h.restart()
	return h
}

// restart replaces the Batcher with a fresh one on the same store and chain
// (what a process restart looks like to the batcher).
func (h *harness) restart() {
	b, err := anchor.New(h.cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	h.b = b
}

func recordID(i int) string { return fmt.Sprintf("rec-%06d", i) }

func (h *harness) enqueue(from, n int) {
	h.t.Helper()
	// Like the sign path: one record per transaction.
	for i := from; i < from+n; i++ {
		err := h.st.Update(context.Background(), func(txn store.Txn) error {
			return h.b.Enqueue(txn, anchor.Entry{RecordID: recordID(i), LeafHash: leafOf(i), AccountID: fmt.Sprint("acct", i%2)})
		})
		if err != nil {
			h.t.Fatal(err)
		}
	}
}

func (h *harness) step() error { return h.b.Step(context.Background()) }

func (h *harness) proof(i int) anchor.Proof {
	h.t.Helper()
	p, err := h.b.Proof(context.Background(), recordID(i))
	if err != nil {
		h.t.Fatalf("Proof(%s): %v", recordID(i), err)
	}
	return p
}

func (h *harness) stats() anchor.Stats {
	h.t.Helper()
	s, err := h.b.Stats(context.Background())
	if err != nil {
		h.t.Fatal(err)
	}
	return s
}

// checkAllAnchored verifies every record's proof against the chain and that
// each root was mined exactly once.
func (h *harness) checkAllAnchored(n int) {
	h.t.Helper()
	roots := map[anchor.Hash]bool{}
	for i := range n {
		p := h.proof(i)
		res, err := anchor.Verify(context.Background(), h.ch, leafOf(i), p, h.cfg.Confirmations)
		if err != nil || res.Outcome != anchor.Verified || p.Status != anchor.StatusAnchored {
			h.t.Fatalf("record %d: status %s, Verify = %+v, %v", i, p.Status, res, err)
		}
		roots[p.MerkleRoot] = true
	}
	mined := h.ch.minedRoots()
	for r := range roots {
		if mined[r] != 1 {
			h.t.Fatalf("root %s mined %d times, want 1", r, mined[r])
		}
	}
	if s := h.stats(); s.Anchored != uint64(n) || s.Pending != 0 {
		h.t.Fatalf("stats = %+v, want %d anchored, 0 pending", s, n)
	}
}

func TestBatchesCloseBySizeThenByTime(t *testing.T) {
	h := newHarness(t, nil)
	h.enqueue(0, 2500)
	if s := h.stats(); s.Pending != 2500 || s.Anchored != 0 {
		t.Fatalf("stats before = %+v", s)
	}
	if err := h.step(); err != nil {
		t.Fatal(err)
	}
	// Two full batches closed and anchored; 500 wait for the interval.
	if s := h.stats(); s.Anchored != 2000 || s.Pending != 500 || s.AnchoredBatches != 2 {
		t.Fatalf("stats after size closes = %+v", s)
	}
	if p := h.proof(2400); p.Status != anchor.StatusPending || p.BatchID != "" {
		t.Fatalf("record 2400 = %+v, want pending without batch", p)
	}
	res, err := anchor.Verify(context.Background(), h.ch, leafOf(2400), h.proof(2400), 1)
	if err != nil || res.Outcome != anchor.Pending {
		t.Fatalf("Verify(pending record) = %+v, %v", res, err)
	}
	h.clk.Advance(59 * time.Second)
	if err := h.step(); err != nil {
		t.Fatal(err)
	}
	if s := h.stats(); s.Pending != 500 {
		t.Fatalf("batch closed before the interval: %+v", s)
	}
	h.clk.Advance(time.Second)
	if err := h.step(); err != nil {
		t.Fatal(err)
	}
	h.checkAllAnchored(2500)
	// batch.anchored: once per batch, with the batch's record ids.
	if len(h.pub.events) != 3 {
		t.Fatalf("events = %d, want 3", len(h.pub.events))
	}
	sizes := map[string]uint64{}
	for _, ev := range h.pub.events {
		a := ev.BatchAnchored
		if ev.Type != events.BatchAnchored || uint64(len(a.RecordIDs)) != a.LeafCount || a.Network != "fakenet" || a.TxHash == "" || len(a.MerkleRoot) != 64 {
			t.Fatalf("event = %+v", a)
		}
		// Records alternate between two accounts: both own part of every batch.
		if fmt.Sprint(ev.Accounts) != "[acct0 acct1]" {
			t.Fatalf("batch %s notifies %v, want [acct0 acct1]", a.BatchID, ev.Accounts)
		}
		sizes[a.BatchID] = a.LeafCount
	}
	if sizes["1"] != 1000 || sizes["2"] != 1000 || sizes["3"] != 500 {
		t.Fatalf("batch sizes = %v", sizes)
	}
	b1, err := h.b.Batch(context.Background(), "1")
	if err != nil || b1.State != anchor.StateAnchored || len(b1.RecordIDs) != 1000 || b1.RecordIDs[0] != recordID(0) || len(b1.TxHashes) != 1 {
		t.Fatalf("Batch(1) = %+v, %v", b1, err)
	}
	if _, err := h.b.Batch(context.Background(), "9"); !errors.Is(err, anchor.ErrNotFound) {
		t.Fatalf("Batch(9) err = %v, want ErrNotFound", err)
	}
	// Nothing more happens.
	if err := h.step(); err != nil || len(h.pub.events) != 3 || h.ch.broadcasts != 3 {
		t.Fatalf("idle step: err %v, events %d, broadcasts %d", err, len(h.pub.events), h.ch.broadcasts)
	}
}

func TestEnqueue(t *testing.T) {
	h := newHarness(t, nil)
	h.enqueue(0, 1)
	tests := []struct {
		name  string
		entry anchor.Entry
		want  error
	}{
		{"same leaf again is a no-op", anchor.Entry{RecordID: recordID(0), LeafHash: leafOf(0)}, nil},
		{"different leaf", anchor.Entry{RecordID: recordID(0), LeafHash: leafOf(1)}, anchor.ErrConflictingLeaf},
	}
	for _, tc := range tests {
		err := h.st.Update(context.Background(), func(txn store.Txn) error { return h.b.Enqueue(txn, tc.entry) })
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: Enqueue = %v, want %v", tc.name, err, tc.want)
		}
	}
	if s := h.stats(); s.Pending != 1 {
		t.Fatalf("pending = %d, want 1", s.Pending)
	}
	// An aborted sign transaction leaves nothing queued.
	errAbort := errors.New("abort")
	err := h.st.Update(context.Background(), func(txn store.Txn) error {
		if err := h.b.Enqueue(txn, anchor.Entry{RecordID: "aborted", LeafHash: leafOf(7)}); err != nil {
			return err
		}
		return errAbort
	})
	if !errors.Is(err, errAbort) {
		t.Fatal(err)
	}
	if _, err := h.b.Proof(context.Background(), "aborted"); !errors.Is(err, anchor.ErrNotFound) {
		t.Fatalf("Proof(aborted) err = %v, want ErrNotFound", err)
	}
	if _, err := h.b.Proof(context.Background(), "never"); !errors.Is(err, anchor.ErrNotFound) {
		t.Fatalf("Proof(never) err = %v, want ErrNotFound", err)
	}
}

func TestChainFaults(t *testing.T) {
	tests := []struct {
		name  string
		cfg   func(*anchor.Config)
		fault func(h *harness)
		// drive runs steps (advancing the clock) until the batch should be anchored.
		drive func(h *harness)
		// wantTxs is how many transactions must have been signed for the batch.
		wantTxs int
	}{
		{
			name:  "rpc errors keep the batch queued, then backoff retries",
			fault: func(h *harness) { h.ch.set(func(f *fakeChain) { f.fail["fees"] = 2; f.fail["nonce"] = 1 }) },
			drive: func(h *harness) {
				for i := range 3 {
					if err := h.step(); !errors.Is(err, errRPC) {
						h.t.Fatalf("step %d err = %v, want errRPC", i, err)
					}
					b, _ := h.b.Batch(context.Background(), "1")
					if b.State != anchor.StateQueued || b.LastError == "" {
						h.t.Fatalf("step %d: batch = %+v, want queued with an error", i, b)
					}
					if p := h.proof(0); p.Status != anchor.StatusPending || p.BatchID != "1" {
						h.t.Fatalf("record status %s", p.Status)
					}
					h.clk.Advance(10 * time.Second)
				}
				mustStep(h)
			},
			wantTxs: 1,
		},
		{
			name:  "broadcast error after persist: same tx rebroadcast",
			fault: func(h *harness) { h.ch.set(func(f *fakeChain) { f.fail["broadcast"] = 1 }) },
			drive: func(h *harness) {
				if err := h.step(); !errors.Is(err, errRPC) {
					h.t.Fatalf("err = %v", err)
				}
				if p := h.proof(0); p.Status != anchor.StatusSubmitted {
					h.t.Fatalf("status %s, want submitted", p.Status)
				}
				h.clk.Advance(2 * time.Second)
				mustStep(h)
			},
			wantTxs: 1,
		},
		{
			name: "not mined: fees bumped ≥10% and resubmitted, one tx mined",
			fault: func(h *harness) {
				h.ch.set(func(f *fakeChain) { f.autoMine = false })
			},
			drive: func(h *harness) {
				mustStep(h)
				h.ch.set(func(f *fakeChain) { f.baseFee = big.NewInt(2500) }) // first tx (fee cap 2010) is now stuck
				h.ch.mine()
				mustStep(h)
				if p := h.proof(0); p.Status != anchor.StatusSubmitted {
					h.t.Fatalf("status %s", p.Status)
				}
				h.clk.Advance(time.Minute) // BumpAfter
				mustStep(h)                // bump: 2010 → 5010 (suggested) in the pool
				h.ch.mine()
				mustStep(h)
			},
			wantTxs: 2,
		},
		{
			name: "ack lost, tx mined, receipt late: nonce too low resolves through the receipt",
			fault: func(h *harness) {
				h.ch.set(func(f *fakeChain) { f.acceptButFail = true; f.hideReceipts = 1 })
			},
			drive: func(h *harness) {
				if err := h.step(); !errors.Is(err, errRPC) {
					h.t.Fatalf("err = %v", err)
				}
				h.clk.Advance(2 * time.Second)
				mustStep(h) // receipt hidden → rebroadcast → nonce too low
				if b, _ := h.b.Batch(context.Background(), "1"); b.State != anchor.StateSubmitted || b.LastError == "" {
					h.t.Fatalf("batch = %+v, want submitted after nonce too low", b)
				}
				mustStep(h) // receipt found
			},
			wantTxs: 1,
		},
		{
			name:  "reverted tx: batch fails and is resubmitted with a new nonce",
			fault: func(h *harness) { h.ch.set(func(f *fakeChain) { f.revertNext = true }) },
			drive: func(h *harness) {
				mustStep(h)
				b, _ := h.b.Batch(context.Background(), "1")
				if b.State != anchor.StateFailed {
					h.t.Fatalf("state %s, want failed", b.State)
				}
				if p := h.proof(0); p.Status != anchor.StatusFailed {
					h.t.Fatalf("status %s, want failed", p.Status)
				}
				mustStep(h)
			},
			wantTxs: 2,
		},
		{
			name: "fee ceiling below base fee leaves the batch queued",
			cfg:  func(c *anchor.Config) { c.MaxFeeCap = big.NewInt(1500) },
			fault: func(h *harness) {
				h.ch.set(func(f *fakeChain) { f.baseFee = big.NewInt(2000) })
			},
			drive: func(h *harness) {
				if err := h.step(); !errors.Is(err, anchor.ErrFeeCeiling) {
					h.t.Fatalf("err = %v, want ErrFeeCeiling", err)
				}
				if b, _ := h.b.Batch(context.Background(), "1"); b.State != anchor.StateQueued || len(b.TxHashes) != 0 {
					h.t.Fatalf("batch = %+v", b)
				}
				h.ch.set(func(f *fakeChain) { f.baseFee = big.NewInt(500) })
				h.clk.Advance(10 * time.Second)
				mustStep(h)
			},
			wantTxs: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, func(c *anchor.Config) {
				c.BatchSize = 10
				if tc.cfg != nil {
					tc.cfg(c)
				}
			})
			h.enqueue(0, 10)
			tc.fault(h)
			tc.drive(h)
			h.checkAllAnchored(10)
			b, err := h.b.Batch(context.Background(), "1")
			if err != nil {
				t.Fatal(err)
			}
			if len(b.TxHashes) != tc.wantTxs {
				t.Fatalf("signed txs = %d, want %d", len(b.TxHashes), tc.wantTxs)
			}
			if len(h.pub.events) != 1 {
				t.Fatalf("events = %d, want 1", len(h.pub.events))
			}
		})
	}
}

func mustStep(h *harness) {
	h.t.Helper()
	if err := h.step(); err != nil {
		h.t.Fatalf("Step: %v", err)
	}
}

func TestReorgBelowConfirmationDepth(t *testing.T) {
	h := newHarness(t, func(c *anchor.Config) { c.BatchSize = 5; c.Confirmations = 3 })
	h.enqueue(0, 5)
	h.ch.set(func(f *fakeChain) { f.autoMine = false })
	mustStep(h)
	h.ch.mine() // tx in block 1
	mustStep(h)
	b, _ := h.b.Batch(context.Background(), "1")
	if b.State != anchor.StateIncluded || b.BlockNumber != 1 {
		t.Fatalf("batch = %+v, want included in block 1", b)
	}
	h.ch.mine() // 2 confirmations
	mustStep(h)
	// Reorg: block 1 and 2 replaced by 3 empty blocks; the tx is back in the pool.
	h.ch.reorg(2)
	mustStep(h) // head 3 ≥ confirmations, receipt gone → submitted, rebroadcast
	b, _ = h.b.Batch(context.Background(), "1")
	if b.State != anchor.StateSubmitted {
		t.Fatalf("after reorg state = %s, want submitted", b.State)
	}
	if len(h.pub.events) != 0 {
		t.Fatal("batch.anchored emitted before finality")
	}
	h.ch.mine() // re-mined in block 4
	mustStep(h)
	h.ch.mine()
	h.ch.mine()
	mustStep(h)
	h.checkAllAnchored(5)
	b, _ = h.b.Batch(context.Background(), "1")
	if b.BlockNumber != 4 || len(b.TxHashes) != 1 {
		t.Fatalf("batch = %+v, want the same tx in block 4", b)
	}
	if len(h.pub.events) != 1 {
		t.Fatalf("events = %d, want 1", len(h.pub.events))
	}
}

func TestRestartAfterPersistBeforeBroadcast(t *testing.T) {
	h := newHarness(t, func(c *anchor.Config) { c.BatchSize = 10 })
	h.enqueue(0, 30)
	// Process 1 "dies" right after persisting each tx: nothing reaches the
	// node (the batcher broadcasts only what it persisted, so a chain that
	// takes no broadcast is a process dying between the two).
	h.ch.set(func(f *fakeChain) { f.swallow = true })
	h.restart()
	if err := h.step(); !errors.Is(err, errRPC) && err != nil {
		t.Fatalf("err = %v", err)
	}
	if got := len(h.ch.minedRoots()); got != 0 {
		t.Fatalf("%d roots mined before restart", got)
	}
	h.ch.set(func(f *fakeChain) { f.swallow = false })
	h.restart()
	h.clk.Advance(15 * time.Second)
	mustStep(h)
	h.checkAllAnchored(30)
	for _, id := range []string{"1", "2", "3"} {
		b, _ := h.b.Batch(context.Background(), id)
		if len(b.TxHashes) != 1 {
			t.Fatalf("batch %s signed %d txs, want 1 (rebroadcast, not re-signed)", id, len(b.TxHashes))
		}
	}
}

func TestVerifyRejectsTampering(t *testing.T) {
	h := newHarness(t, func(c *anchor.Config) { c.BatchSize = 7 })
	h.enqueue(0, 14)
	mustStep(h)
	good := h.proof(3)
	other := h.proof(10) // in batch 2: a real tx with another root
	if res, err := anchor.Verify(context.Background(), h.ch, leafOf(3), good, 1); err != nil || !res.Passed() {
		t.Fatalf("good proof: %+v, %v", res, err)
	}
	// The certificate's record.Anchor verifies offline.
	if err := good.RecordAnchor().Verify(merkle.Hash(leafOf(3))); err != nil {
		t.Fatalf("RecordAnchor().Verify: %v", err)
	}
	if err := good.RecordAnchor().Verify(merkle.Hash(leafOf(4))); err == nil {
		t.Fatal("RecordAnchor().Verify accepted another leaf")
	}
	if h.proof(0).RecordAnchor() == nil || (anchor.Proof{BatchID: "1"}).RecordAnchor() != nil {
		t.Fatal("RecordAnchor: want non-nil only with a transaction")
	}
	// The proof survives a JSON round trip (certificate → third party).
	js, _ := json.Marshal(good)
	var decoded anchor.Proof
	if err := json.Unmarshal(js, &decoded); err != nil {
		t.Fatal(err)
	}
	if res, err := anchor.Verify(context.Background(), h.ch, leafOf(3), decoded, 1); err != nil || !res.Passed() {
		t.Fatalf("decoded proof: %+v, %v\n%s", res, err, js)
	}
	mut := func(f func(p *anchor.Proof)) anchor.Proof {
		p := good
		p.AuditPath = append([]anchor.Hash{}, good.AuditPath...)
		f(&p)
		return p
	}
	if other.BlockHash == good.BlockHash || other.BlockNumber == good.BlockNumber {
		t.Fatal("batches 1 and 2 share a block: the tx swap below would not isolate the root check")
	}
	// Each case names the check that must refuse it (Detail), so that a
	// case cannot pass because an earlier check happens to fail first.
	tests := []struct {
		name   string
		leaf   anchor.Hash
		p      anchor.Proof
		detail string
	}{
		{"other leaf", leafOf(4), good, "proof is for leaf"},
		{"audit path bit flipped", leafOf(3), mut(func(p *anchor.Proof) { p.AuditPath[0][31] ^= 1 }), "Merkle proof does not lead"},
		{"audit path truncated", leafOf(3), mut(func(p *anchor.Proof) { p.AuditPath = p.AuditPath[1:] }), "Merkle proof does not lead"},
		{"wrong leaf index", leafOf(3), mut(func(p *anchor.Proof) { p.LeafIndex = 2 }), "Merkle proof does not lead"},
		{"wrong root", leafOf(3), mut(func(p *anchor.Proof) { p.MerkleRoot[0] ^= 1 }), "Merkle proof does not lead"},
		// Another batch's real transaction, with its block number and
		// hash: everything about the tx and block is consistent, only the
		// root in its calldata differs.
		{"wrong tx (another batch's, its block)", leafOf(3), mut(func(p *anchor.Proof) {
			p.TxHash, p.BlockNumber, p.BlockHash = other.TxHash, other.BlockNumber, other.BlockHash
		}), "anchors root"},
		{"wrong tx (another batch's, block hash omitted)", leafOf(3), mut(func(p *anchor.Proof) {
			p.TxHash, p.BlockNumber, p.BlockHash = other.TxHash, other.BlockNumber, anchor.Hash{}
		}), "anchors root"},
		{"unknown tx", leafOf(3), mut(func(p *anchor.Proof) { p.TxHash[5] ^= 1 }), "not in the canonical chain"},
		{"wrong block number", leafOf(3), mut(func(p *anchor.Proof) { p.BlockNumber++ }), "proof says block"},
		{"wrong block hash", leafOf(3), mut(func(p *anchor.Proof) { p.BlockHash[0] ^= 1 }), "proof says block"},
	}
	for _, tc := range tests {
		res, err := anchor.Verify(context.Background(), h.ch, tc.leaf, tc.p, 1)
		if !errors.Is(err, anchor.ErrInvalidProof) || res.Outcome != anchor.Invalid || !strings.Contains(res.Detail, tc.detail) {
			t.Errorf("%s: Verify = %+v, %v; want Invalid by %q", tc.name, res, err, tc.detail)
		}
	}
	// Not enough confirmations is pending, not invalid; another network is unavailable.
	if res, err := anchor.Verify(context.Background(), h.ch, leafOf(3), good, 10); err != nil || res.Outcome != anchor.Pending {
		t.Errorf("10 confirmations: %+v, %v", res, err)
	}
	if res, err := anchor.Verify(context.Background(), h.ch, leafOf(3), mut(func(p *anchor.Proof) { p.Network = "mainnet"; p.ChainID = 1 }), 1); err == nil || res.Outcome != anchor.Unavailable {
		t.Errorf("other network: %+v, %v", res, err)
	}
	h.ch.set(func(f *fakeChain) { f.fail["tx"] = 1 })
	if res, err := anchor.Verify(context.Background(), h.ch, leafOf(3), good, 1); !errors.Is(err, errRPC) || res.Outcome != anchor.Unavailable {
		t.Errorf("rpc down: %+v, %v", res, err)
	}
}

func TestNewValidatesConfig(t *testing.T) {
	st := storetest.Badger(t)
	tests := []struct {
		name string
		cfg  anchor.Config
	}{
		{"no store", anchor.Config{Chain: newFakeChain()}},
		{"no chain", anchor.Config{Store: st}},
		{"batch too big", anchor.Config{Store: st, Chain: newFakeChain(), BatchSize: anchor.MaxBatchSize + 1}},
		{"negative interval", anchor.Config{Store: st, Chain: newFakeChain(), BatchInterval: -time.Second}},
	}
	for _, tc := range tests {
		if _, err := anchor.New(tc.cfg); err == nil {
			t.Errorf("%s: New succeeded", tc.name)
		}
	}
}

func TestRequireFinalized(t *testing.T) {
	h := newHarness(t, func(c *anchor.Config) { c.BatchSize = 5; c.RequireFinalized = true })
	h.enqueue(0, 5)
	h.ch.set(func(f *fakeChain) { f.finalized = -1 })
	if err := h.step(); !errors.Is(err, anchor.ErrNoFinality) {
		t.Fatalf("step err = %v, want ErrNoFinality", err)
	}
	h.ch.set(func(f *fakeChain) { f.finalized = 0 })
	h.clk.Advance(10 * time.Second)
	mustStep(h)
	if b, _ := h.b.Batch(context.Background(), "1"); b.State != anchor.StateIncluded {
		t.Fatalf("state = %s, want included until finalized", b.State)
	}
	h.ch.set(func(f *fakeChain) { f.finalized = 1 })
	mustStep(h)
	h.checkAllAnchored(5)
}

// A batch of MaxBatchSize records closes in one Badger transaction (with the
// origin store's 32 MiB memtables) and anchors.
func TestMaxBatchSizeFitsOneStoreTransaction(t *testing.T) {
	h := newHarness(t, func(c *anchor.Config) { c.BatchSize = anchor.MaxBatchSize })
	for from := 0; from < anchor.MaxBatchSize; from += 512 {
		err := h.st.Update(context.Background(), func(txn store.Txn) error {
			for i := from; i < from+512; i++ {
				// Long ids and account ids: the worst case for the transaction size.
				e := anchor.Entry{RecordID: fmt.Sprintf("%036d", i), LeafHash: leafOf(i), AccountID: fmt.Sprintf("%036d", i%7)}
				if err := h.b.Enqueue(txn, e); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	mustStep(h)
	if s := h.stats(); s.Anchored != anchor.MaxBatchSize || s.AnchoredBatches != 1 {
		t.Fatalf("stats = %+v", s)
	}
}

// orderListener records, through the transaction, that it saw a batch, and
// refuses while fail is set.
type orderListener struct {
	name  string
	log   *[]string
	fail  error
	saw   []anchor.AnchoredBatch
	calls int
}

func (l *orderListener) BatchAnchored(txn store.Txn, b anchor.AnchoredBatch) error {
	l.calls++
	*l.log = append(*l.log, l.name)
	if l.fail != nil {
		return l.fail
	}
	l.saw = append(l.saw, b)
	return txn.Set([]byte("test-listener/"+l.name+"/"+b.BatchID), nil)
}

// TestListenersRunInOrderInTheAnchoringTransaction: the listeners are called
// in order with the typed batch; an error of any of them rolls back the
// whole transition (the batch stays included, nothing is announced), and
// the next Step anchors the batch and calls every listener again.
func TestListenersRunInOrderInTheAnchoringTransaction(t *testing.T) {
	var order []string
	first := &orderListener{name: "records", log: &order}
	second := &orderListener{name: "announce", log: &order, fail: errors.New("refused")}
	h := newHarness(t, func(c *anchor.Config) {
		c.BatchSize = 3
		c.Anchored = anchor.Listeners{first, second}
	})
	h.enqueue(0, 3)
	if err := h.step(); err == nil {
		t.Fatal("Step succeeded although a listener refused")
	}
	b, err := h.b.Batch(context.Background(), "1")
	if err != nil || b.State != anchor.StateIncluded {
		t.Fatalf("batch after a refused listener = %+v, %v; want still included", b, err)
	}
	if got := strings.Join(order, ","); got != "records,announce" {
		t.Fatalf("listener calls = %s, want records,announce", got)
	}
	if s := h.stats(); s.Anchored != 0 {
		t.Fatalf("stats after a refused listener = %+v, want nothing anchored", s)
	}
	err = h.st.View(context.Background(), func(txn store.Txn) error {
		_, err := txn.Get([]byte("test-listener/records/1"))
		return err
	})
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the first listener's write survived the rollback: err = %v", err)
	}

	second.fail = nil
	mustStep(h)
	h.checkAllAnchored(3)
	// The first listener saw the batch twice: its first write was rolled back.
	if first.calls != 2 || second.calls != 2 || len(first.saw) != 2 || len(second.saw) != 1 {
		t.Fatalf("calls = %d/%d, batches accepted %d/%d; want 2/2 and 2/1", first.calls, second.calls, len(first.saw), len(second.saw))
	}
	got, p := second.saw[0], h.proof(0)
	if got.BatchID != "1" || got.LeafCount != 3 || got.MerkleRoot != p.MerkleRoot || got.TxHash != p.TxHash ||
		got.BlockNumber != p.BlockNumber || got.Network != "fakenet" || strings.Join(got.RecordIDs, ",") != recordID(0)+","+recordID(1)+","+recordID(2) ||
		got.Accounts["acct0"] != 2 || got.Accounts["acct1"] != 1 || !got.AnchoredAt.Equal(h.clk.Now()) {
		t.Fatalf("AnchoredBatch = %+v, want the batch as proved (%+v)", got, p)
	}
	mustStep(h)
	if first.calls != 2 {
		t.Fatalf("an anchored batch was reported again (%d calls)", first.calls)
	}
}
