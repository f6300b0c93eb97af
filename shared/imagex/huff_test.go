package imagex

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
	"unsafe"
)

// TestHuffBlockLayout holds the field offsets that the WebAssembly block
// kernel (huff_wasm.s) reads and writes to the Go types.
func TestHuffBlockLayout(t *testing.T) {
	var r bitReader
	var h huffTable
	var k mcuSlot
	var m mcuRun
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"bitReader.data", unsafe.Offsetof(r.data), 0},
		{"bitReader.pos", unsafe.Offsetof(r.pos), 24},
		{"bitReader.acc", unsafe.Offsetof(r.acc), 32},
		{"bitReader.n", unsafe.Offsetof(r.n), 40},
		{"bitReader.pad", unsafe.Offsetof(r.pad), 48},
		{"huffTable.lut", unsafe.Offsetof(h.lut), 0},
		{"huffTable.fast", unsafe.Offsetof(h.fast), 1024},
		{"huffTable.maxcode", unsafe.Offsetof(h.maxcode), 3072},
		{"huffTable.valptr", unsafe.Offsetof(h.valptr), 3144},
		{"huffTable.vals", unsafe.Offsetof(h.vals), 3212},
		{"mcuSlot.dc", unsafe.Offsetof(k.dc), 0},
		{"mcuSlot.ac", unsafe.Offsetof(k.ac), 8},
		{"mcuSlot.q", unsafe.Offsetof(k.q), 16},
		{"mcuSlot.pred", unsafe.Offsetof(k.pred), 24},
		{"mcuSlot.cdc", unsafe.Offsetof(k.cdc), 32},
		{"mcuSlot.cbw", unsafe.Offsetof(k.cbw), 40},
		{"mcuSlot.cbh", unsafe.Offsetof(k.cbh), 48},
		{"mcuSlot.h", unsafe.Offsetof(k.h), 56},
		{"mcuSlot.v", unsafe.Offsetof(k.v), 64},
		{"mcuSlot.dx", unsafe.Offsetof(k.dx), 72},
		{"mcuSlot.dy", unsafe.Offsetof(k.dy), 80},
		{"mcuSlot.isY", unsafe.Offsetof(k.isY), 88},
		{"mcuSlot size", unsafe.Sizeof(k), 96},
		{"mcuRun.m", unsafe.Offsetof(m.m), 0},
		{"mcuRun.end", unsafe.Offsetof(m.end), 8},
		{"mcuRun.mx", unsafe.Offsetof(m.mx), 16},
		{"mcuRun.mxi", unsafe.Offsetof(m.mxi), 24},
		{"mcuRun.myi", unsafe.Offsetof(m.myi), 32},
		{"mcuRun.i", unsafe.Offsetof(m.i), 40},
		{"mcuRun.nslots", unsafe.Offsetof(m.nslots), 48},
		{"mcuRun.stride", unsafe.Offsetof(m.stride), 56},
		{"mcuRun.n", unsafe.Offsetof(m.n), 64},
		{"mcuRun.bw", unsafe.Offsetof(m.bw), 72},
		{"mcuRun.bh", unsafe.Offsetof(m.bh), 80},
		{"mcuRun.bx", unsafe.Offsetof(m.bx), 88},
		{"mcuRun.by", unsafe.Offsetof(m.by), 96},
		{"mcuRun.dst", unsafe.Offsetof(m.dst), 104},
		{"mcuRun.flags", unsafe.Offsetof(m.flags), 112},
		{"mcuRun.slot", unsafe.Offsetof(m.slot), 120},
		{"mcuRun.seen", unsafe.Offsetof(m.seen), 128},
	} {
		if c.got != c.want {
			t.Errorf("%s at %d, the kernel reads it at %d", c.name, c.got, c.want)
		}
	}
	if lutBits != 9 {
		t.Errorf("lutBits %d, the kernel peeks 9 bits", lutBits)
	}
}

// decodeBoth decodes b at 1/s with the block kernel (on WebAssembly; the
// Go code elsewhere) and with baselineBlockGo, and fails unless the
// planes, the chroma means and the errors are the same.
func decodeBoth(t *testing.T, name string, b []byte, s int) {
	t.Helper()
	const maxBytes = 64 << 20
	dk, errK := decodeJPEGLumaWith(&lumaDecoder{data: b, n: 8 / s}, maxBytes)
	dg, errG := decodeJPEGLumaWith(&lumaDecoder{data: b, n: 8 / s, goBlocks: true}, maxBytes)
	if fmt.Sprint(errK) != fmt.Sprint(errG) {
		t.Fatalf("%s 1/%d: kernel error %v, Go error %v", name, s, errK, errG)
	}
	if errK != nil {
		return
	}
	same := func(a, b *Luma) bool {
		if a == nil || b == nil {
			return a == b
		}
		return a.Width == b.Width && a.Height == b.Height && a.Stride == b.Stride && bytes.Equal(a.Pix, b.Pix)
	}
	kcb, kcr := dk.chromaPlanes()
	gcb, gcr := dg.chromaPlanes()
	if !same(dk.out, dg.out) || !same(kcb, gcb) || !same(kcr, gcr) {
		t.Fatalf("%s 1/%d: the kernel's decode differs from the Go code's", name, s)
	}
}

// TestHuffBlockMatchesGo decodes the luma corpus, the generated JPEGs and
// damaged copies of them (truncated, bytes flipped in the entropy-coded
// data, so that bad codes, markers and overruns are reached) at every
// scale, with the kernel and with the Go code. Run it under wazero for
// the kernel:
//
//	GOOS=wasip1 GOARCH=wasm go test -run HuffBlock ./shared/imagex
func TestHuffBlockMatchesGo(t *testing.T) {
	files := lumaCorpus(t)
	for k, v := range generatedJPEGs(t) {
		files[k] = v
	}
	for _, name := range sortedNames(files) {
		b := files[name]
		for _, s := range []int{1, 2, 4, 8} {
			decodeBoth(t, name, b, s)
		}
		if len(b) > 64<<10 {
			continue
		}
		for i, cut := range []int{len(b) / 2, len(b) - 40, len(b) - 3} {
			if cut > 0 {
				decodeBoth(t, fmt.Sprintf("%s cut %d", name, i), b[:cut], 2)
			}
		}
		for i := 0; i < 12; i++ {
			d := bytes.Clone(b)
			p := len(d)/2 + i*len(d)/31
			if p >= len(d) {
				break
			}
			d[p] ^= byte(0x5A + 17*i)
			if i%3 == 0 {
				d[p] = 0xFF
			}
			decodeBoth(t, fmt.Sprintf("%s flip %d", name, i), d, 1+i%2)
		}
	}
}

// FuzzHuffBlockMatchesGo: any bytes decode the same with the kernel and
// with the Go code, at 1/1 and 1/4.
func FuzzHuffBlockMatchesGo(f *testing.F) {
	addFileSeeds(f, filepath.Join("testdata", "luma"), "tiny-q75-420.jpg", "one-q75-420.jpg")
	for _, name := range []string{"gen-7x13-q90", "gen-gray-33x17-q50", "gen-129x65-q100"} {
		f.Add(generatedJPEGs(f)[name])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<16 {
			return
		}
		decodeBoth(t, "input", b, 1)
		decodeBoth(t, "input", b, 4)
	})
}
