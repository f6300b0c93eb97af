package imagex

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"reflect"
	"runtime"
	"testing"

	"github.com/provenant/provenant/shared/imagex/pngtest"
	"github.com/provenant/provenant/shared/limits"
)

// pngHeader returns a PNG with the given IHDR fields, an optional tRNS
// chunk (and a PLTE for colour type 3), one IDAT of idat and an IEND.
func pngHeader(w, h uint32, depth, colorType, interlace byte, trns bool, idat []byte) []byte {
	pw := pngtest.New()
	pw.IHDR(w, h, depth, colorType, interlace)
	if colorType == 3 {
		pw.Chunk("PLTE", []byte{0, 0, 0, 255, 255, 255})
	}
	if trns {
		pw.Chunk("tRNS", []byte{0, 0, 0, 0, 0, 0}[:map[byte]int{0: 2, 2: 6, 3: 1}[colorType]])
	}
	pw.Chunk("IDAT", idat)
	pw.Chunk("IEND", nil)
	return pw.Bytes()
}

// jpegHeader returns SOI, optional APP0 JFIF / APP14 Adobe segments, a
// frame header (SOF0, or SOF2 when progressive) with the given component
// ids and sampling bytes, and the start of a scan: enough for
// image/jpeg.DecodeConfig.
func jpegHeader(w, h uint16, progressive bool, ids, hv []byte, jfif bool, adobe int) []byte {
	b := []byte{0xFF, 0xD8}
	seg := func(marker byte, data []byte) {
		b = append(b, 0xFF, marker, byte((len(data)+2)>>8), byte(len(data)+2))
		b = append(b, data...)
	}
	if jfif {
		seg(0xE0, []byte("JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"))
	}
	if adobe >= 0 {
		seg(0xEE, append([]byte("Adobe\x00\x64\x00\x00\x00\x00"), byte(adobe)))
	}
	sof := []byte{8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), byte(len(ids))}
	for i := range ids {
		sof = append(sof, ids[i], hv[i], 0)
	}
	marker := byte(0xC0)
	if progressive {
		marker = 0xC2
	}
	seg(marker, sof)
	seg(0xDA, []byte{1, 1, 0, 0, 63, 0})
	return b
}

// TestDecodeBytesFromHeader: DecodeConfig reads, from the header alone,
// what the standard decoder will allocate for the pixel type it outputs.
func TestDecodeBytesFromHeader(t *testing.T) {
	const w, h = 1000, 600
	const px = w * h
	ycc := []byte{1, 2, 3}
	// 4:2:0 pads to 16×16 MCUs: 1008×608 luma samples plus a quarter each of chroma.
	const y420 = 1008 * 608
	tests := []struct {
		name string
		file []byte
		want int64
	}{
		{"png gray 8", pngHeader(w, h, 8, 0, 0, false, nil), px},
		{"png gray 1", pngHeader(w, h, 1, 0, 0, false, nil), px},
		{"png gray 8 tRNS", pngHeader(w, h, 8, 0, 0, true, nil), 4 * px},
		{"png gray 16", pngHeader(w, h, 16, 0, 0, false, nil), 2 * px},
		{"png gray 16 tRNS", pngHeader(w, h, 16, 0, 0, true, nil), 8 * px},
		{"png rgb 8", pngHeader(w, h, 8, 2, 0, false, nil), 4 * px},
		{"png rgb 16", pngHeader(w, h, 16, 2, 0, false, nil), 8 * px},
		{"png paletted", pngHeader(w, h, 8, 3, 0, false, nil), px},
		{"png gray+alpha 16", pngHeader(w, h, 16, 4, 0, false, nil), 8 * px},
		{"png rgba 8", pngHeader(w, h, 8, 6, 0, false, nil), 4 * px},
		{"png rgba 16", pngHeader(w, h, 16, 6, 0, false, nil), 8 * px},
		{"png rgba 8 interlaced", pngHeader(w, h, 8, 6, 1, false, nil), 8 * px},
		{"jpeg gray", jpegHeader(w, h, false, []byte{1}, []byte{0x11}, true, -1), px},
		{"jpeg 4:2:0", jpegHeader(w, h, false, ycc, []byte{0x22, 0x11, 0x11}, true, -1), y420 * 3 / 2},
		{"jpeg 4:2:0 progressive", jpegHeader(w, h, true, ycc, []byte{0x22, 0x11, 0x11}, true, -1), 5 * y420 * 3 / 2},
		{"jpeg 4:2:2", jpegHeader(w, h, false, ycc, []byte{0x21, 0x11, 0x11}, true, -1), 1008 * 600 * 2},
		{"jpeg 4:4:4", jpegHeader(w, h, false, ycc, []byte{0x11, 0x11, 0x11}, true, -1), 3 * px},
		{"jpeg 4:4:4 progressive", jpegHeader(w, h, true, ycc, []byte{0x11, 0x11, 0x11}, true, -1), 15 * px},
		{"jpeg RGB ids", jpegHeader(w, h, false, []byte("RGB"), []byte{0x11, 0x11, 0x11}, false, -1), 3*px + 4*px},
		{"jpeg Adobe RGB", jpegHeader(w, h, false, ycc, []byte{0x11, 0x11, 0x11}, false, 0), 3*px + 4*px},
		{"jpeg CMYK", jpegHeader(w, h, false, []byte{1, 2, 3, 4}, []byte{0x11, 0x11, 0x11, 0x11}, false, 2), 4*px + 4*px},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info, err := DecodeConfig(tt.file, limits.Default())
			if err != nil {
				t.Fatalf("DecodeConfig error = %v", err)
			}
			if info.DecodeBytes != tt.want {
				t.Errorf("DecodeBytes = %d, want %d (%.2f B/px, want %.2f)", info.DecodeBytes, tt.want,
					float64(info.DecodeBytes)/px, float64(tt.want)/px)
			}
		})
	}
}

// TestDecodeBytesLimit: the 7000×7000 16-bit RGBA PNG of the hostile test
// (392 MB decoded) passes the default 512 MiB and is refused below it,
// as too many pixels with the bytes it needs.
func TestDecodeBytesLimit(t *testing.T) {
	b := pngHeader(7000, 7000, 16, 6, 0, false, nil)
	lim := limits.Default()
	info, err := DecodeConfig(b, lim)
	if err != nil {
		t.Fatalf("DecodeConfig under default limits: %v", err)
	}
	if want := int64(8 * 7000 * 7000); info.DecodeBytes != want {
		t.Fatalf("DecodeBytes = %d, want %d", info.DecodeBytes, want)
	}
	// As docs/api.md says: two verifies fit the default 1 GiB decode
	// budget, a sign does not.
	if v, m := info.Cost(UseVerify), info.Cost(UseMark); v <= 0 || 2*v > 1<<30 || m <= 1<<30 {
		t.Errorf("Cost(UseVerify) = %d, Cost(UseMark) = %d; want two verifies within 1 GiB and a sign over it", v, m)
	}
	lim.MaxDecodeBytes = info.DecodeBytes - 1
	_, err = DecodeConfig(b, lim)
	var de *DimensionError
	if !errors.Is(err, ErrTooManyPixels) || !errors.As(err, &de) {
		t.Fatalf("DecodeConfig error = %v, want a *DimensionError (ErrTooManyPixels)", err)
	}
	if de.NeedBytes != info.DecodeBytes || de.MaxBytes != lim.MaxDecodeBytes || de.Width != 7000 {
		t.Errorf("DimensionError = %+v, want NeedBytes %d, MaxBytes %d, 7000 wide", de, info.DecodeBytes, lim.MaxDecodeBytes)
	}
}

// TestPNGHugeDimensions: a PNG declaring 2147483647×2147483647 is too many
// pixels (the standard decoder would call the header corrupt).
func TestPNGHugeDimensions(t *testing.T) {
	for _, d := range []uint32{1<<31 - 1, 1 << 20, 65536} {
		_, err := Decode(pngHeader(d, d, 8, 6, 0, false, nil), limits.Default())
		var de *DimensionError
		if !errors.As(err, &de) || !errors.Is(err, ErrTooManyPixels) || errors.Is(err, ErrCorrupt) {
			t.Fatalf("Decode(%d×%d PNG) error = %v, want only ErrTooManyPixels", d, d, err)
		}
		if de.Width != int(d) || de.Height != int(d) {
			t.Errorf("DimensionError = %d×%d, want %d×%d", de.Width, de.Height, d, d)
		}
	}
}

// pixBytes is the memory of a decoded image's pixel buffers: the planes
// of a YCbCr image, the Pix of every other type the decoders return; -1
// for a type with neither.
func pixBytes(img image.Image) int64 {
	switch m := img.(type) {
	case *image.YCbCr:
		return int64(len(m.Y) + len(m.Cb) + len(m.Cr))
	case *image.NYCbCrA:
		return int64(len(m.Y) + len(m.Cb) + len(m.Cr) + len(m.A))
	}
	if v := reflect.ValueOf(img); v.Kind() == reflect.Pointer && v.Elem().Kind() == reflect.Struct {
		if pix := v.Elem().FieldByName("Pix"); pix.IsValid() && pix.Type() == reflect.TypeFor[[]uint8]() {
			return int64(pix.Len())
		}
	}
	return -1
}

// TestDecodeBytesMatchesDecoder: for real encodings, the estimate bounds
// what Decode allocates (measured) and is not far above it.
func TestDecodeBytesMatchesDecoder(t *testing.T) {
	const w, h = 1200, 800
	rgba := image.NewNRGBA(image.Rect(0, 0, w, h))
	n64 := image.NewNRGBA64(image.Rect(0, 0, w, h))
	gray := image.NewGray(image.Rect(0, 0, w, h))
	pal := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{color.Black, color.White, color.Gray{128}})
	for i := range rgba.Pix {
		rgba.Pix[i] = uint8(i * 7)
	}
	for i := range n64.Pix {
		n64.Pix[i] = uint8(i * 13)
	}
	for i := range gray.Pix {
		gray.Pix[i], pal.Pix[i] = uint8(i*3), uint8(i%3)
	}
	enc := func(f func(*bytes.Buffer) error) []byte {
		var buf bytes.Buffer
		if err := f(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	tests := []struct {
		name string
		file []byte
	}{
		{"png nrgba", enc(func(b *bytes.Buffer) error { return png.Encode(b, rgba) })},
		{"png nrgba64", enc(func(b *bytes.Buffer) error { return png.Encode(b, n64) })},
		{"png gray", enc(func(b *bytes.Buffer) error { return png.Encode(b, gray) })},
		{"png paletted", enc(func(b *bytes.Buffer) error { return png.Encode(b, pal) })},
		{"jpeg 4:2:0", enc(func(b *bytes.Buffer) error { return jpeg.Encode(b, rgba, nil) })},
		{"jpeg gray", enc(func(b *bytes.Buffer) error { return jpeg.Encode(b, gray, nil) })},
		{"gif", enc(func(b *bytes.Buffer) error { return gif.Encode(b, pal, nil) })},
		{"webp lossy", readFile(t, "images/photo.webp")},
		{"webp lossless", readFile(t, "images/lossless.webp")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info, err := DecodeConfig(tt.file, limits.Default())
			if err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			img, err := Decode(tt.file, limits.Default())
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			out := pixBytes(img.Image)
			alloc := int64(after.TotalAlloc - before.TotalAlloc)
			// The decoders' own tables and buffers (zlib window, Huffman
			// tables, row buffers) are not pixels: allow 256 KiB for them.
			if alloc > info.DecodeBytes+256<<10 {
				t.Errorf("Decode allocated %d bytes, estimate %d", alloc, info.DecodeBytes)
			}
			if out > info.DecodeBytes || out < info.DecodeBytes/2 {
				t.Errorf("decoded %T holds %d bytes, estimate %d", img.Image, out, info.DecodeBytes)
			}
		})
	}
}
