package receipt_test

import (
	"fmt"
	"os"

	"github.com/provenant/provenant/shared/receipt"
)

// Check a receipt downloaded from GET /api/v1/content-records/{id}/receipt
// without asking the service anything. CheckChain then confirms the anchor
// through any Ethereum JSON-RPC endpoint, given a ChainReader over it.
func ExampleParse() {
	b, err := os.ReadFile("testdata/example.json")
	if err != nil {
		panic(err)
	}
	r, err := receipt.Parse(b)
	if err != nil {
		panic(err)
	}
	res, err := r.Verify()
	if err != nil {
		fmt.Println("receipt does not verify:", err)
		return
	}
	fmt.Println("record", res.Record.ID, "signed by", res.Record.Org)
	fmt.Println("included in root", res.Root, "anchored in", r.TxHash, "on chain", r.ChainID)
	// Output:
	// record 0190f3a1-7b2c-7d4e-8f00-123456789abc signed by Example News
	// included in root fff252828af75d8a64b2e3e157f0ada70be01c223b674bab446a39f4de5165c5 anchored in 0x1b5b9ccb3e8d006a5230de9bda23ff91edc794d4f56410560830b418528e446c on chain 1337
}
