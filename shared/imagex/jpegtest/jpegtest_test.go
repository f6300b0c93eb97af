package jpegtest_test

import (
	"bytes"
	"image"
	"image/jpeg"
	"testing"

	"github.com/provenant/provenant/shared/imagex/jpegtest"
)

// TestWithOrientation: the file keeps decoding to the same picture, its
// original bytes follow the new segment unchanged, the tag value is
// written in the byte order asked for, and the input is left as it was.
func TestWithOrientation(t *testing.T) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, 24, 16)), nil); err != nil {
		t.Fatal(err)
	}
	orig := append([]byte(nil), buf.Bytes()...)
	for _, tc := range []struct {
		bigEndian bool
		order     string // the TIFF header's byte order mark
		tag       []byte // the orientation entry: tag, type SHORT, count 1, value
	}{
		{false, "II", []byte{0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0}},
		{true, "MM", []byte{0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6}},
	} {
		out := jpegtest.WithOrientation(buf.Bytes(), 6, tc.bigEndian)
		if !bytes.Equal(buf.Bytes(), orig) {
			t.Fatal("the input was modified")
		}
		if !bytes.HasPrefix(out, []byte{0xFF, 0xD8, 0xFF, 0xE1}) || !bytes.HasSuffix(out, orig[2:]) {
			t.Errorf("bigEndian %v: not SOI, APP1, then the original segments", tc.bigEndian)
		}
		if !bytes.Contains(out, []byte("Exif\x00\x00"+tc.order)) || !bytes.Contains(out, tc.tag) {
			t.Errorf("bigEndian %v: no Exif header or orientation entry % x", tc.bigEndian, tc.tag)
		}
		m, err := jpeg.Decode(bytes.NewReader(out))
		if err != nil || m.Bounds().Dx() != 24 || m.Bounds().Dy() != 16 {
			t.Errorf("bigEndian %v: decode: %v", tc.bigEndian, err)
		}
	}
}
