// Package camera builds the JPEG file a camera or phone writes for a
// picture held at an angle: the pixels stored as the sensor read them and
// an EXIF orientation tag that turns them upright on display. It lives
// apart from jpegtest, which imports nothing so that imagex's own tests
// can use it, because it turns pixels with imagex.Orient.
package camera

import (
	"bytes"
	"image"
	"image/jpeg"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/imagex/jpegtest"
)

// JPEG returns the JPEG file (quality q) a camera writes for a picture
// shown upright as img under EXIF orientation o, 1 to 8: the pixels
// stored turned by imagex.Orient's inverse, and an Exif segment with the
// tag (little-endian). With o 0 it is img encoded as it is, with no Exif
// segment.
func JPEG(tb testing.TB, img image.Image, q, o int) []byte {
	tb.Helper()
	if o < 0 || o > 8 {
		tb.Fatalf("EXIF orientation %d, want 0 to 8", o)
	}
	if o != 0 {
		// 6 and 8 turn a quarter opposite ways; every other orientation
		// (a mirror or a half turn) undoes itself.
		inv := o
		switch o {
		case 6:
			inv = 8
		case 8:
			inv = 6
		}
		img = imagex.Orient(img, inv)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
		tb.Fatal(err)
	}
	if o == 0 {
		return buf.Bytes()
	}
	return jpegtest.WithOrientation(buf.Bytes(), uint16(o), false)
}
