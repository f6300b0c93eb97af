package verifierwasm

import (
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
