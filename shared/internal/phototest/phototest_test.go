package phototest

import (
	"bytes"
	"image"
	"image/jpeg"
	"path/filepath"
	"strings"
	"testing"
)

// TestPathFindsTheCoreImages: from this package's directory, two levels
// below shared/, the path leads to the committed photo, and Read gives
// its bytes (a JPEG file).
func TestPathFindsTheCoreImages(t *testing.T) {
	p := Path(t, "photo.jpg")
	if want := filepath.Join("shared", "testdata", "images", "photo.jpg"); !filepath.IsAbs(p) || !strings.HasSuffix(p, string(filepath.Separator)+want) {
		t.Fatalf("Path(photo.jpg) = %s, want an absolute path ending in %s", p, want)
	}
	if b := Read(t, "photo.jpg"); !bytes.HasPrefix(b, []byte{0xff, 0xd8, 0xff}) {
		t.Fatalf("Read(photo.jpg) starts % x, want a JPEG", b[:min(len(b), 4)])
	}
}

// TestDecodeAndJPEG: the test photo decodes at its size, and JPEG writes
// a file the standard decoder reads back at the same size.
func TestDecodeAndJPEG(t *testing.T) {
	m := Decode(t, "photo.jpg")
	if b := m.Bounds(); b != image.Rect(0, 0, 480, 300) {
		t.Fatalf("photo.jpg bounds %v, want 480×300", b)
	}
	back, err := jpeg.Decode(bytes.NewReader(JPEG(t, m, 90)))
	if err != nil {
		t.Fatal(err)
	}
	if back.Bounds() != m.Bounds() {
		t.Fatalf("JPEG round trip bounds %v, want %v", back.Bounds(), m.Bounds())
	}
}
