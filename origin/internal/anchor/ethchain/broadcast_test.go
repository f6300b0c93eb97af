package ethchain

import (
	"context"
	"testing"

	"github.com/provenant/provenant/origin/internal/anchor"
)

// SignAndBroadcast signs root at ch's pending nonce with its suggested fees
// and broadcasts it once, as the batcher does; the tests of this package
// (internal and external) that need a real anchoring transaction use it.
func SignAndBroadcast(t testing.TB, ch anchor.Chain, root anchor.Hash) anchor.SignedTx {
	t.Helper()
	ctx := context.Background()
	nonce, err := ch.PendingNonce(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fees, err := ch.SuggestFees(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stx, err := ch.SignRoot(ctx, root, nonce, fees)
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.Broadcast(ctx, stx.Raw); err != nil {
		t.Fatalf("Broadcast: %v", err)
	}
	return stx
}
