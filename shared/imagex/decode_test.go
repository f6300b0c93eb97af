package imagex

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/shared/imagex/jpegtest"
	"github.com/provenant/provenant/shared/limits"
)

func TestDecodeFormats(t *testing.T) {
	tests := []struct {
		file   string
		format Format
		size   image.Point
	}{
		{"images/photo.jpg", JPEG, image.Pt(480, 300)},
		{"images/gray.jpg", JPEG, image.Pt(160, 100)},
		{"images/photo.png", PNG, image.Pt(160, 100)},
		{"images/photo.gif", GIF, image.Pt(160, 100)},
		{"images/photo.webp", WebP, image.Pt(320, 200)},
		{"images/lossless.webp", WebP, image.Pt(160, 100)},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			img, err := Decode(readFile(t, tt.file), limits.Default())
			if err != nil {
				t.Fatalf("Decode(%s) error = %v", tt.file, err)
			}
			if img.Format != tt.format {
				t.Errorf("Format = %q, want %q", img.Format, tt.format)
			}
			if got := img.Image.Bounds(); got != (image.Rectangle{Max: tt.size}) {
				t.Errorf("Bounds = %v, want %v at origin", got, tt.size)
			}
			if img.Orientation != 1 {
				t.Errorf("Orientation = %d, want 1", img.Orientation)
			}
			l := ToLuma(img.Image)
			if got := image.Pt(l.Width, l.Height); got != tt.size {
				t.Errorf("ToLuma size = %v, want %v", got, tt.size)
			}
		})
	}
}

// TestBombs is the golden set of hostile uploads: each file gives exactly its
// sentinel error (or is accepted, for the ZIP appended to a PNG).
func TestBombs(t *testing.T) {
	tests := []struct {
		file    string
		wantErr error // nil: accepted
		wantW   int   // for *DimensionError
		wantH   int
	}{
		{"bombs/png-100000x100000.png", ErrTooManyPixels, 100000, 100000},
		{"bombs/gif-huge-screen.gif", ErrTooManyPixels, 65535, 65535},
		{"bombs/jpeg-60000x60000.jpg", ErrTooManyPixels, 60000, 60000},
		{"bombs/jpeg-truncated.jpg", ErrCorrupt, 0, 0},
		{"bombs/png-appended-zip.png", nil, 0, 0},
		{"bombs/html-named.png", ErrUnsupportedFormat, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			img, err := Decode(readFile(t, tt.file), limits.Default())
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Decode(%s) error = %v, want accepted", tt.file, err)
				}
				if img.Format != PNG {
					t.Errorf("Format = %q, want png", img.Format)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Decode(%s) error = %v, want %v", tt.file, err, tt.wantErr)
			}
			for _, other := range []error{ErrEmpty, ErrTooLarge, ErrUnsupportedFormat, ErrTooManyPixels, ErrCorrupt} {
				if other != tt.wantErr && errors.Is(err, other) {
					t.Errorf("Decode(%s) error = %v also matches %v", tt.file, err, other)
				}
			}
			if tt.wantW != 0 {
				var de *DimensionError
				if !errors.As(err, &de) {
					t.Fatalf("Decode(%s) error = %T, want *DimensionError", tt.file, err)
				}
				if de.Width != tt.wantW || de.Height != tt.wantH {
					t.Errorf("DimensionError = %dx%d, want %dx%d", de.Width, de.Height, tt.wantW, tt.wantH)
				}
			}
		})
	}
}

func TestDecodeLimits(t *testing.T) {
	b := readFile(t, "images/photo.jpg") // 480x300
	tests := []struct {
		name    string
		mutate  func(*limits.Limits)
		wantErr error
	}{
		{"default", func(*limits.Limits) {}, nil},
		{"exact pixel limit", func(l *limits.Limits) { l.MaxPixels = 480 * 300 }, nil},
		{"one pixel short", func(l *limits.Limits) { l.MaxPixels = 480*300 - 1 }, ErrTooManyPixels},
		{"side limit", func(l *limits.Limits) { l.MaxSide = 479 }, ErrTooManyPixels},
		{"byte limit", func(l *limits.Limits) { l.MaxUploadBytes = int64(len(b) - 1) }, ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lim := limits.Default()
			tt.mutate(&lim)
			_, err := Decode(b, lim)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Errorf("Decode() error = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestSniff(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Format
		err  error
	}{
		{"empty", "", "", ErrEmpty},
		{"jpeg", "\xff\xd8\xff\xe0", JPEG, nil},
		{"png", "\x89PNG\r\n\x1a\n....", PNG, nil},
		{"gif87", "GIF87a", GIF, nil},
		{"gif89", "GIF89a", GIF, nil},
		{"webp", "RIFF\x00\x00\x00\x00WEBPVP8 ", WebP, nil},
		{"riff wave", "RIFF\x00\x00\x00\x00WAVEfmt ", "", ErrUnsupportedFormat},
		{"html", "<html>", "", ErrUnsupportedFormat},
		{"svg", "<svg xmlns=", "", ErrUnsupportedFormat},
		{"bmp", "BM....", "", ErrUnsupportedFormat},
		{"short jpeg", "\xff\xd8", "", ErrUnsupportedFormat},
		{"avif", "\x00\x00\x00\x1cftypavif\x00\x00\x00\x00", "", ErrUnsupportedFormat},
		{"heic", "\x00\x00\x00\x18ftypheic\x00\x00\x00\x00", "", ErrUnsupportedFormat},
		{"mp4", "\x00\x00\x00\x18ftypisom\x00\x00\x00\x00", "", ErrUnsupportedFormat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Sniff([]byte(tt.in))
			if got != tt.want || !errors.Is(err, tt.err) || (tt.err == nil && err != nil) {
				t.Errorf("Sniff(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
			}
		})
	}
}

// TestStdDecodersKnownFormatsOnly: each format Sniff returns has its
// decoder, and a format without one panics instead of being handed to
// another format's decoder.
func TestStdDecodersKnownFormatsOnly(t *testing.T) {
	for _, f := range []Format{JPEG, PNG, GIF, WebP} {
		if dec, cfg := stdDecoders(f); dec == nil || cfg == nil {
			t.Errorf("stdDecoders(%q): nil decoder", f)
		}
	}
	panicked := func() (p bool) {
		defer func() { p = recover() != nil }()
		stdDecoders("tiff")
		return false
	}()
	if !panicked {
		t.Error(`stdDecoders("tiff") did not panic`)
	}
}

func TestSniffNamesOtherFormats(t *testing.T) {
	tests := []struct{ in, want string }{
		{"\x00\x00\x00\x1cftypavif\x00\x00\x00\x00mif1", "AVIF"},
		{"\x00\x00\x00\x1cftypavis\x00\x00\x00\x00", "AVIF"},
		{"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00", "HEIC"},
		{"\x00\x00\x00\x18ftypmif1\x00\x00\x00\x00", "HEIF"},
		{"\xff\x0a\x00\x00", "JPEG XL"},
		{"II*\x00\x08\x00\x00\x00", "TIFF"},
		{"BM\x36\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00", "BMP"},
		{"\x00\x00\x00\x18ftypisom\x00\x00\x00\x00", ""},
		{"<html>", ""},
	}
	for _, tt := range tests {
		_, err := Sniff([]byte(tt.in))
		var oe *OtherFormatError
		got := ""
		if errors.As(err, &oe) {
			got = oe.Name
		}
		if got != tt.want || !errors.Is(err, ErrUnsupportedFormat) {
			t.Errorf("Sniff(%q): named %q (err %v), want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestJPEGOrientation(t *testing.T) {
	base := readFile(t, "images/photo.jpg")
	for o := uint16(0); o <= 9; o++ {
		for _, be := range []bool{false, true} {
			want := int(o)
			if o < 1 || o > 8 {
				want = 1
			}
			if got := JPEGOrientation(jpegtest.WithOrientation(base, o, be)); got != want {
				t.Errorf("JPEGOrientation(o=%d, bigEndian=%v) = %d, want %d", o, be, got, want)
			}
		}
	}
	if got := JPEGOrientation(base); got != 1 {
		t.Errorf("JPEGOrientation(no exif) = %d, want 1", got)
	}
}

func TestDecodeAppliesOrientation(t *testing.T) {
	base := readFile(t, "images/photo.jpg")
	plain, err := Decode(base, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	pl := ToLuma(plain.Image)
	for o := 1; o <= 8; o++ {
		img, err := Decode(jpegtest.WithOrientation(base, uint16(o), o%2 == 0), limits.Default())
		if err != nil {
			t.Fatalf("Decode(orientation %d) error = %v", o, err)
		}
		if img.Orientation != o {
			t.Errorf("Orientation = %d, want %d", img.Orientation, o)
		}
		w, h := img.OrientedSize()
		if b := img.Image.Bounds(); b.Dx() != w || b.Dy() != h {
			t.Errorf("orientation %d: bounds %v, want %dx%d", o, b, w, h)
		}
		// The luma plane must be an exact permutation of the unrotated one.
		l := ToLuma(img.Image)
		want := ToLuma(Orient(&image.Gray{Pix: pl.Pix, Stride: pl.Stride, Rect: image.Rect(0, 0, pl.Width, pl.Height)}, o))
		if !bytes.Equal(l.Pix, want.Pix) {
			t.Errorf("orientation %d: luma differs from oriented plain luma", o)
		}
	}
}

func TestOrient(t *testing.T) {
	// 3x2 image:  1 2 3
	//             4 5 6
	src := &image.Gray{Pix: []uint8{1, 2, 3, 4, 5, 6}, Stride: 3, Rect: image.Rect(0, 0, 3, 2)}
	tests := []struct {
		o    int
		w, h int
		want []uint8
	}{
		{1, 3, 2, []uint8{1, 2, 3, 4, 5, 6}},
		{2, 3, 2, []uint8{3, 2, 1, 6, 5, 4}},
		{3, 3, 2, []uint8{6, 5, 4, 3, 2, 1}},
		{4, 3, 2, []uint8{4, 5, 6, 1, 2, 3}},
		{5, 2, 3, []uint8{1, 4, 2, 5, 3, 6}},
		{6, 2, 3, []uint8{4, 1, 5, 2, 6, 3}},
		{7, 2, 3, []uint8{6, 3, 5, 2, 4, 1}},
		{8, 2, 3, []uint8{3, 6, 2, 5, 1, 4}},
	}
	for _, tt := range tests {
		// Same map through every pixel type.
		rgba := image.NewRGBA(src.Rect)
		nrgba := image.NewNRGBA(src.Rect)
		ycc := image.NewYCbCr(src.Rect, image.YCbCrSubsampleRatio444)
		for i, v := range src.Pix {
			x, y := i%3, i/3
			rgba.Set(x, y, color.RGBA{v, v, v, 255})
			nrgba.Set(x, y, color.NRGBA{v, v, v, 255})
			ycc.Y[ycc.YOffset(x, y)] = v
		}
		for name, img := range map[string]image.Image{"gray": src, "rgba": rgba, "nrgba": nrgba, "ycbcr": ycc} {
			got := Orient(img, tt.o)
			if b := got.Bounds(); b != image.Rect(0, 0, tt.w, tt.h) {
				t.Errorf("Orient(%s, %d) bounds = %v, want %dx%d", name, tt.o, b, tt.w, tt.h)
				continue
			}
			if l := ToLuma(got); !bytes.Equal(l.Pix, tt.want) {
				t.Errorf("Orient(%s, %d) = %v, want %v", name, tt.o, l.Pix, tt.want)
			}
		}
	}
}

func TestDecodeNoPanicOnMutations(t *testing.T) {
	// A cheap deterministic cousin of FuzzDecode: flip bytes in the header area.
	for _, f := range []string{"images/photo.jpg", "images/photo.png", "images/photo.gif", "images/photo.webp"} {
		b := readFile(t, f)
		for i := 0; i < 400 && i < len(b); i += 3 {
			m := bytes.Clone(b)
			m[i] ^= 0xA5
			_, _ = Decode(m, limits.Default()) // must not panic
		}
	}
}

func TestDecoderIndependent(t *testing.T) {
	file := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "images", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	ycc := []byte{1, 2, 3}
	for _, tt := range []struct {
		name string
		file []byte
		want bool
	}{
		{"jpeg", file("photo.jpg"), true},
		{"grey jpeg", file("gray.jpg"), true},
		{"png", file("photo.png"), true},
		{"gif", file("photo.gif"), false},
		{"webp", file("photo.webp"), false},
		{"jpeg 4:2:0 header", jpegHeader(64, 48, false, ycc, []byte{0x22, 0x11, 0x11}, true, -1), true},
		{"jpeg RGB ids", jpegHeader(64, 48, false, []byte("RGB"), []byte{0x11, 0x11, 0x11}, false, -1), false},
		{"jpeg Adobe RGB", jpegHeader(64, 48, false, ycc, []byte{0x11, 0x11, 0x11}, false, 0), false},
		{"jpeg CMYK", jpegHeader(64, 48, false, []byte{1, 2, 3, 4}, []byte{0x11, 0x11, 0x11, 0x11}, false, 2), false},
	} {
		info, err := DecodeConfig(tt.file, limits.Default())
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := info.DecoderIndependent(); got != tt.want {
			t.Errorf("%s: DecoderIndependent = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestRealAVIFIsNamed: a still AVIF as an encoder writes it (libaom
// through ffmpeg: major brand avif, compatible mif1 miaf MA1A) is refused
// by both decoders with an error naming AVIF, not as corrupt data.
func TestRealAVIFIsNamed(t *testing.T) {
	b, err := os.ReadFile("testdata/still.avif")
	if err != nil {
		t.Fatal(err)
	}
	lim := limits.Default()
	_, errFull := Decode(b, lim)
	_, errLuma := DecodeLuma(b, lim, 512)
	for name, err := range map[string]error{"Decode": errFull, "DecodeLuma": errLuma} {
		var oe *OtherFormatError
		if !errors.As(err, &oe) || oe.Name != "AVIF" || !errors.Is(err, ErrUnsupportedFormat) {
			t.Errorf("%s: %v, want an OtherFormatError naming AVIF", name, err)
		}
	}
}

// readFile reads name from the shared test data.
func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
