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
	// Random blocks reach a rounding constant's boundary too rarely: a
	// kernel with one of them off by one passed the loop above.
	n := 0
	for _, blk := range roundingBoundaryBlocks(16) {
		for dc := int32(-256); dc < 256; dc++ {
			blk[0] = dc
			checkIDCT8Fast(t, &blk, 8, int32(dc))
			n++
		}
	}
	if n < 6*16*512 {
		t.Fatalf("%d rounding-boundary blocks, want %d", n, 6*16*512)
	}
	cb := columnStoreBoundaryBlocks(32)
	if len(cb) < 8 {
		t.Fatalf("%d blocks at the column store's boundary, want 8", len(cb))
	}
	for _, blk := range cb {
		checkIDCT8Fast(t, &blk, 8, 3)
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
	// Blocks on a rounding boundary of idct4 (roundingBoundaryBlocks,
	// columnStoreBoundaryBlocks): its row pair (1, 7), (2, 6), (3, 5), a
	// column pair and the column store; each fails with that constant off
	// by one.
	for _, c := range []map[int]int32{
		{0: -254, 1: -291, 7: -231},
		{0: -256, 2: -284, 6: -48},
		{0: -254, 3: -291, 5: 245},
		{0: -246, 16: -288},
		{0: -156, 24: -221},
	} {
		raw := make([]byte, 256)
		for k, v := range c {
			binary.LittleEndian.PutUint32(raw[4*k:], uint32(v))
		}
		f.Add(raw, 8)
	}
	f.Fuzz(func(t *testing.T, raw []byte, cols int) {
		var blk [64]int32
		for k := 0; k < 64 && 4*k+4 <= len(raw); k++ {
			blk[k] = int32(binary.LittleEndian.Uint32(raw[4*k:]))
		}
		checkIDCT8Fast(t, &blk, cols%10, 0x5A5A5A5A)
	})
}

// roundingBoundaryBlocks returns, for each odd pair of idct4 (frequencies
// k and 8-k, k = 1, 2, 3), perPair blocks whose pair term lands exactly
// on its rounding boundary, (x·ca - y·cb) mod 2^sh = 2^(sh-1): in the row
// pass (the pair in row 0, so every column is flat and its first pass
// gives x and y) and in the column pass (the pair in column 0). Only
// there does a rounding constant off by one change the term. Whether the
// change reaches an output byte depends on the DC and on the term's
// value (the DC passes cos4 twice, so its rounding repeats every 8 DC
// steps), hence several pairs each, with the DC (blk[0], left for the
// caller) swept.
func roundingBoundaryBlocks(perPair int) [][64]int32 {
	flat := func(f int32) int32 { return (f*cos4 + 1<<(idctBits-pass1-1)) >> (idctBits - pass1) }
	pairs := []struct {
		k      int
		ca, cb int32
	}{{1, cos1, cos7}, {2, cos2, cos6}, {3, cos3, cos5}}
	var out [][64]int32
	for _, p := range pairs {
		for _, row := range []bool{true, false} {
			found := 0
			for a := int32(-300); a < 300 && found < perPair; a++ {
				for b := int32(-300); b < 300 && found < perPair; b++ {
					var blk [64]int32
					if row {
						// Row pass: g = (x·ca - y·cb + 2^12) >> 13.
						if (flat(a)*p.ca-flat(b)*p.cb)&(1<<idctBits-1) != 1<<(idctBits-1) {
							continue
						}
						blk[p.k], blk[8-p.k] = a, b
					} else {
						// Column pass: g = (x·ca - y·cb + 2^9) >> 10.
						const sh = idctBits - pass1
						if (a*p.ca-b*p.cb)&(1<<sh-1) != 1<<(sh-1) {
							continue
						}
						blk[8*p.k], blk[8*(8-p.k)] = a, b
					}
					out = append(out, blk)
					found++
				}
			}
		}
	}
	return out
}

// columnStoreBoundaryBlocks returns up to max blocks (F(0,0), F(3,0) and
// F(5,0) set) where one of idct4's column outputs lands exactly on the
// rounding boundary of its store, e mod 2^13 = 2^12, and where that
// output moving by one moves the row's byte (the row pass of a block
// with only column 0 reads T·cos4 alone). Random blocks almost never meet
// both, so an off-by-one store rounding passed them.
func columnStoreBoundaryBlocks(max int) [][64]int32 {
	const sh2 = idctBits + pass1 + 2
	const bias = 128<<sh2 + 1<<(sh2-1)
	var out [][64]int32
	for f0 := int32(-256); f0 < 256; f0++ {
		for f3 := int32(-300); f3 < 300; f3++ {
			g3 := (f3*cos3 + 1<<(idctBits-pass1-1)) >> (idctBits - pass1)
			e0, e1, e2, e3 := even4(f0<<pass1, 0, 0, g3)
			for _, e := range []int32{e0, e1, e2, e3} {
				if e&(1<<idctBits-1) != 1<<(idctBits-1) {
					continue
				}
				t := (e + 1<<(idctBits-1)) >> idctBits
				hi, lo := (t*cos4+bias)>>sh2, ((t-1)*cos4+bias)>>sh2
				if hi == lo || lo < 0 || hi > 255 {
					continue
				}
				var blk [64]int32
				blk[0], blk[24] = f0, f3
				out = append(out, blk)
				if len(out) == max {
					return out
				}
				break
			}
		}
	}
	return out
}
