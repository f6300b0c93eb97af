package anchor_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/shared/merkle"
)

// BenchmarkTreeBuild: building the RFC 9162 tree (root and every level) over
// a batch's leaf hashes.
func BenchmarkTreeBuild(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		leaves := make([]merkle.Hash, n)
		for i := range leaves {
			leaves[i] = merkle.Hash(leafOf(i))
		}
		b.Run(fmt.Sprintf("leaves=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = merkle.Build(leaves).Root()
			}
		})
	}
}

// BenchmarkVerifyMerkle: verifying one inclusion proof (the Merkle part of
// anchor.Verify) in a 1,000-leaf batch.
func BenchmarkVerifyMerkle(b *testing.B) {
	leaves := make([]merkle.Hash, 1000)
	for i := range leaves {
		leaves[i] = merkle.Hash(leafOf(i))
	}
	tr := merkle.Build(leaves)
	root := tr.Root()
	path, _ := tr.InclusionProof(377)
	b.ReportAllocs()
	for b.Loop() {
		if err := merkle.VerifyInclusion(377, 1000, leaves[377], path, root); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyWithFakeChain: anchor.Verify end to end against an
// in-memory chain: the cost of Verify itself without RPC.
func BenchmarkVerifyWithFakeChain(b *testing.B) {
	h := newHarness(b, func(c *anchor.Config) { c.BatchSize = 1000 })
	h.enqueue(0, 1000)
	if err := h.step(); err != nil {
		b.Fatal(err)
	}
	p, err := h.b.Proof(context.Background(), recordID(377))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if res, err := anchor.Verify(context.Background(), h.ch, leafOf(377), p, 1); err != nil || !res.Passed() {
			b.Fatal(res, err)
		}
	}
}
