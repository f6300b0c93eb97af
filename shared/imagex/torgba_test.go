package imagex

import (
	"bytes"
	"image"
	"image/color"
	"image/color/palette"
	"image/draw"
	"math/rand/v2"
	"testing"
)

// TestToRGBAIsDrawSrc: the conversion of the rare pixel types stores what
// draw.Draw with draw.Src stores, byte for byte, for every type the
// decoders return besides the ones Orient copies directly, including an
// image whose bounds do not start at the origin.
func TestToRGBAIsDrawSrc(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rect := image.Rect(3, 5, 3+37, 5+23)
	random := func(p []byte) {
		for i := range p {
			p[i] = uint8(r.Uint32())
		}
	}
	fill := func(set func(x, y int)) {
		for y := rect.Min.Y; y < rect.Max.Y; y++ {
			for x := rect.Min.X; x < rect.Max.X; x++ {
				set(x, y)
			}
		}
	}
	cmyk := image.NewCMYK(rect)
	random(cmyk.Pix)
	g16 := image.NewGray16(rect)
	random(g16.Pix)
	rgba64 := image.NewRGBA64(rect)
	fill(func(x, y int) {
		a := uint16(r.Uint32())
		rgba64.SetRGBA64(x, y, color.RGBA64{uint16(r.UintN(uint(a) + 1)), uint16(r.UintN(uint(a) + 1)), uint16(r.UintN(uint(a) + 1)), a})
	})
	nrgba64 := image.NewNRGBA64(rect)
	random(nrgba64.Pix)
	pal := image.NewPaletted(rect, palette.WebSafe)
	fill(func(x, y int) { pal.SetColorIndex(x, y, uint8(r.UintN(uint(len(palette.WebSafe))))) })
	alpha := image.NewAlpha(rect)
	random(alpha.Pix)
	gray := image.NewGray(rect)
	random(gray.Pix)
	for _, m := range []image.Image{cmyk, g16, rgba64, nrgba64, pal, alpha, gray} {
		want := image.NewRGBA(image.Rect(0, 0, rect.Dx(), rect.Dy()))
		draw.Draw(want, want.Bounds(), m, rect.Min, draw.Src)
		if got := toRGBA(m); got.Rect != want.Rect || !bytes.Equal(got.Pix, want.Pix) {
			t.Errorf("%T: toRGBA differs from draw.Draw(Src)", m)
		}
	}
}
