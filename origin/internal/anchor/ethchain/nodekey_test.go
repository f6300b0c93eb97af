package ethchain_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"strings"
	"testing"

	"github.com/provenant/provenant/origin/internal/anchor/ethchain"
)

func newNodeKey(t *testing.T) []byte {
	t.Helper()
	k := make([]byte, ethchain.NodeKeySize)
	if _, err := rand.Read(k); err != nil {
		t.Fatal(err)
	}
	return k
}

// TestNodeKeyPerInstallation: two installations, each with its own random
// node key, get different chain identities (genesis hash) and senders;
// each reopens its own chain and anchors on it; a chain opened with
// another installation's key is refused.
func TestNodeKeyPerInstallation(t *testing.T) {
	ctx := context.Background()
	type inst struct {
		dir     string
		key     []byte
		genesis string
		sender  string
	}
	var insts [2]inst
	for i := range insts {
		in := &insts[i]
		in.dir, in.key = t.TempDir(), newNodeKey(t)
		ch, err := ethchain.Open(ctx, ethchain.Config{DataDir: in.dir, NodeKey: in.key})
		if err != nil {
			t.Fatal(err)
		}
		g, err := ch.GenesisHash(ctx)
		if err != nil {
			t.Fatal(err)
		}
		in.genesis, in.sender = g.String(), ch.Sender()
		sendRoot(t, ch, rootN(i))
		ch.Close()
	}
	if insts[0].genesis == insts[1].genesis || insts[0].sender == insts[1].sender {
		t.Fatalf("two installations share a chain identity: %+v", insts)
	}
	for _, in := range insts {
		ch, err := ethchain.Open(ctx, ethchain.Config{DataDir: in.dir, NodeKey: in.key})
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
		if g, _ := ch.GenesisHash(ctx); g.String() != in.genesis || ch.Sender() != in.sender {
			t.Errorf("reopened chain %s sender %s, want %s %s", g, ch.Sender(), in.genesis, in.sender)
		}
		sendRoot(t, ch, rootN(7))
		ch.Close()
	}
	_, err := ethchain.Open(ctx, ethchain.Config{DataDir: insts[0].dir, NodeKey: insts[1].key})
	if err == nil || !strings.Contains(err.Error(), "another node key") {
		t.Fatalf("open with another installation's key = %v, want a refusal", err)
	}
	if bytes.Equal(insts[0].key, insts[1].key) {
		t.Fatal("random keys collided")
	}
}

// TestNodeKeyMigration: a chain created before node keys (funded public
// key) keeps working when the installation gets its own key: its
// anchors still read back, new anchors are sent by the new key, and the
// funding happens once.
func TestNodeKeyMigration(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	old, err := ethchain.Open(ctx, ethchain.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	oldSender := old.Sender()
	stx, inc := sendRoot(t, old, rootN(1))
	old.Close()

	key := newNodeKey(t)
	for round := range 2 {
		ch, err := ethchain.Open(ctx, ethchain.Config{DataDir: dir, NodeKey: key})
		if err != nil {
			t.Fatalf("round %d: open the old chain with a node key: %v", round, err)
		}
		if ch.Sender() == oldSender {
			t.Fatalf("round %d: sender is still the public legacy key", round)
		}
		checkChainHolds(t, ch, stx.Hash, rootN(1), inc.BlockNumber)
		nstx, ninc := sendRoot(t, ch, rootN(10+round))
		tx, err := ch.Transaction(ctx, nstx.Hash)
		if err != nil || !strings.EqualFold(tx.From, ch.Sender()) {
			t.Errorf("round %d: new anchor from %s (%v), want the node key's %s", round, tx.From, err, ch.Sender())
		}
		checkChainHolds(t, ch, nstx.Hash, rootN(10+round), ninc.BlockNumber)
		head, _ := ch.Head(ctx)
		// Round 0: anchor 1, the funding transfer, the new anchor; round 1:
		// one more anchor and no second transfer.
		if want := uint64(3 + round); head != want {
			t.Errorf("round %d: head %d, want %d (one funding transfer in all)", round, head, want)
		}
		ch.Close()
	}
}
