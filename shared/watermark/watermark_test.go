package watermark

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
)

func loadTestImage(t testing.TB, name string) image.Image {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := jpeg.Decode(f)
	if err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	return m
}

// markedTestPhoto decodes testdata/name and marks it with p.
func markedTestPhoto(t testing.TB, name string, p Payload) (img, marked image.Image) {
	t.Helper()
	img = loadTestImage(t, name)
	marked, err := Embed(img, p)
	if err != nil {
		t.Fatalf("Embed(%s): %v", name, err)
	}
	return img, marked
}

var testImages = []string{"meadow.jpg", "water.jpg", "night.jpg", "flower.jpg"}

func reencode(t testing.TB, m image.Image, format string, q int) image.Image {
	t.Helper()
	var b bytes.Buffer
	var err error
	switch format {
	case "png":
		err = png.Encode(&b, m)
	case "jpeg":
		err = jpeg.Encode(&b, m, &jpeg.Options{Quality: q})
	}
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := image.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestConvCodeCorrectsErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     Payload
		flips int
	}{
		{"clean", 0x0123456789abcdef, 0},
		{"zero payload, 10 flips", 0, 10},
		{"all ones, 20 flips", ^Payload(0), 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := message(tc.p, 2)
			cw := convEncode(msg)
			if len(cw) != codedBits {
				t.Fatalf("len(codeword) = %d, want %d", len(cw), codedBits)
			}
			soft := make([]float64, len(cw))
			for i, b := range cw {
				soft[i] = float64(2*int(b) - 1)
			}
			r := rand.New(rand.NewPCG(1, uint64(tc.flips)))
			for _, i := range r.Perm(len(soft))[:tc.flips] {
				soft[i] = -soft[i]
			}
			got, v, ok := parseMessage(viterbi(soft))
			if !ok || got != tc.p || v != 2 {
				t.Errorf("decode = %v, v%d, ok=%v; want %v, v2, true", got, v, ok, tc.p)
			}
		})
	}
}

func TestCRCRejectsEveryFlipAndOtherVersions(t *testing.T) {
	msg := message(0xfeedface12345678, 2)
	for i := range msg {
		m := append([]uint8(nil), msg...)
		m[i] ^= 1
		if _, _, ok := parseMessage(m); ok {
			t.Errorf("message with bit %d flipped passed the CRC", i)
		}
	}
	// The same version bits under another version's CRC constant must fail.
	m := append([]uint8(nil), msg...)
	m[versionBits-1] ^= 1 // version 2 -> 3
	if _, _, ok := parseMessage(m); ok {
		t.Errorf("version-changed message passed the CRC")
	}
}

func TestRoundTrip(t *testing.T) {
	for _, v := range []int{1, 2} {
		for _, name := range testImages {
			for _, enc := range []struct {
				format  string
				q       int
				minPSNR float64
			}{{"png", 0, 42}, {"jpeg", 75, 40}} {
				t.Run(fmt.Sprintf("v%d/%s/%s", v, name, enc.format), func(t *testing.T) {
					img := loadTestImage(t, name)
					p := Payload(0x1122334455667788 ^ uint64(len(name)))
					marked, err := Embed(img, p, WithVersion(v))
					if err != nil {
						t.Fatalf("Embed: %v", err)
					}
					got := reencode(t, marked, enc.format, enc.q)
					psnr, err := PSNR(imagex.ToLuma(img), imagex.ToLuma(got))
					if err != nil {
						t.Fatal(err)
					}
					if psnr < enc.minPSNR {
						t.Errorf("PSNR = %.2f dB, want >= %.0f", psnr, enc.minPSNR)
					}
					gp, d, err := Extract(imagex.ToLuma(got))
					if err != nil {
						t.Fatalf("Extract: %v", err)
					}
					if !d.Found || gp != p || d.Version != v {
						t.Errorf("Extract = %v %+v, want %v found v%d", gp, d, p, v)
					}
				})
			}
		}
	}
}

func TestExtractUnmarkedFindsNothing(t *testing.T) {
	for _, name := range testImages {
		img := loadTestImage(t, name)
		for _, q := range []int{0, 60} {
			m := img
			if q > 0 {
				m = reencode(t, img, "jpeg", q)
			}
			p, d, err := Extract(imagex.ToLuma(m))
			if err != nil {
				t.Fatalf("%s: Extract: %v", name, err)
			}
			if d.Found || p != 0 {
				t.Errorf("%s q%d: Extract = %v %+v, want not found", name, q, p, d)
			}
		}
	}
}

func TestEmbedKeepsChroma(t *testing.T) {
	img := loadTestImage(t, "meadow.jpg").(*image.YCbCr)
	out, err := Embed(img, 42)
	if err != nil {
		t.Fatal(err)
	}
	o, ok := out.(*image.YCbCr)
	if !ok {
		t.Fatalf("Embed(YCbCr) returned %T, want *image.YCbCr", out)
	}
	if !bytes.Equal(o.Cb, img.Cb) || !bytes.Equal(o.Cr, img.Cr) {
		t.Errorf("Embed changed the chroma planes")
	}
	if bytes.Equal(o.Y, img.Y) {
		t.Errorf("Embed left the luma plane unchanged")
	}
}

func TestEmbedTooSmall(t *testing.T) {
	for _, tc := range []struct {
		w, h    int
		wantErr bool
	}{{167, 800, true}, {150, 200, true}, {168, 300, false}, {255, 255, false}, {256, 300, false}} {
		_, err := Embed(image.NewGray(image.Rect(0, 0, tc.w, tc.h)), 1)
		var tse *TooSmallError
		if got := errors.As(err, &tse); got != tc.wantErr {
			t.Errorf("Embed(%dx%d) error = %v, want TooSmallError: %v", tc.w, tc.h, err, tc.wantErr)
		}
	}
}

func TestExtractInvalidInput(t *testing.T) {
	_, _, err := Extract(nil)
	if !errors.Is(err, ErrInvalidLuma) {
		t.Errorf("Extract(nil) error = %v, want ErrInvalidLuma", err)
	}
	_, _, err = Extract(&imagex.Luma{Width: 10, Height: 10, Stride: 10, Pix: make([]uint8, 50)})
	if !errors.Is(err, ErrInvalidLuma) {
		t.Errorf("Extract(short Pix) error = %v, want ErrInvalidLuma", err)
	}
	_, _, err = Extract(&imagex.Luma{Width: 60, Height: 500, Stride: 60, Pix: make([]uint8, 60*500)})
	var tse *TooSmallError
	if !errors.As(err, &tse) {
		t.Errorf("Extract(60x500) error = %v, want *TooSmallError", err)
	}
}

func TestParsePayload(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Payload
		ok   bool
	}{{"0123456789abcdef", 0x0123456789abcdef, true}, {"ff", 0xff, true}, {"", 0, false}, {"0123456789abcdef0", 0, false}, {"xyz", 0, false}} {
		got, err := ParsePayload(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParsePayload(%q) = %v, %v; want %v, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
	if s := Payload(0xab).String(); s != "00000000000000ab" {
		t.Errorf("String() = %q, want 00000000000000ab", s)
	}
}

// FuzzExtract feeds arbitrary planes to Extract: it must not panic and must
// never report a watermark in unmarked input.
func FuzzExtract(f *testing.F) {
	f.Add(uint16(200), uint16(300), []byte{0})
	f.Add(uint16(512), uint16(384), []byte{1, 2, 3, 250, 7, 9, 128})
	r := rand.New(rand.NewPCG(3, 4))
	noise := make([]byte, 4096)
	for i := range noise {
		noise[i] = byte(r.Uint32())
	}
	f.Add(uint16(640), uint16(480), noise)
	f.Fuzz(func(t *testing.T, w, h uint16, data []byte) {
		W, H := 64+int(w)%700, 64+int(h)%700
		l := &imagex.Luma{Width: W, Height: H, Stride: W, Pix: make([]uint8, W*H)}
		if len(data) > 0 {
			for i := range l.Pix {
				l.Pix[i] = data[i%len(data)] + byte(i/len(data))
			}
		}
		p, d, err := Extract(l)
		if err != nil {
			t.Fatalf("Extract(%dx%d): %v", W, H, err)
		}
		if d.Found {
			t.Fatalf("Extract(%dx%d) of unmarked input = %v %+v", W, H, p, d)
		}
	})
}

func TestWithMinShortSide(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 140, 120))
	if _, err := Embed(img, 1); err == nil {
		t.Fatalf("Embed(140x120) without the option succeeded, want a TooSmallError")
	}
	if _, err := Embed(img, 1, WithMinShortSide(120)); err != nil {
		t.Errorf("Embed(140x120, WithMinShortSide(120)) = %v, want success", err)
	}
	if _, err := Embed(img, 1, WithMinShortSide(32)); err == nil {
		t.Errorf("WithMinShortSide(32) accepted, want an error below MinExtractShortSide")
	}
}
