package phototest

import (
	"bytes"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"
)

// TestPathFindsTheCoreImages: from this package's directory, two levels
// below shared/, the path leads to the committed photo.
func TestPathFindsTheCoreImages(t *testing.T) {
	want, err := filepath.Abs(filepath.Join("..", "..", "testdata", "images", "photo.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	if got := Path(t, "photo.jpg"); got != want {
		t.Fatalf("Path(photo.jpg) = %s, want %s", got, want)
	}
	if b, err := os.ReadFile(want); err != nil || !bytes.Equal(Read(t, "photo.jpg"), b) {
		t.Fatalf("Read(photo.jpg) differs from the file (%v)", err)
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
