// Package hostile builds the uploads that once made the origin do
// unbounded work or answer 500, for the tests that keep them answered
// early and within the memory bound (in-process and against the origin
// binary under an address-space limit). It is test support: nothing in a
// production binary imports it.
package hostile

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
	"testing"

	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/c2pa/c2patest"
)

// PaddedJPEG is a valid 400×300 JPEG padded after SOI with n empty COM
// segments (4 bytes each).
func PaddedJPEG(t testing.TB, n int) []byte {
	t.Helper()
	j := greyJPEG(t, 400, 300, 7)
	out := append(make([]byte, 0, len(j)+4*n), j[:2]...)
	for range n {
		out = append(out, 0xff, 0xfe, 0x00, 0x02)
	}
	return append(out, j[2:]...)
}

// greyJPEG is a w×h grey JPEG (quality 90) of a ramp with slope step
// along the rows, so that neighbouring test files differ.
func greyJPEG(t testing.TB, w, h, step int) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i*step + i/w)
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// StripPNG is an 8-bit grey PNG of w×h.
func StripPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i % 251)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// BigStoreJPEG is a 640×480 JPEG carrying a C2PA store 256 KiB under the
// 16 MiB limit: a manifest added on top of it passes the limit.
func BigStoreJPEG(t testing.TB) []byte {
	t.Helper()
	pad := make([]byte, c2pa.MaxStoreBytes-256<<10)
	for i := range pad {
		pad[i] = byte(i * 31)
	}
	big, _, _, err := c2pa.Embed(greyJPEG(t, 640, 480, 13), c2pa.Manifest{ClaimGenerator: "test/1", Title: "big.jpg", Format: "image/jpeg",
		Assertions: []c2pa.Assertion{{Label: "org.example.padding", Data: map[string]any{"pad": pad}}}}, c2patest.NewSigner(t, c2patest.CertOptions{}))
	if err != nil {
		t.Fatalf("building the large C2PA store: %v", err)
	}
	return big
}
