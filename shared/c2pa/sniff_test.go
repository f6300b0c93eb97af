package c2pa_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/c2pa/sniff"
)

// TestSniffAgreesWithTheReader: the light sniffer says yes for a signed
// JPEG and PNG and for a malformed store, no for the same pictures
// without one and for other formats.
func TestSniffAgreesWithTheReader(t *testing.T) {
	var signed []byte
	for _, c := range signedCases(t) {
		if !sniff.MayCarry(c.out) {
			t.Errorf("%s: a signed picture is not recognised", c.name)
		}
		if sniff.MayCarry(c.file) {
			t.Errorf("%s: a picture without a manifest is said to carry one", c.name)
		}
		if c.name == "jpeg" {
			signed = c.out
		}
	}
	// A store announced in APP11 but cut short is malformed, so it counts.
	cut := bytes.Clone(signed)
	i := bytes.Index(cut, sniff.StoreUUID[:])
	cut[i-13]++ // the store box claims a byte more than the segments carry
	if _, err := c2pa.Extract(cut); !errors.Is(err, c2pa.ErrMalformed) {
		t.Fatalf("the cut store: %v", err)
	}
	if !sniff.MayCarry(cut) {
		t.Error("a malformed store is not recognised")
	}
	if sniff.MayCarry([]byte("GIF89a")) {
		t.Error("a GIF is said to carry a manifest")
	}
}

// FuzzMayCarry: whenever Extract finds a store, or reports one
// malformed, MayCarry says the file may carry one (the browser module
// loads the C2PA module only then, so a false no would change a verdict).
func FuzzMayCarry(f *testing.F) {
	f.Add([]byte{0xff, 0xd8, 0xff, 0xd9})
	f.Add([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x00caBX\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		store, err := c2pa.Extract(data)
		if (err == nil && len(store) > 0) || errors.Is(err, c2pa.ErrMalformed) {
			if !sniff.MayCarry(data) {
				t.Fatalf("Extract: %d bytes, %v; MayCarry said no", len(store), err)
			}
		}
	})
}
