package merkle

import (
	"crypto/sha256"
	"testing"
)

const benchLeaves = 1 << 20

// BenchmarkBuild1M builds a tree over 2^20 leaf hashes. Compare ns/op with
// (2^20 - 1) × BenchmarkNodeSHA256 (one SHA-256 of a 65-byte node input).
func BenchmarkBuild1M(b *testing.B) {
	leaves := leavesN(benchLeaves)
	b.ReportAllocs()
	for b.Loop() {
		Build(leaves)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(benchLeaves-1), "ns/node")
}

// BenchmarkNodeSHA256 is the floor for Build: one SHA-256 over 0x01‖l‖r.
func BenchmarkNodeSHA256(b *testing.B) {
	var buf [65]byte
	buf[0] = 1
	var h [32]byte
	for b.Loop() {
		h = sha256.Sum256(buf[:])
		buf[1] = h[0]
	}
}

func BenchmarkVerifyInclusion1M(b *testing.B) {
	tree := Build(leavesN(benchLeaves))
	idx := uint64(benchLeaves/2 + 12345)
	proof, _ := tree.InclusionProof(idx)
	leaf, root := tree.Leaf(idx), tree.Root()
	b.ReportAllocs()
	for b.Loop() {
		if err := VerifyInclusion(idx, benchLeaves, leaf, proof, root); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkInclusionProof1M(b *testing.B) {
	tree := Build(leavesN(benchLeaves))
	b.ReportAllocs()
	i := uint64(0)
	for b.Loop() {
		if _, err := tree.InclusionProof(i % benchLeaves); err != nil {
			b.Fatal(err)
		}
		i += 7919
	}
}
