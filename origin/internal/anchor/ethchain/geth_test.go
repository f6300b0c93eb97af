package ethchain_test

import (
	"testing"

	"github.com/provenant/provenant/origin/internal/anchor/ethchain/gethtest"
)

func startGethDev(t *testing.T) (url, keyFile string) { return gethtest.Start(t) }

// TestGethDevRPC runs the whole flow over JSON-RPC against a real geth --dev:
// 2,500 records in batches of 500, the origin SIGKILLed after persisting
// batch 3's tx (geth keeps running), restarted: every record anchored with
// a verifying proof, each root mined exactly once.
func TestGethDevRPC(t *testing.T) {
	url, keyFile := startGethDev(t)
	crashAndRecover(t, t.TempDir(), url, keyFile, "persist 3", 2500, 500)
}
