package content

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"testing"

	"github.com/provenant/provenant/origin/internal/testkit"
)

func TestEstimateJPEGQuality(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for y := 0; y < 48; y++ {
		for x := 0; x < 64; x++ {
			img.Set(x, y, color.RGBA{uint8(4 * x), uint8(5 * y), uint8(x * y), 255})
		}
	}
	for _, q := range []int{10, 30, 50, 60, 75, 85, 90, 95, 100} {
		got, ok := EstimateJPEGQuality(testkit.EncodeJPEG(t, img, q))
		// Near q=100 several qualities scale to the same all-ones table.
		if !ok || (got != q && !(q >= 98 && got >= 98)) {
			t.Errorf("EstimateJPEGQuality(q%d) = %d, %v; want %d, true", q, got, ok, q)
		}
	}
	for _, tt := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"png", []byte("\x89PNG\r\n\x1a\n")},
		{"soi only", []byte{0xFF, 0xD8}},
		{"truncated dqt", []byte{0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x43, 0x00, 1, 2}},
		{"sos before dqt", []byte{0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02}},
	} {
		if q, ok := EstimateJPEGQuality(tt.b); ok {
			t.Errorf("EstimateJPEGQuality(%s) = %d, true; want false", tt.name, q)
		}
	}
}

func FuzzEstimateJPEGQuality(f *testing.F) {
	f.Add([]byte{0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x43, 0x00})
	var buf bytes.Buffer
	_ = jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, 8, 8)), &jpeg.Options{Quality: 70})
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		q, ok := EstimateJPEGQuality(b)
		if ok && (q < 1 || q > 100) {
			t.Fatalf("quality %d out of range", q)
		}
	})
}

func TestCleanFilename(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"photo.jpg", "photo.jpg"},
		{"../../etc/passwd", "passwd"},
		{`C:\Users\x\pic.png`, "pic.png"},
		{"a\x00b\nc.jpg", "abc.jpg"},
		{"\xff\xfeok.jpg", "ok.jpg"},
	} {
		if got := cleanFilename(tt.in); got != tt.want {
			t.Errorf("cleanFilename(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
