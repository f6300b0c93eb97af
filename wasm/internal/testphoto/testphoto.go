// Package testphoto gives the module's tests their photograph (the
// watermark package's test picture, meadow.jpg) and the pictures they
// make from it, so that each test says what it does with the picture
// rather than how it gets one.
package testphoto

import (
	"bytes"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/watermark"
)

// Key is the watermark payload the tests embed.
const Key = 0x0123456789abcdef

// File returns meadow.jpg's bytes. Tests run in their package's
// directory: the file is found from the nearest directory above that
// holds go.mod, the repository's root.
func File(t testing.TB) []byte {
	t.Helper()
	root := "."
	for range 8 {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		root = filepath.Join(root, "..")
	}
	raw, err := os.ReadFile(filepath.Join(root, "shared", "watermark", "testdata", "meadow.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// Image returns meadow.jpg decoded (imagex.Decode, default limits).
func Image(t testing.TB) image.Image {
	t.Helper()
	img, err := imagex.Decode(File(t), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	return img.Image
}

// Marked returns img with Key embedded as its watermark.
func Marked(t testing.TB, img image.Image) image.Image {
	t.Helper()
	m, err := watermark.Embed(img, Key)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// JPEG returns img encoded as a JPEG of the given quality.
func JPEG(t testing.TB, img image.Image, quality int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
