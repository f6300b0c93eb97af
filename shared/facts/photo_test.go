package facts

import (
	"image"
	"os"
	"testing"

	"golang.org/x/image/draw"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/watermark"
)

// The test photos these tests mark and verify.
const (
	meadowJPEG = "../watermark/testdata/meadow.jpg"
	photoJPEG  = "../testdata/images/photo.jpg"
)

// markedPhoto is the photo at path decoded, scaled to w×h (a size of zero
// keeps the photo's own) and watermarked with payload, as a signer hands
// it out before encoding.
func markedPhoto(t testing.TB, path string, w, h int, payload watermark.Payload) image.Image {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return markedPicture(t, raw, w, h, payload)
}

// markedPicture is markedPhoto for a file already in memory.
func markedPicture(t testing.TB, raw []byte, w, h int, payload watermark.Payload) image.Image {
	t.Helper()
	src, err := imagex.Decode(raw, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	img := src.Image
	if w > 0 && h > 0 {
		scaled := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.CatmullRom.Scale(scaled, scaled.Bounds(), img, img.Bounds(), draw.Src, nil)
		img = scaled
	}
	marked, err := watermark.Embed(img, payload)
	if err != nil {
		t.Fatal(err)
	}
	return marked
}
