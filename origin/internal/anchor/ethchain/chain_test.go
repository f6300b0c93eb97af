package ethchain_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/anchor/ethchain"
)

// sendRoot signs, broadcasts and waits for the inclusion of one anchor.
func sendRoot(t *testing.T, ch anchor.Chain, root anchor.Hash) (anchor.SignedTx, anchor.Inclusion) {
	t.Helper()
	ctx := context.Background()
	stx := ethchain.SignAndBroadcast(t, ch, root)
	// Rebroadcasting the same bytes is idempotent ("already known" or
	// "nonce too low" once mined, never a second transaction).
	if err := ch.Broadcast(ctx, stx.Raw); err != nil && !errors.Is(err, anchor.ErrNonceTooLow) {
		t.Fatalf("second Broadcast = %v, want nil or ErrNonceTooLow", err)
	}
	return stx, waitIncluded(t, ch, stx.Hash)
}

func waitIncluded(t *testing.T, ch anchor.Chain, h anchor.Hash) anchor.Inclusion {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		inc, err := ch.Receipt(context.Background(), h)
		if err == nil {
			return inc
		}
		if !errors.Is(err, anchor.ErrNotIncluded) || time.Now().After(deadline) {
			t.Fatalf("Receipt(%s): %v", h, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func rootN(i int) anchor.Hash { return anchor.Hash(sha256.Sum256([]byte(fmt.Sprint("root", i)))) }

// checkChainHolds reads the tx back and checks its calldata carries root.
func checkChainHolds(t *testing.T, ch anchor.ChainReader, h anchor.Hash, root anchor.Hash, block uint64) {
	t.Helper()
	tx, err := ch.Transaction(context.Background(), h)
	if err != nil {
		t.Fatalf("Transaction(%s): %v", h, err)
	}
	got, err := anchor.RootFromCalldata(tx.Data)
	if err != nil || got != root {
		t.Fatalf("tx %s calldata root = %s, %v; want %s", h, got, err, root)
	}
	if tx.BlockNumber != block {
		t.Fatalf("tx %s block = %d, want %d", h, tx.BlockNumber, block)
	}
}

func TestEmbeddedChainSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	ch, err := ethchain.Open(context.Background(), ethchain.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if ch.ChainID() != ethchain.EmbeddedChainID || ch.Network() != ethchain.EmbeddedNetwork {
		t.Fatalf("chain id/network = %d/%s", ch.ChainID(), ch.Network())
	}
	type sent struct {
		stx anchor.SignedTx
		inc anchor.Inclusion
	}
	var first []sent
	for i := range 3 {
		stx, inc := sendRoot(t, ch, rootN(i))
		if !inc.Success {
			t.Fatalf("anchor %d reverted", i)
		}
		first = append(first, sent{stx, inc})
	}
	if err := ch.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := ch.Close(); err != nil {
		t.Fatal(err)
	}

	ch, err = ethchain.Open(context.Background(), ethchain.Config{DataDir: dir})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer ch.Close()
	for i, s := range first {
		checkChainHolds(t, ch, s.stx.Hash, rootN(i), s.inc.BlockNumber)
	}
	nonce, err := ch.PendingNonce(context.Background())
	if err != nil || nonce != 3 {
		t.Fatalf("PendingNonce after restart = %d, %v; want 3", nonce, err)
	}
	stx, _ := sendRoot(t, ch, rootN(3))
	if stx.Nonce != 3 {
		t.Fatalf("nonce = %d, want 3", stx.Nonce)
	}
	head, err := ch.Head(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The dev beacon finalizes at 32-block epochs: block 0 here.
	if fin, err := ch.Finalized(context.Background()); err != nil || fin > head {
		t.Fatalf("Finalized = %d, %v; head %d", fin, err, head)
	}
}
