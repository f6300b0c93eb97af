package digest

import (
	"math/rand/v2"
	"testing"
)

// TestBlocks256MatchesCompress holds blocks256 (on WebAssembly, its
// assembly body) to compress256 applied block by block, for runs of 1 to
// 9 blocks from random states; run it under wazero to test the assembly:
//
//	GOOS=wasip1 GOARCH=wasm go test -run Blocks256 ./shared/digest
func TestBlocks256MatchesCompress(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 1; n <= 9; n++ {
		for range 20 {
			p := make([]byte, n*blockSize256+r.IntN(3)*7)
			for i := range p {
				p[i] = byte(r.Uint32())
			}
			var h [8]uint32
			for i := range h {
				h[i] = r.Uint32()
			}
			want, got := h, h
			blocks256Go(&want, p[:n*blockSize256])
			blocks256(&got, p)
			if got != want {
				t.Fatalf("%d blocks: blocks256 gave %x, compress256 %x", n, got, want)
			}
		}
	}
	// Shorter than a block: nothing happens.
	h := iv256
	blocks256(&h, make([]byte, blockSize256-1))
	if h != iv256 {
		t.Fatalf("a partial block changed the state: %x", h)
	}
}

// FuzzBlocks256MatchesCompress: for any state and any bytes, blocks256
// and compress256 block by block give the same state.
func FuzzBlocks256MatchesCompress(f *testing.F) {
	f.Add(uint64(0), uint64(0), make([]byte, 64))
	f.Add(^uint64(0), ^uint64(0), make([]byte, 128))
	f.Add(uint64(0x6a09e667bb67ae85), uint64(0x510e527f9b05688c), []byte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/abc"))
	f.Fuzz(func(t *testing.T, s0, s1 uint64, p []byte) {
		h := [8]uint32{uint32(s0), uint32(s0 >> 32), uint32(s1), uint32(s1 >> 32), uint32(s0 ^ s1), uint32(^s0), uint32(s1 >> 7), uint32(s0 >> 13)}
		want, got := h, h
		blocks256Go(&want, p[:len(p)&^(blockSize256-1)])
		blocks256(&got, p)
		if got != want {
			t.Fatalf("blocks256 gave %x, compress256 %x", got, want)
		}
	})
}
