package camera_test

import (
	"image"
	"image/color"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/imagex/jpegtest/camera"
	"github.com/provenant/provenant/shared/limits"
)

// TestJPEG: for every orientation the file carries the tag asked for and
// decodes (imagex.Decode, which applies the tag) to the upright picture;
// a picture whose four quadrants differ tells every turn and mirror
// apart.
func TestJPEG(t *testing.T) {
	const w, h = 48, 32
	up := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			up.SetGray(x, y, color.Gray{Y: uint8(40 + 60*(2*(y*2/h)+x*2/w))})
		}
	}
	for o := 0; o <= 8; o++ {
		file := camera.JPEG(t, up, 95, o)
		if got := imagex.JPEGOrientation(file); got != max(o, 1) {
			t.Errorf("orientation %d: the file's tag reads %d", o, got)
		}
		img, err := imagex.Decode(file, limits.Default())
		if err != nil {
			t.Fatalf("orientation %d: %v", o, err)
		}
		if b := img.Image.Bounds(); b.Dx() != w || b.Dy() != h {
			t.Fatalf("orientation %d: decodes %dx%d, want %dx%d", o, b.Dx(), b.Dy(), w, h)
		}
		var diff int
		for y := range h {
			for x := range w {
				g := color.GrayModel.Convert(img.Image.At(x, y)).(color.Gray).Y
				diff += max(int(g), int(up.GrayAt(x, y).Y)) - min(int(g), int(up.GrayAt(x, y).Y))
			}
		}
		if mean := float64(diff) / (w * h); mean > 4 {
			t.Errorf("orientation %d: decodes %.1f grey levels from upright on average", o, mean)
		}
	}
}
