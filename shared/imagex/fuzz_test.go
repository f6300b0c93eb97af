package imagex

import (
	"bytes"
	"errors"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/shared/imagex/jpegtest"
	"github.com/provenant/provenant/shared/limits"
)

// fuzzLimits are the limits the fuzzers decode under: pixels, sides and
// sizes small enough for the fuzzer to reach every refusal, and
// decodeBytes of decode memory.
func fuzzLimits(decodeBytes int64) limits.Limits {
	lim := limits.Default()
	lim.MaxPixels = 1 << 18
	lim.MaxSide = 4096
	lim.MaxUploadBytes = 1 << 20
	lim.MaxDecodeBytes = decodeBytes
	return lim
}

// addFileSeeds adds each of the files names under dir to f's corpus.
func addFileSeeds(f *testing.F, dir string, names ...string) {
	f.Helper()
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzDecode checks the decode boundary: any bytes give either an image within
// the limits or an error wrapping one of the sentinels, never a panic.
func FuzzDecode(f *testing.F) {
	// Small seeds keep the instrumented decoders fast: tiny encodings of
	// every format plus the header-only bombs.
	addFileSeeds(f, filepath.Join("..", "testdata"), "images/tiny.webp", "images/tiny-lossless.webp", "images/gray.jpg",
		"bombs/png-100000x100000.png", "bombs/gif-huge-screen.gif", "bombs/jpeg-60000x60000.jpg", "bombs/html-named.png")
	small := image.NewRGBA(image.Rect(0, 0, 16, 10))
	for i := range small.Pix {
		small.Pix[i] = uint8(i * 37)
	}
	var buf bytes.Buffer
	_ = jpeg.Encode(&buf, small, &jpeg.Options{Quality: 75})
	f.Add(bytes.Clone(buf.Bytes()))
	f.Add(jpegtest.WithOrientation(buf.Bytes(), 6, true))
	buf.Reset()
	_ = png.Encode(&buf, small)
	f.Add(bytes.Clone(buf.Bytes()))
	buf.Reset()
	_ = gif.Encode(&buf, small, nil)
	f.Add(bytes.Clone(buf.Bytes()))
	lim := fuzzLimits(limits.DefaultMaxDecodeBytes)
	f.Fuzz(func(t *testing.T, b []byte) {
		img, err := Decode(b, lim)
		if err != nil {
			for _, s := range []error{ErrEmpty, ErrTooLarge, ErrUnsupportedFormat, ErrTooManyPixels, ErrCorrupt} {
				if errors.Is(err, s) {
					return
				}
			}
			t.Fatalf("Decode error %v wraps no sentinel", err)
		}
		bd := img.Image.Bounds()
		if bd.Min.X != 0 || bd.Min.Y != 0 || int64(bd.Dx())*int64(bd.Dy()) > lim.MaxPixels {
			t.Fatalf("Decode bounds %v outside limits", bd)
		}
		l := ToLuma(img.Image)
		if len(l.Pix) != bd.Dx()*bd.Dy() {
			t.Fatalf("luma %d bytes for %v", len(l.Pix), bd)
		}
	})
}

// FuzzJPEGOrientation checks the hand-written EXIF reader: never a panic,
// always a value in 1..8.
func FuzzJPEGOrientation(f *testing.F) {
	base, err := os.ReadFile(filepath.Join("..", "testdata", "images", "photo.jpg"))
	if err != nil {
		f.Fatal(err)
	}
	for o := uint16(0); o < 10; o++ {
		f.Add(jpegtest.WithOrientation(base[:64], o, o%2 == 0))
	}
	f.Add([]byte{0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x02})
	f.Fuzz(func(t *testing.T, b []byte) {
		if o := JPEGOrientation(b); o < 1 || o > 8 {
			t.Fatalf("JPEGOrientation = %d", o)
		}
	})
}

// FuzzHeader checks the header readers behind DecodeConfig's memory
// estimate: never a panic; an accepted header has a positive DecodeBytes
// within MaxDecodeBytes; and when the image then decodes, its pixels fit in
// that estimate.
func FuzzHeader(f *testing.F) {
	// Seeds: testdata/fuzz/FuzzHeader (crafted headers of each colour type,
	// sampling and chunk layout) plus the decodable images below.
	addFileSeeds(f, filepath.Join("..", "testdata"), "images/tiny.webp", "images/tiny-lossless.webp", "images/gray.jpg",
		"bombs/png-100000x100000.png", "bombs/gif-huge-screen.gif")
	lim := fuzzLimits(16 << 20)
	f.Fuzz(func(t *testing.T, b []byte) {
		info, err := DecodeConfig(b, lim)
		if err != nil {
			return
		}
		if info.DecodeBytes <= 0 || info.DecodeBytes > lim.MaxDecodeBytes {
			t.Fatalf("DecodeBytes = %d for %dx%d %s", info.DecodeBytes, info.Width, info.Height, info.Format)
		}
		if c := info.Cost(UseVerify); c < info.DecodeBytes || info.Cost(UseMark) < c {
			t.Fatalf("Cost(UseVerify) = %d, Cost(UseMark) = %d, DecodeBytes = %d", c, info.Cost(UseMark), info.DecodeBytes)
		}
		img, err := Decode(b, lim)
		if err != nil {
			return
		}
		if n := pixBytes(img.Image); n > info.DecodeBytes {
			t.Fatalf("decoded %T holds %d bytes, estimate %d", img.Image, n, info.DecodeBytes)
		}
	})
}
