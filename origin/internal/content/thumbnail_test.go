package content

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"testing"
)

func TestThumbnail(t *testing.T) {
	for _, tc := range []struct {
		name         string
		w, h         int
		wantW, wantH int
	}{
		{"landscape", 1600, 1200, 320, 240},
		{"portrait", 900, 1600, 180, 320},
		{"small keeps its size", 200, 100, 200, 100},
		{"thin strip", 4000, 10, 320, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := image.NewRGBA(image.Rect(0, 0, tc.w, tc.h))
			for y := 0; y < tc.h; y++ {
				for x := 0; x < tc.w; x++ {
					src.Set(x, y, color.RGBA{uint8(x), uint8(y), 128, 255})
				}
			}
			b, err := Thumbnail(src)
			if err != nil {
				t.Fatal(err)
			}
			got, err := jpeg.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("thumbnail is not a JPEG: %v", err)
			}
			if g := got.Bounds(); g.Dx() != tc.wantW || g.Dy() != tc.wantH {
				t.Errorf("thumbnail %dx%d of %dx%d, want %dx%d", g.Dx(), g.Dy(), tc.w, tc.h, tc.wantW, tc.wantH)
			}
			if len(b) > 40<<10 {
				t.Errorf("thumbnail of %d bytes", len(b))
			}
		})
	}
	if _, err := Thumbnail(image.NewRGBA(image.Rect(0, 0, 0, 0))); err == nil {
		t.Error("thumbnail of an empty picture: no error")
	}
}
