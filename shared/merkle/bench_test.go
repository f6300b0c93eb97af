package merkle

import (
	"crypto/sha256"
	"slices"
	"testing"
	"time"
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

// BenchmarkBuild1MInterleaved alternates a 1M-leaf Build with the same
// number of bare node hashes (one SHA-256 of 0x01‖l‖r each, the floor), so
// machine load hits both alike, and reports the ratio of the medians.
func BenchmarkBuild1MInterleaved(b *testing.B) {
	leaves := leavesN(benchLeaves)
	var build, floor []time.Duration
	for b.Loop() {
		t0 := time.Now()
		Build(leaves)
		t1 := time.Now()
		var buf [65]byte
		buf[0] = 1
		for i := 0; i < benchLeaves-1; i++ {
			h := sha256.Sum256(buf[:])
			buf[1+i%64] ^= h[0]
		}
		t2 := time.Now()
		build, floor = append(build, t1.Sub(t0)), append(floor, t2.Sub(t1))
	}
	mb, mf := median(build), median(floor)
	b.ReportMetric(float64(mb.Nanoseconds())/float64(benchLeaves-1), "build-ns/node")
	b.ReportMetric(float64(mf.Nanoseconds())/float64(benchLeaves-1), "sha256-ns/node")
	b.ReportMetric(float64(mb)/float64(mf), "build/sha256")
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
