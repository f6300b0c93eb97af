package ethchain_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/anchor/ethchain"
)

// TestExportImportBlocks copies an embedded chain into a fresh one through
// ExportBlocks and ImportBlocks (the backup path): the copy has the same
// head and every anchoring transaction reads back from it, an import of
// the same blocks again inserts nothing, and the copy keeps mining.
func TestExportImportBlocks(t *testing.T) {
	ctx := context.Background()
	src, err := ethchain.Open(ctx, ethchain.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var txs []anchor.SignedTx
	var incs []anchor.Inclusion
	for i := range 3 {
		stx, inc := sendRoot(t, src, rootN(i))
		txs, incs = append(txs, stx), append(incs, inc)
	}
	var buf bytes.Buffer
	head, err := src.ExportBlocks(&buf)
	if err != nil {
		t.Fatalf("ExportBlocks: %v", err)
	}
	if want := incs[2].BlockNumber; head < want {
		t.Fatalf("exported head %d, want at least %d (the last anchor's block)", head, want)
	}
	archive := buf.Bytes()

	dst, err := ethchain.Open(ctx, ethchain.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	n, err := dst.ImportBlocks(bytes.NewReader(archive))
	if err != nil || uint64(n) != head {
		t.Fatalf("ImportBlocks = %d, %v; want %d blocks", n, err, head)
	}
	if got, err := dst.Head(ctx); err != nil || got != head {
		t.Fatalf("imported chain head = %d, %v; want %d", got, err, head)
	}
	for i := range txs {
		checkChainHolds(t, dst, txs[i].Hash, rootN(i), incs[i].BlockNumber)
	}
	if n, err := dst.ImportBlocks(bytes.NewReader(archive)); err != nil || n != 0 {
		t.Errorf("second ImportBlocks = %d, %v; want 0 inserted", n, err)
	}
	// The restored chain anchors on top of the imported blocks.
	if _, inc := sendRoot(t, dst, rootN(9)); inc.BlockNumber != head+1 {
		t.Errorf("next anchor mined in block %d, want %d", inc.BlockNumber, head+1)
	}
}

func TestExportNeedsEmbeddedChain(t *testing.T) {
	var ch ethchain.Chain // no exporter: as a chain reached over RPC
	if _, err := ch.ExportBlocks(&bytes.Buffer{}); !errors.Is(err, ethchain.ErrNotEmbedded) {
		t.Errorf("ExportBlocks on a non-embedded chain = %v, want ErrNotEmbedded", err)
	}
	if ch.Embedded() {
		t.Error("Embedded() = true for a chain without exporter")
	}
}
