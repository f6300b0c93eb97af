package ethchain_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/simulated"

	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/anchor/ethchain"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/store/storetest"
)

type countingListener struct {
	mu sync.Mutex
	n  map[string]int
}

func (p *countingListener) BatchAnchored(txn store.Txn, b anchor.AnchoredBatch) error {
	// Every call here commits (the store has no concurrent writers in this
	// test, so Update never retries): the count is the number of emissions.
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n[b.BatchID]++
	return txn.Set([]byte("test-events/"+b.BatchID), []byte(b.TxHash.String()))
}

// simRig is a batcher on a go-ethereum simulated chain with five records
// queued (one batch), and the parts the tests reach into.
type simRig struct {
	sim *simulated.Backend
	key *ecdsa.PrivateKey // the chain's sender, funded with 100 ETH
	ch  *ethchain.Chain
	st  *store.Badger
	b   *anchor.Batcher
	pub *countingListener
}

// simAnchoring builds a simRig; cfg gives the batcher's timing and
// confirmations, the store, chain, listener and batch size are filled in.
func simAnchoring(t *testing.T, cfg anchor.Config) simRig {
	t.Helper()
	ctx := context.Background()
	key, _ := crypto.GenerateKey()
	sim := simulated.NewBackend(types.GenesisAlloc{
		crypto.PubkeyToAddress(key.PublicKey): {Balance: new(big.Int).Mul(big.NewInt(100), big.NewInt(1e18))},
	})
	t.Cleanup(func() { sim.Close() })
	ch, err := ethchain.New(ctx, ethchain.ClientConfig{Client: sim.Client(), Key: key, Network: "simulated"})
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.Badger(t)
	pub := &countingListener{n: map[string]int{}}
	cfg.Store, cfg.Chain, cfg.Anchored, cfg.BatchSize = st, ch, pub, 5
	b, err := anchor.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	err = st.Update(ctx, func(txn store.Txn) error {
		for i := range 5 {
			if err := b.Enqueue(txn, anchor.Entry{RecordID: recordName(i), LeafHash: recordLeaf(i)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return simRig{sim: sim, key: key, ch: ch, st: st, b: b, pub: pub}
}

// step runs one batcher step and fails the test on an error.
func (r simRig) step(t *testing.T) {
	t.Helper()
	if err := r.b.Step(context.Background()); err != nil {
		t.Fatalf("Step: %v", err)
	}
}

// TestReorgBelowConfirmations: a go-ethereum simulated chain reorgs the
// anchoring block away before it has the configured 3 confirmations. The
// batch must leave "included", be tracked to the same tx in the new block,
// and be anchored (and batch.anchored emitted) exactly once.
func TestReorgBelowConfirmations(t *testing.T) {
	ctx := context.Background()
	r := simAnchoring(t, anchor.Config{Confirmations: 3, BumpAfter: time.Hour})
	sim, ch, b, pub := r.sim, r.ch, r.b, r.pub
	step := func() { r.step(t) }
	batch := func() anchor.Batch {
		t.Helper()
		bt, err := b.Batch(ctx, "1")
		if err != nil {
			t.Fatal(err)
		}
		return bt
	}
	genesis, err := sim.Client().HeaderByNumber(ctx, big.NewInt(0))
	if err != nil {
		t.Fatal(err)
	}
	step() // batch closed, tx persisted and broadcast (not mined: no Commit yet)
	if got := batch().State; got != anchor.StateSubmitted {
		t.Fatalf("state = %s, want submitted", got)
	}
	sim.Commit() // block 1 holds the tx
	sim.Commit() // block 2: 2 confirmations
	step()
	first := batch()
	if first.State != anchor.StateIncluded || first.BlockNumber != 1 {
		t.Fatalf("batch = %+v, want included in block 1", first)
	}
	// Reorg from genesis: a side chain replaces blocks 1 and 2.
	if err := sim.Fork(genesis.Hash()); err != nil {
		t.Fatal(err)
	}
	sim.Commit() // 1' (the tx returns from the pool, or is rebroadcast)
	sim.Commit() // 2'
	step()       // notices the new block hash; 2 confirmations again
	second := batch()
	if second.State == anchor.StateAnchored || second.BlockHash == first.BlockHash {
		t.Fatalf("after reorg batch = %+v, want not anchored and a new block hash", second)
	}
	t.Logf("after reorg: state %s, block %d", second.State, second.BlockNumber)
	if second.State == anchor.StateSubmitted { // dropped, rebroadcast: mine it
		sim.Commit()
		sim.Commit()
		step()
	}
	sim.Commit()
	step()
	final := batch()
	if final.State != anchor.StateAnchored || len(final.TxHashes) != 1 || final.TxHash != first.TxHash || final.BlockHash == first.BlockHash {
		t.Fatalf("final batch = %+v, want anchored, same single tx %s, new block", final, first.TxHash)
	}
	if pub.n["1"] != 1 {
		t.Fatalf("batch.anchored published %d times, want 1", pub.n["1"])
	}
	for i := range 5 {
		p, err := b.Proof(ctx, recordName(i))
		if err != nil {
			t.Fatal(err)
		}
		if res, err := anchor.Verify(ctx, ch, recordLeaf(i), p, 3); err != nil || !res.Passed() {
			t.Fatalf("record %d: %+v, %v", i, res, err)
		}
	}
	anchors, err := ch.Anchors(ctx, 1, final.BlockNumber+2)
	if err != nil || len(anchors) != 1 {
		t.Fatalf("anchors on canonical chain = %d, %v; want 1", len(anchors), err)
	}
}

// TestReorgDeeperThanConfirmationsReconfirms: the anchoring block is
// reorganised away after the batch was anchored with its 1 confirmation,
// and the transaction (same root) is re-mined in the side chain's block.
// The stored proof then names a block that is no longer canonical, and
// verification says invalid; the checker re-confirms the anchor in its new
// block once that block has its confirmations, so every record of the
// batch verifies again, in the new block, from the stored proof.
func TestReorgDeeperThanConfirmationsReconfirms(t *testing.T) {
	ctx := context.Background()
	r := simAnchoring(t, anchor.Config{Confirmations: 1, BumpAfter: time.Hour})
	sim, ch, st, b := r.sim, r.ch, r.st, r.b
	genesis, err := sim.Client().HeaderByNumber(ctx, big.NewInt(0))
	if err != nil {
		t.Fatal(err)
	}
	r.step(t)    // closed and broadcast
	sim.Commit() // block 1 holds the tx
	for range 3 {
		r.step(t)
	}
	first, err := b.Batch(ctx, "1")
	if err != nil || first.State != anchor.StateAnchored {
		t.Fatalf("batch %+v, %v: want anchored", first, err)
	}
	checker := anchor.Checker{Proofs: anchor.NewProver(st), Chain: ch, MinConfirmations: 1}

	// The side chain from genesis: an empty block, then the tx re-mined.
	if err := sim.Fork(genesis.Hash()); err != nil {
		t.Fatal(err)
	}
	sim.Commit() // 1' (the tx comes back from the pool)
	sim.Commit() // 2'
	p, err := b.Proof(ctx, recordName(0))
	if err != nil {
		t.Fatal(err)
	}
	if res, err := anchor.Verify(ctx, ch, recordLeaf(0), p, 1); res.Outcome != anchor.Invalid || !errors.Is(err, anchor.ErrMoved) {
		t.Fatalf("stored proof after the reorg: %+v, %v; want invalid, moved", res, err)
	}
	for i := range 5 {
		s, err := checker.AnchorState(ctx, recordName(i), recordLeaf(i))
		if err != nil || s.Outcome != anchor.Verified {
			t.Fatalf("record %d after the reorg: %+v, %v; want verified in the new block", i, s, err)
		}
		if s.Proof == nil || s.Proof.BlockHash == first.BlockHash {
			t.Fatalf("record %d proof %+v still names the old block %s", i, s.Proof, first.BlockHash)
		}
	}
	final, err := b.Batch(ctx, "1")
	if err != nil || final.BlockHash == first.BlockHash || final.TxHash != first.TxHash || final.State != anchor.StateAnchored {
		t.Fatalf("batch after re-confirmation %+v, %v; want the same tx anchored in the new block", final, err)
	}
	t.Logf("anchor moved from block %d %s to block %d %s", first.BlockNumber, first.BlockHash, final.BlockNumber, final.BlockHash)
}
