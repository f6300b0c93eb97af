package ethchain

import (
	"context"
	"crypto/sha256"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"

	"github.com/provenant/provenant/origin/internal/anchor"
)

// calldataTokens counts EIP-7623 tokens: 1 per zero byte, 4 per other byte.
func calldataTokens(b []byte) uint64 {
	var n uint64
	for _, c := range b {
		if c == 0 {
			n++
		} else {
			n += 4
		}
	}
	return n
}

// TestAnchorGasUsed measures the gas of real anchoring transactions on the
// embedded chain (the EVM rules of Ethereum mainnet since Prague): every
// anchor costs the intrinsic 21,000 plus the EIP-7623 calldata floor of 10
// gas per token, 22,440 for a root without zero bytes, whatever the batch
// size (the root is 32 bytes for one record or 4,096). The figure is what
// docs/anchoring.md ("Cost") computes from; run with -v to print it.
func TestAnchorGasUsed(t *testing.T) {
	ctx := context.Background()
	ch, err := Open(ctx, Config{DataDir: t.TempDir(), NodeKey: make32(7)})
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	roots := []anchor.Hash{anchor.Hash(sha256.Sum256([]byte("a batch root"))), {0: 0xff}} // the second is mostly zero bytes
	for _, root := range roots {
		stx := SignAndBroadcast(t, ch, root)
		var used uint64
		for range 500 {
			r, err := ch.c.TransactionReceipt(ctx, common.Hash(stx.Hash))
			if err == nil {
				used = r.GasUsed
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		data := anchor.Calldata(root)
		tokens := calldataTokens(data)
		floor := params.TxGas + params.TxCostFloorPerToken*tokens
		want := max(floor, params.TxGas+4*tokens)
		if used != want {
			t.Errorf("root %s: gasUsed %d, want %d (21000 + max(4, 10) × %d tokens)", root, used, want, tokens)
		}
		if used > DefaultGasLimit {
			t.Errorf("gasUsed %d above the gas limit %d", used, DefaultGasLimit)
		}
		t.Logf("anchor of root %s: calldata %d bytes, %d tokens, gasUsed %d", root, len(data), tokens, used)
	}
}

func make32(b byte) []byte {
	k := make([]byte, NodeKeySize)
	for i := range k {
		k[i] = b
	}
	return k
}
