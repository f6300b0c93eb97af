package c2pa_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/allocs"
	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/internal/phototest"
)

// paddedJPEG is a valid 400×300 JPEG with n empty COM segments after SOI.
func paddedJPEG(t testing.TB, n int) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 400, 300))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	b := phototest.JPEG(t, img, jpeg.DefaultQuality)
	out := make([]byte, 0, len(b)+4*n)
	out = append(out, b[:2]...)
	for range n {
		out = append(out, 0xff, 0xfe, 0x00, 0x02)
	}
	return append(out, b[2:]...)
}

// paddedPNG is a valid 400×300 PNG with n empty private ancillary chunks
// ("prVt") before its image data.
func paddedPNG(t testing.TB, n int) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 400, 300))
	img.Set(1, 1, color.Gray{Y: 200})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	src := b.Bytes()
	ihdrEnd := 8 + 12 + 13
	chunk := binary.BigEndian.AppendUint32(nil, 0)
	chunk = append(chunk, "prVt"...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE([]byte("prVt")))
	out := append([]byte(nil), src[:ihdrEnd]...)
	for range n {
		out = append(out, chunk...)
	}
	return append(out, src[ihdrEnd:]...)
}

// TestSegmentPaddingIsBounded: a valid image padded with millions of
// empty segments (a JPEG of 8.3 million empty COM segments, 32 MiB, took
// one verify from 89 to 1,321 MiB when the walk built an entry for each)
// is refused as malformed after MaxSegments steps, allocating next to
// nothing; the same image with fewer segments than the cap is walked.
func TestSegmentPaddingIsBounded(t *testing.T) {
	tests := []struct {
		name string
		file []byte
		want error
	}{
		{"jpeg 8.3M COM", paddedJPEG(t, (32<<20-64<<10)/4), c2pa.ErrMalformed},
		{"jpeg at the cap", paddedJPEG(t, c2pa.MaxSegments-8), nil},
		{"png 2.7M chunks", paddedPNG(t, (32<<20-64<<10)/12), c2pa.ErrMalformed},
		{"png at the cap", paddedPNG(t, c2pa.MaxSegments-8), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var store []byte
			var err error
			n := allocs.During(func() { store, err = c2pa.Extract(tt.file) })
			if !errors.Is(err, tt.want) || store != nil {
				t.Fatalf("Extract: %d bytes, %v; want no store and %v", len(store), err, tt.want)
			}
			if n > 64<<10 {
				t.Errorf("Extract of a %d MiB file allocated %d KiB, want under 64 KiB", len(tt.file)>>20, n>>10)
			}
			if _, err := c2pa.Read(tt.file, time.Now()); !errors.Is(err, tt.want) && !(tt.want == nil && errors.Is(err, c2pa.ErrNoManifest)) {
				t.Fatalf("Read: %v, want %v", err, tt.want)
			}
			if tt.want != nil {
				if _, err := c2pa.Strip(tt.file); !errors.Is(err, tt.want) {
					t.Fatalf("Strip: %v, want %v", err, tt.want)
				}
			}
		})
	}
}

// TestManyIDATChunksAreWalked: image data cut into more IDAT chunks than
// MaxSegments is not padding (encoders choose the chunk size).
func TestManyIDATChunksAreWalked(t *testing.T) {
	var b []byte
	b = append(b, "\x89PNG\r\n\x1a\n"...)
	idat := binary.BigEndian.AppendUint32(nil, 0)
	idat = append(idat, "IDAT"...)
	idat = binary.BigEndian.AppendUint32(idat, crc32.ChecksumIEEE([]byte("IDAT")))
	for range c2pa.MaxSegments + 10 {
		b = append(b, idat...)
	}
	iend := binary.BigEndian.AppendUint32(nil, 0)
	iend = append(iend, "IEND"...)
	iend = binary.BigEndian.AppendUint32(iend, crc32.ChecksumIEEE([]byte("IEND")))
	b = append(b, iend...)
	if store, err := c2pa.Extract(b); err != nil || store != nil {
		t.Fatalf("Extract: %d bytes, %v; want no store and no error", len(store), err)
	}
}
