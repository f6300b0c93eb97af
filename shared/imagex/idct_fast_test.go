package imagex

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// checkIDCT8Fast compares idct8Fast (on WebAssembly, its assembly body)
// with idct8 on blk for the given column count, both writing 8×8 into a
// plane of stride 11 whose other bytes must stay untouched, the fast one
// with a scratch full of garbage.
func checkIDCT8Fast(t *testing.T, blk *[64]int32, cols int, garbage int32) {
	t.Helper()
	const stride = 11
	want := bytes.Repeat([]byte{0xA5}, 8*stride)
	got := bytes.Clone(want)
	b := *blk
	idct8(&b, want, stride, cols)
	var tmp [64]int32
	for i := range tmp {
		tmp[i] = garbage ^ int32(i)
	}
	idct8Fast(blk, got, stride, cols, &tmp)
	if *blk != b {
		t.Fatalf("idct8Fast changed its block")
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("cols %d, block %v:\nidct8Fast %v\nidct8     %v", cols, *blk, got, want)
	}
}

// TestIDCT8FastMatchesGo: random blocks, sparse and dense, small and huge
// (products that wrap around int32), every column count from -1 to 9.
// Run it under wazero for the assembly:
//
//	GOOS=wasip1 GOARCH=wasm go test -run IDCT8Fast ./shared/imagex
func TestIDCT8FastMatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 3000 {
		var blk [64]int32
		n := 1 + r.IntN(64)
		for range n {
			var v int32
			switch i % 3 {
			case 0:
				v = int32(r.IntN(2048)) - 1024
			case 1:
				v = int32(r.IntN(65536)) - 32768
			default:
				v = int32(r.Uint32())
			}
			blk[r.IntN(64)] = v
		}
		if i%5 == 0 {
			// DC-only columns and rows.
			for k := 8; k < 64; k++ {
				if k%8 != 0 {
					blk[k] = 0
				}
			}
		}
		checkIDCT8Fast(t, &blk, i%11-1, int32(r.Uint32()))
	}
	var blk [64]int32
	checkIDCT8Fast(t, &blk, 8, -1)
	for _, v := range []int32{-1 << 31, 1<<31 - 1, 1 << 20, -1 << 20} {
		for k := range blk {
			blk[k] = v
		}
		checkIDCT8Fast(t, &blk, 8, 7)
	}
}

// FuzzIDCT8FastMatchesGo: any 64 coefficients (from 256 bytes, little
// endian) and column count.
func FuzzIDCT8FastMatchesGo(f *testing.F) {
	f.Add(make([]byte, 256), 8)
	f.Add(bytes.Repeat([]byte{0xFF, 0xFF, 0xFF, 0x7F}, 64), 8)
	f.Add(append([]byte{0x10, 0x02, 0, 0, 0xF0, 0xFF, 0xFF, 0xFF}, make([]byte, 248)...), 1)
	f.Add(bytes.Repeat([]byte{3, 0, 0, 0, 0xFD, 0xFF, 0xFF, 0xFF}, 32), 5)
	f.Fuzz(func(t *testing.T, raw []byte, cols int) {
		var blk [64]int32
		for k := 0; k < 64 && 4*k+4 <= len(raw); k++ {
			blk[k] = int32(binary.LittleEndian.Uint32(raw[4*k:]))
		}
		checkIDCT8Fast(t, &blk, cols%10, 0x5A5A5A5A)
	})
}
