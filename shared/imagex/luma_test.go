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
	n64, r64, g16 := image.NewNRGBA64(r), image.NewRGBA64(r), image.NewGray16(r)
	for i := range n64.Pix {
		n64.Pix[i] = uint8(i*29 + i/7)
	}
	for i := 0; i < len(r64.Pix); i += 8 { // valid premultiplied: colour <= alpha
		a := uint16(i * 977)
		for c := 0; c < 3; c++ {
			v := uint16(uint32(i*31+c*1000) % (uint32(a) + 1))
			r64.Pix[i+2*c], r64.Pix[i+2*c+1] = uint8(v>>8), uint8(v)
		}
		r64.Pix[i+6], r64.Pix[i+7] = uint8(a>>8), uint8(a)
	}
	for i := range g16.Pix {
		g16.Pix[i] = uint8(i * 53)
	}
	for name, img := range map[string]image.Image{"paletted": pal, "nycbcra": nycc, "gray": gray, "nrgba64": n64, "rgba64": r64, "gray16": g16} {
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
