package imagex

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// checkIDCT8Fast compares idct8Fast and idct4Fast (on WebAssembly, their
// assembly bodies) with idct8 and idct4 on blk for the given column
// count, each writing into a plane of stride 11 whose other bytes must
// stay untouched, the fast ones with a scratch full of garbage.
func checkIDCT8Fast(t *testing.T, blk *[64]int32, cols int, garbage int32) {
	t.Helper()
	const stride = 11
	for _, c := range []struct {
		name string
		fast func(*[64]int32, []uint8, int, int, *[64]int32)
		ref  func(*[64]int32, []uint8, int, int)
	}{
		{"idct8", idct8Fast, idct8},
		{"idct4", idct4Fast, idct4},
	} {
		want := bytes.Repeat([]byte{0xA5}, 8*stride)
		got := bytes.Clone(want)
		b := *blk
		c.ref(&b, want, stride, cols)
		var tmp [64]int32
		for i := range tmp {
			tmp[i] = garbage ^ int32(i)
		}
		c.fast(blk, got, stride, cols, &tmp)
		if *blk != b {
			t.Fatalf("%s: the fast body changed its block", c.name)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s, cols %d, block %v:\nfast %v\nGo   %v", c.name, cols, *blk, got, want)
		}
	}
}

// TestIDCTFastMatchesGo: random blocks, sparse and dense, small and huge
// (products that wrap around int32), every column count from -1 to 9.
// Run it under wazero for the assembly:
//
//	GOOS=wasip1 GOARCH=wasm go test -run IDCTFast ./shared/imagex
func TestIDCTFastMatchesGo(t *testing.T) {
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

// FuzzIDCTFastMatchesGo: any 64 coefficients (from 256 bytes, little
// endian) and column count.
func FuzzIDCTFastMatchesGo(f *testing.F) {
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
