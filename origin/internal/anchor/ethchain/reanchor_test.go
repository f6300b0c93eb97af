package ethchain_test

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/provenant/provenant/origin/internal/anchor"
)

// TestReorgDroppedTxReanchors: a batch is anchored (1 confirmation), then
// a reorganisation from genesis replaces its block with one holding
// another transaction of the same sender and nonce (higher fees), so the
// anchoring transaction can never be mined again. Verification of the
// stored proof says the transaction is gone (ErrTxGone); the checker
// answers pending, not invalid, and reopens the batch; the batcher finds
// the nonce consumed, anchors the same root in a new transaction, and
// every record verifies again from its stored proof in the new
// transaction; the batch, the checker and batch.anchored (announced again,
// counted once) agree.
func TestReorgDroppedTxReanchors(t *testing.T) {
	t.Run("noticed by a verify", func(t *testing.T) { reorgDropped(t, true) })
	t.Run("noticed by the batcher", func(t *testing.T) { reorgDropped(t, false) })
}

// reorgDropped runs TestReorgDroppedTxReanchors; viaChecker says whether a
// record is checked first (the checker reopens the batch) or only the
// batcher runs (its re-check of anchored batches reopens it).
func reorgDropped(t *testing.T, viaChecker bool) {
	ctx := context.Background()
	// BumpAfter is the wait, after "nonce too low", before a fresh nonce.
	r := simAnchoring(t, anchor.Config{Confirmations: 1, BumpAfter: time.Nanosecond, RecheckEvery: time.Nanosecond})
	sim, key, ch, st, b, pub := r.sim, r.key, r.ch, r.st, r.b, r.pub
	sender := crypto.PubkeyToAddress(key.PublicKey)
	step := func() { r.step(t) }
	genesis, err := sim.Client().HeaderByNumber(ctx, big.NewInt(0))
	if err != nil {
		t.Fatal(err)
	}
	step() // closed and broadcast
	sim.Commit()
	step()
	step()
	first, err := b.Batch(ctx, "1")
	if err != nil || first.State != anchor.StateAnchored {
		t.Fatalf("batch %+v, %v: want anchored", first, err)
	}
	stats0, err := b.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	anchorTx, _, err := sim.Client().TransactionByHash(ctx, common.Hash(first.TxHash))
	if err != nil {
		t.Fatal(err)
	}
	checker := anchor.Checker{Proofs: anchor.NewProver(st), Chain: ch, MinConfirmations: 1}

	// The side chain: the anchoring transaction comes back to the pool
	// and is replaced there by a transfer with its nonce and more fees.
	if err := sim.Fork(genesis.Hash()); err != nil {
		t.Fatal(err)
	}
	twice := func(x *big.Int) *big.Int { return new(big.Int).Mul(x, big.NewInt(2)) }
	chainID, err := sim.Client().ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	other, err := types.SignNewTx(key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{
		ChainID: chainID, Nonce: anchorTx.Nonce(), GasTipCap: twice(anchorTx.GasTipCap()), GasFeeCap: twice(anchorTx.GasFeeCap()),
		Gas: 21000, To: &sender, Value: big.NewInt(1),
	})
	if err != nil {
		t.Fatal(err)
	}
	// The pool learns of the fork from a head event it handles on its own
	// goroutine; until then it still holds the old chain's nonce.
	for deadline := time.Now().Add(10 * time.Second); ; {
		err := sim.Client().SendTransaction(ctx, other)
		if err == nil {
			break
		}
		if !strings.Contains(err.Error(), "nonce too low") || time.Now().After(deadline) {
			t.Fatalf("replacement transaction: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	sim.Commit() // 1': the transfer takes the nonce
	sim.Commit() // 2'
	if r, err := sim.Client().TransactionReceipt(ctx, other.Hash()); err != nil || r.BlockNumber.Uint64() != 1 {
		t.Fatalf("the replacement is not in block 1': %v, %v", r, err)
	}

	p, err := b.Proof(ctx, recordName(0))
	if err != nil {
		t.Fatal(err)
	}
	if res, err := anchor.Verify(ctx, ch, recordLeaf(0), p, 1); res.Outcome != anchor.Invalid || !errors.Is(err, anchor.ErrTxGone) {
		t.Fatalf("stored proof after the reorg: %+v, %v; want invalid, tx gone", res, err)
	}
	if viaChecker {
		s, err := checker.AnchorState(ctx, recordName(0), recordLeaf(0))
		if err != nil || s.Outcome != anchor.Pending || !strings.Contains(s.Detail, "anchored again") {
			t.Fatalf("checker after the reorg: %+v, %v; want pending, being anchored again", s, err)
		}
		if bt, _ := b.Batch(ctx, "1"); bt.State != anchor.StateSubmitted {
			t.Fatalf("batch after the checker saw the reorg: %s, want submitted", bt.State)
		}
		for i := 1; i < 5; i++ { // the other records of the batch: pending too
			if s, err := checker.AnchorState(ctx, recordName(i), recordLeaf(i)); err != nil || s.Outcome != anchor.Pending {
				t.Fatalf("record %d while re-anchoring: %+v, %v", i, s, err)
			}
		}
	}

	// The batcher: rebroadcast (nonce too low), failed, a new nonce, mined.
	var final anchor.Batch
	for range 10 {
		step()
		sim.Commit()
		step()
		if final, err = b.Batch(ctx, "1"); err != nil {
			t.Fatal(err)
		}
		if final.State == anchor.StateAnchored {
			break
		}
	}
	if final.State != anchor.StateAnchored || final.TxHash == first.TxHash || final.MerkleRoot != first.MerkleRoot {
		t.Fatalf("batch after re-anchoring %+v; want anchored, same root, a new tx (not %s)", final, first.TxHash)
	}
	for i := range 5 {
		p, err := b.Proof(ctx, recordName(i))
		if err != nil {
			t.Fatal(err)
		}
		if res, err := anchor.Verify(ctx, ch, recordLeaf(i), p, 1); err != nil || !res.Passed() || p.TxHash != final.TxHash {
			t.Fatalf("record %d after re-anchoring: %+v, %v (tx %s)", i, res, err, p.TxHash)
		}
		s, err := checker.AnchorState(ctx, recordName(i), recordLeaf(i))
		if err != nil || s.Outcome != anchor.Verified || s.Proof.TxHash != final.TxHash {
			t.Fatalf("checker of record %d after re-anchoring: %+v, %v", i, s, err)
		}
	}
	if pub.n["1"] != 2 {
		t.Errorf("batch.anchored announced %d times, want 2 (first anchor, then the new one)", pub.n["1"])
	}
	stats, err := b.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Anchored != stats0.Anchored || stats.AnchoredBatches != stats0.AnchoredBatches {
		t.Errorf("stats after re-anchoring %+v, before %+v: want counted once", stats, stats0)
	}
	t.Logf("tx %s (block %d) dropped by the reorg; batch re-anchored by tx %s in block %d", first.TxHash, first.BlockNumber, final.TxHash, final.BlockNumber)
}
