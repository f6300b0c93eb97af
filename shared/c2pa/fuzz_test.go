package c2pa_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/c2pa"
)

// typed reports whether err is one of the errors the package documents
// for bad input.
func typed(err error) bool {
	for _, want := range []error{c2pa.ErrUnsupportedFormat, c2pa.ErrBadFile, c2pa.ErrMalformed, c2pa.ErrNoManifest} {
		if errors.Is(err, want) {
			return true
		}
	}
	return false
}

// FuzzRead: any bytes give a report or a typed error, never a panic; a
// "valid" report carries no failure code.
func FuzzRead(f *testing.F) {
	f.Add([]byte{0xff, 0xd8, 0xff, 0xd9})
	f.Add([]byte("\x89PNG\r\n\x1a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := c2pa.Read(data, time.Now())
		if err != nil {
			if !typed(err) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if (r.State == "valid") != (len(r.Codes) == 0) || (r.State != "valid" && r.State != "invalid") {
			t.Fatalf("state %q with codes %v", r.State, r.Codes)
		}
	})
}

// FuzzExtract: Extract and Strip agree — a stripped file carries no
// store, and stripping shortens the file by at least the store's size.
func FuzzExtract(f *testing.F) {
	f.Add([]byte{0xff, 0xd8, 0xff, 0xd9})
	f.Fuzz(func(t *testing.T, data []byte) {
		store, err := c2pa.Extract(data)
		if err != nil {
			if !typed(err) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if len(store) > c2pa.MaxStoreBytes {
			t.Fatalf("store of %d bytes", len(store))
		}
		stripped, err := c2pa.Strip(data)
		if err != nil {
			t.Fatalf("Extract worked but Strip failed: %v", err)
		}
		if store == nil {
			if !bytes.Equal(stripped, data) {
				t.Fatal("Strip changed a file without a store")
			}
			return
		}
		if len(data)-len(stripped) < len(store) {
			t.Fatalf("stripped %d bytes for a %d-byte store", len(data)-len(stripped), len(store))
		}
		if again, err := c2pa.Extract(stripped); err != nil || again != nil {
			t.Fatalf("stripped file still carries a store (%d bytes, %v)", len(again), err)
		}
	})
}
