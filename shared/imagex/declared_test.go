package imagex

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"testing"

	"github.com/provenant/provenant/shared/limits"
)

func TestCheckDeclared(t *testing.T) {
	tests := []struct {
		name     string
		f        Format
		ct, file string
		ok       bool
	}{
		{"nothing declared", PNG, "", "", true},
		{"png as png", PNG, "image/png", "a.PNG", true},
		{"jpeg aliases", JPEG, "image/jpg", "IMG_0001.JPEG", true},
		{"octet-stream", WebP, "application/octet-stream", "x.webp", true},
		{"params", GIF, "image/gif; charset=binary", "", true},
		{"png named jpg", PNG, "", "photo.jpg", false},
		{"jpeg declared png", JPEG, "image/png", "", false},
		{"html declared", PNG, "text/html", "", false},
		{"no extension", JPEG, "", "upload", false},
		{"bad content type", JPEG, "image/", "", false},
	}
	for _, tt := range tests {
		err := CheckDeclared(tt.f, tt.ct, tt.file)
		if (err == nil) != tt.ok {
			t.Errorf("CheckDeclared(%s) = %v, want ok=%v", tt.name, err, tt.ok)
		}
		if err != nil && !(errors.Is(err, ErrFormatMismatch) && errors.Is(err, ErrUnsupportedFormat)) {
			t.Errorf("CheckDeclared(%s) = %v, want ErrFormatMismatch wrapping ErrUnsupportedFormat", tt.name, err)
		}
	}
}

// A GIF whose first frame is smaller than the logical screen and offset in
// it decodes to that frame, moved to the origin.
func TestDecodeGIFOffsetFrame(t *testing.T) {
	pal := color.Palette{color.Gray{0}, color.Gray{100}, color.Gray{200}}
	frame := image.NewPaletted(image.Rect(2, 3, 10, 9), pal)
	for i := range frame.Pix {
		frame.Pix[i] = uint8(i % 3)
	}
	var buf bytes.Buffer
	err := gif.EncodeAll(&buf, &gif.GIF{Image: []*image.Paletted{frame}, Delay: []int{0},
		Config: image.Config{Width: 20, Height: 20, ColorModel: pal}})
	if err != nil {
		t.Fatal(err)
	}
	img, err := Decode(buf.Bytes(), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	if got := img.Image.Bounds(); got != image.Rect(0, 0, 8, 6) || img.Width != 8 || img.Height != 6 {
		t.Fatalf("Decode(offset GIF frame) bounds %v (%dx%d), want 8x6 at origin", got, img.Width, img.Height)
	}
	want := []uint8{}
	for _, p := range frame.Pix {
		want = append(want, []uint8{0, 100, 200}[p])
	}
	if got := ToLuma(img.Image).Pix; !bytes.Equal(got, want) {
		t.Errorf("luma = %v, want %v", got, want)
	}
}
