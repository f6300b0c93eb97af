package imagex

import (
	"bytes"
	"image"
	"image/jpeg"
	"math/rand/v2"
	"testing"
)

// stdACTable returns the AC luminance table image/jpeg writes (T.81
// K.3.2), read through the decoder's own DHT parser.
func stdACTable(t testing.TB) *huffTable {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, 8, 8)), nil); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	var d lumaDecoder
	for i := 2; i+4 <= len(b); {
		if b[i] != 0xFF {
			t.Fatal("no marker")
		}
		n := int(b[i+2])<<8 | int(b[i+3])
		if b[i+1] == 0xC4 {
			if err := d.huffman(b[i+4 : i+2+n]); err != nil {
				t.Fatal(err)
			}
		}
		if b[i+1] == 0xDA {
			break
		}
		i += 2 + n
	}
	if !d.ac[0].defined {
		t.Fatal("no AC table")
	}
	return &d.ac[0]
}

// checkACRun runs acRun (the assembly body in WebAssembly) and acRunGo
// from the same reader state over data and fails on any difference in
// the position, the outcome, the coefficients or the reader.
func checkACRun(t *testing.T, ac *huffTable, data []byte, skip uint, k, last int) {
	t.Helper()
	var q [64]int32
	for i := range q {
		q[i] = int32(1 + i*37%251)
	}
	r1 := &bitReader{data: data}
	r1.fill()
	if skip%64 < r1.n {
		r1.n -= skip % 64
	}
	r2 := *r1
	var b1, b2 [64]int32
	for step := 0; step < 200 && k < 64; step++ {
		k1, h1, s1 := acRun(r1, &ac.fast, &q, &b1, k, last)
		k2, h2, s2 := acRunGo(&r2, &ac.fast, &q, &b2, k, last)
		if k1 != k2 || h1 != h2 || s1 != s2 || b1 != b2 || r1.pos != r2.pos || r1.acc != r2.acc || r1.n != r2.n || r1.pad != r2.pad {
			t.Fatalf("k=%d last=%d step %d: acRun (%d %v %d, reader %+v), acRunGo (%d %v %d, reader %+v)",
				k, last, step, k1, h1, s1, *r1, k2, h2, s2, r2)
		}
		if s1 != acSlow {
			break
		}
		// Step over the code the fast table does not hold, as the
		// decoder does, and go on.
		rs, err := r1.decode(ac)
		if err != nil {
			break
		}
		if _, err := r2.decode(ac); err != nil {
			t.Fatal(err)
		}
		sz := uint(rs & 15)
		if sz == 0 && rs>>4 != 15 {
			break
		}
		r1.n -= min(sz, r1.n)
		r2.n -= min(sz, r2.n)
		k = k1 + int(rs>>4) + 1
		if sz == 0 {
			k = k1 + 16
		}
	}
}

// TestACRunMatchesGo holds acRun to acRunGo on random entropy-coded data
// (with stuffed bytes, markers and the end of the data reached), every
// start position and the limits the decoder uses.
func TestACRunMatchesGo(t *testing.T) {
	ac := stdACTable(t)
	r := rand.New(rand.NewPCG(41, 7))
	for i := 0; i < 300; i++ {
		data := make([]byte, 4+r.IntN(200))
		for j := range data {
			data[j] = byte(r.IntN(256))
			if r.IntN(16) == 0 {
				data[j] = 0xFF
			}
		}
		for _, last := range []int{-1, 0, 63} {
			checkACRun(t, ac, data, uint(r.IntN(64)), 1+r.IntN(63), last)
		}
	}
}

// FuzzACRunMatchesGo is TestACRunMatchesGo on any data.
func FuzzACRunMatchesGo(f *testing.F) {
	f.Add([]byte{0x12, 0x34, 0xFF, 0x00, 0xA5, 0x5A, 0xFF, 0xD9}, uint8(1), uint8(63), uint8(0))
	f.Add(bytes.Repeat([]byte{0x0F, 0xF0, 0x33}, 40), uint8(5), uint8(0), uint8(3))
	ac := stdACTable(f)
	f.Fuzz(func(t *testing.T, data []byte, k, last, skip uint8) {
		checkACRun(t, ac, data, uint(skip), 1+int(k%63), int(last%66)-1)
	})
}
