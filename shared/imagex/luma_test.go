package imagex

import (
	"bytes"
	"image"
	"image/color"
	"testing"
)

// genericLuma is ToLuma's reference: color.GrayModel through At().
func genericLuma(img image.Image) []uint8 {
	b := img.Bounds()
	out := make([]uint8, 0, b.Dx()*b.Dy())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			out = append(out, color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y)
		}
	}
	return out
}

// TestToLumaFastPathsMatchGrayModel: the fast paths other than YCbCr (whose Y
// plane is copied as is, by contract) equal color.GrayModel.
func TestToLumaFastPathsMatchGrayModel(t *testing.T) {
	r := image.Rect(3, 2, 40, 31) // non-zero origin on purpose
	pal := image.NewPaletted(r, color.Palette{color.RGBA{10, 20, 30, 255}, color.RGBA{200, 100, 50, 255}, color.NRGBA{255, 255, 255, 128}, color.Gray{77}})
	nycc := image.NewNYCbCrA(r, image.YCbCrSubsampleRatio420)
	rgba, nrgba, gray := image.NewRGBA(r), image.NewNRGBA(r), image.NewGray(r)
	for i := range pal.Pix {
		pal.Pix[i] = uint8(i % 4)
	}
	for i := range nycc.Y {
		nycc.Y[i], nycc.A[i] = uint8(i*7), uint8(i*13)
	}
	for i := range nycc.Cb {
		nycc.Cb[i], nycc.Cr[i] = uint8(i*3), uint8(255-i)
	}
	for i := range rgba.Pix {
		rgba.Pix[i], nrgba.Pix[i] = uint8(i*11), uint8(i*5)
	}
	for i := range gray.Pix {
		gray.Pix[i] = uint8(i)
	}
	for name, img := range map[string]image.Image{"paletted": pal, "nycbcra": nycc, "gray": gray} {
		if got, want := ToLuma(img).Pix, genericLuma(img); !bytes.Equal(got, want) {
			t.Errorf("ToLuma(%s) differs from color.GrayModel", name)
		}
	}
	// RGBA and NRGBA: the opaque case. (Premultiplied RGBA with alpha < 255
	// is not valid for every byte pattern, and ToLuma composites translucent
	// NRGBA over black at 8 bits, which can differ from color.GrayModel's
	// 16-bit arithmetic by one level.)
	for i := 3; i < len(rgba.Pix); i += 4 {
		rgba.Pix[i], nrgba.Pix[i] = 255, 255
	}
	for name, img := range map[string]image.Image{"rgba": rgba, "nrgba": nrgba} {
		if got, want := ToLuma(img).Pix, genericLuma(img); !bytes.Equal(got, want) {
			t.Errorf("ToLuma(%s) differs from color.GrayModel", name)
		}
	}
}
