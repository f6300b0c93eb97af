// Package testphoto gives the module's tests their photograph (the
// watermark package's test picture, meadow.jpg) and the pictures they
// make from it, so that each test says what it does with the picture
// rather than how it gets one.
package testphoto

import (
	"image"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/imagex/jpegtest/camera"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/watermark"
	"github.com/provenant/provenant/wasm/wasmtest"
)

// Key is the watermark payload the tests embed.
const Key = 0x0123456789abcdef

// File returns meadow.jpg's bytes.
func File(t testing.TB) []byte {
	t.Helper()
	raw, err := wasmtest.ReadRepoFile("shared/watermark/testdata/meadow.jpg")
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

// JPEG returns the JPEG file (quality q) a camera writes for a picture
// shown upright as img under EXIF orientation o (camera.JPEG): o 0 is img
// encoded as it is, with no Exif segment.
func JPEG(t testing.TB, img image.Image, q, o int) []byte {
	t.Helper()
	return camera.JPEG(t, img, q, o)
}
