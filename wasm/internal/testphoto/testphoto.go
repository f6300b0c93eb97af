// Package testphoto gives the module's tests their photograph (the
// watermark package's test picture, meadow.jpg) and the pictures they
// make from it, so that each test says what it does with the picture
// rather than how it gets one.
package testphoto

import (
	"bytes"
	"image"
	"image/jpeg"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/imagex/jpegtest"
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
// shown upright as img under EXIF orientation o, 1 to 8: the pixels
// stored turned by Orient's inverse, and an Exif segment with the tag.
// With o 0 it is img encoded as it is, with no Exif segment.
func JPEG(t testing.TB, img image.Image, q, o int) []byte {
	t.Helper()
	if o != 0 {
		// Orient's inverse: 6 and 8 turn opposite ways, the other
		// orientations undo themselves.
		inv := map[int]int{6: 8, 8: 6}[o]
		if inv == 0 {
			inv = o
		}
		img = imagex.Orient(img, inv)
	}
	buf := new(bytes.Buffer)
	if err := jpeg.Encode(buf, img, &jpeg.Options{Quality: q}); err != nil {
		t.Fatal(err)
	}
	if o == 0 {
		return buf.Bytes()
	}
	return jpegtest.WithOrientation(buf.Bytes(), uint16(o), false)
}
