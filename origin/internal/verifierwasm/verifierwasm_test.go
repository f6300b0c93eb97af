package verifierwasm

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

// TestLoad: the build directory's verifier module is required, its C2PA
// module optional; each is named by its own prefix and hash.
func TestLoad(t *testing.T) {
	mod := []byte("\x00asm\x01\x00\x00\x00verifier")
	c2pa := []byte("\x00asm\x01\x00\x00\x00c2pa")
	if _, err := Load(fstest.MapFS{}); !errors.Is(err, ErrNotBuilt) {
		t.Fatalf("empty directory: %v", err)
	}
	m, err := Load(fstest.MapFS{FileName: {Data: mod}})
	if err != nil || m.C2PA() != nil {
		t.Fatalf("verifier alone: %v, c2pa %v", err, m.C2PA())
	}
	m, err = Load(fstest.MapFS{FileName: {Data: mod}, C2PAFileName: {Data: c2pa}})
	if err != nil || m.C2PA() == nil {
		t.Fatalf("both: %v", err)
	}
	if !strings.HasPrefix(m.Name(), "verifier-") || !strings.HasPrefix(m.C2PA().Name(), "c2pa-") || m.Hash() == m.C2PA().Hash() {
		t.Errorf("names %s and %s", m.Name(), m.C2PA().Name())
	}
	if _, err := Load(fstest.MapFS{FileName: {Data: mod}, C2PAFileName: {Data: []byte("not wasm")}}); err == nil {
		t.Error("a C2PA module that is not WebAssembly was accepted")
	}
}

// TestPrecompressed: a brotli encoding beside a module in the build
// directory is served as the module's brotli encoding when it decodes to
// that module, for each module; a stale one (made from another build) is
// ignored and the encoding made on first use decodes to the module.
func TestPrecompressed(t *testing.T) {
	mod := append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte("verifier module "), 500)...)
	c2pa := append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte("c2pa module "), 500)...)
	other := append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte("an older build "), 500)...)
	fresh, freshC2PA, stale := Precompress(mod), Precompress(c2pa), Precompress(other)
	m, err := Load(fstest.MapFS{FileName: {Data: mod}, FileName + BrotliSuffix: {Data: fresh},
		C2PAFileName: {Data: c2pa}, C2PAFileName + BrotliSuffix: {Data: freshC2PA}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(m.Bytes(Brotli), fresh) || !bytes.Equal(m.C2PA().Bytes(Brotli), freshC2PA) {
		t.Error("the precompressed encodings are not the ones served")
	}
	m, err = Load(fstest.MapFS{FileName: {Data: mod}, FileName + BrotliSuffix: {Data: stale}})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Bytes(Brotli); bytes.Equal(got, stale) || !IsBrotliOf(got, mod) {
		t.Error("a stale precompressed encoding was served, or the one made on first use does not decode to the module")
	}
}

// TestPrecompressWindow: Precompress keeps the smaller of its two
// windows' encodings, which decodes to its input; an encoding with
// another window (here 20) still decodes to the module, so the origin
// would serve it, but is not taken as a precompression, so `make wasm`
// makes it again.
func TestPrecompressWindow(t *testing.T) {
	mod := append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte("verifier module "), 500)...)
	br := Precompress(mod)
	narrow, wide := encode(mod, narrowWindow), encode(mod, wideWindow)
	if windowBits(narrow) != 22 || windowBits(wide) != 24 {
		t.Fatalf("windows %d and %d", windowBits(narrow), windowBits(wide))
	}
	if !IsPrecompressed(br, mod) || len(br) != min(len(narrow), len(wide)) {
		t.Fatalf("Precompress: %d bytes, of %d and %d; decodes %v", len(br), len(narrow), len(wide), IsBrotliOf(br, mod))
	}
	other := encode(mod, 20)
	if !IsBrotliOf(other, mod) || IsPrecompressed(other, mod) || windowBits(other) != 20 {
		t.Errorf("window 20: decodes %v, taken as precompressed %v, window %d", IsBrotliOf(other, mod), IsPrecompressed(other, mod), windowBits(other))
	}
	if IsPrecompressed(br, append(mod, 'x')) {
		t.Error("an encoding of another module was taken as precompressed")
	}
}
