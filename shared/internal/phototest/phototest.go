// Package phototest gives the core's tests their photos (the files in
// shared/testdata/images), decoded the way the core decodes an upload, and
// encodes pictures as JPEG files, so that every package's tests read and
// write pictures the same way.
package phototest

import (
	"bytes"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
)

// Path is the path of the test photo name: shared/testdata/images/name in
// the module that holds the working directory (a test runs in its
// package's directory, at any depth below the module root). It fails tb
// when no module root is found above the working directory.
func Path(tb testing.TB, name string) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "shared", "testdata", "images", name)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatalf("phototest: no go.mod above the working directory for %s", name)
		}
		dir = parent
	}
}

// Read returns the bytes of the test photo name, failing tb if it cannot
// be read.
func Read(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(Path(tb, name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Decode returns the test photo name as imagex.Decode gives it under
// limits.Default (the orientation its EXIF states applied), failing tb if
// it does not decode.
func Decode(tb testing.TB, name string) image.Image {
	tb.Helper()
	img, err := imagex.Decode(Read(tb, name), limits.Default())
	if err != nil {
		tb.Fatalf("decode %s: %v", name, err)
	}
	return img.Image
}

// JPEG is m encoded by the standard library's encoder at quality q,
// failing tb if it cannot be encoded.
func JPEG(tb testing.TB, m image.Image, q int) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: q}); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}
