package watermark

import (
	"crypto/sha256"
	"encoding/hex"
	"image"
	"image/color"
	"runtime"
	"testing"

	"golang.org/x/image/draw"
)

// embedGoldenImage builds the input of one golden case: a test photo,
// optionally scaled to w×h, converted to the given pixel layout.
func embedGoldenImage(t *testing.T, name string, w, h int, layout string) image.Image {
	t.Helper()
	src := loadTestImage(t, name)
	if w > 0 {
		dst := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
		src = dst
	}
	b := src.Bounds()
	switch layout {
	case "ycbcr":
		if m, ok := src.(*image.YCbCr); ok {
			return m
		}
		m := image.NewYCbCr(b, image.YCbCrSubsampleRatio420)
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bl, _ := src.At(x, y).RGBA()
				yy, cb, cr := color.RGBToYCbCr(uint8(r>>8), uint8(g>>8), uint8(bl>>8))
				m.Y[m.YOffset(x, y)] = yy
				m.Cb[m.COffset(x, y)], m.Cr[m.COffset(x, y)] = cb, cr
			}
		}
		return m
	case "gray":
		m := image.NewGray(b)
		draw.Draw(m, b, src, b.Min, draw.Src)
		return m
	case "rgba":
		m := image.NewRGBA(b)
		draw.Draw(m, b, src, b.Min, draw.Src)
		return m
	case "nrgba":
		// Opacity varies along x (fully transparent at the left edge), so
		// the opacity compensation and the skipped pixels are covered.
		m := image.NewNRGBA(b)
		draw.Draw(m, b, src, b.Min, draw.Src)
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				m.Pix[m.PixOffset(x, y)+3] = uint8(min(255, (x-b.Min.X)*4))
			}
		}
		return m
	case "sub":
		// A sub-image: the bounds do not start at the origin and the
		// stride exceeds the width.
		m := image.NewYCbCr(image.Rect(0, 0, b.Dx()+40, b.Dy()+30), image.YCbCrSubsampleRatio444)
		draw.Draw(&ycbcrDrawer{m}, image.Rect(20, 10, 20+b.Dx(), 10+b.Dy()), src, b.Min, draw.Src)
		return m.SubImage(image.Rect(20, 10, 20+b.Dx(), 10+b.Dy()))
	}
	t.Fatalf("unknown layout %q", layout)
	return nil
}

// ycbcrDrawer lets draw.Draw write into a 4:4:4 YCbCr image.
type ycbcrDrawer struct{ m *image.YCbCr }

func (d *ycbcrDrawer) ColorModel() color.Model { return color.YCbCrModel }
func (d *ycbcrDrawer) Bounds() image.Rectangle { return d.m.Bounds() }
func (d *ycbcrDrawer) At(x, y int) color.Color { return d.m.At(x, y) }
func (d *ycbcrDrawer) Set(x, y int, c color.Color) {
	r, g, b, _ := c.RGBA()
	yy, cb, cr := color.RGBToYCbCr(uint8(r>>8), uint8(g>>8), uint8(b>>8))
	d.m.Y[d.m.YOffset(x, y)], d.m.Cb[d.m.COffset(x, y)], d.m.Cr[d.m.COffset(x, y)] = yy, cb, cr
}

// pixelDigest is the SHA-256 of every pixel of img inside its bounds, in
// the image's own layout (Y, Cb and Cr planes for YCbCr).
func pixelDigest(t *testing.T, img image.Image) string {
	t.Helper()
	h := sha256.New()
	b := img.Bounds()
	switch m := img.(type) {
	case *image.YCbCr:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			off := m.YOffset(b.Min.X, y)
			h.Write(m.Y[off : off+b.Dx()])
		}
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				c := m.COffset(x, y)
				h.Write([]byte{m.Cb[c], m.Cr[c]})
			}
		}
	case *image.Gray:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			off := m.PixOffset(b.Min.X, y)
			h.Write(m.Pix[off : off+b.Dx()])
		}
	case *image.RGBA:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			off := m.PixOffset(b.Min.X, y)
			h.Write(m.Pix[off : off+4*b.Dx()])
		}
	case *image.NRGBA:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			off := m.PixOffset(b.Min.X, y)
			h.Write(m.Pix[off : off+4*b.Dx()])
		}
	default:
		t.Fatalf("unexpected output type %T", img)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestEmbedGolden pins Embed's output pixel for pixel: speed work on the
// embedder must not change what it writes. The digests were computed by the
// embedder before its full-resolution passes were fused. They hold on amd64
// only: elsewhere the compiler may fuse a multiply and an add into one
// rounding (arm64 does), which moves a few pixels by one level.
func TestEmbedGolden(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skipf("golden digests are for amd64 floating point, not %s", runtime.GOARCH)
	}
	cases := []struct {
		name   string
		file   string
		w, h   int
		layout string
		psnr   float64 // 0: the default target
		want   string
	}{
		{"meadow", "meadow.jpg", 0, 0, "ycbcr", 0, "03848e6974d23036a5f64677040154fbd87661795c798bfe38e38c9d8df1c42a"},
		{"water", "water.jpg", 0, 0, "ycbcr", 0, "bb2685f324d375a9d3c74eb2c34afcd1b6c05e0a7f8eea643eb2e410540b09a6"},
		{"night", "night.jpg", 0, 0, "ycbcr", 0, "5860b5b90ac3e977c2e40462aecb4352c05aa9a2aeb5761e7e58d56c15b1a085"},
		{"flower", "flower.jpg", 0, 0, "ycbcr", 0, "228b659e9d3ea0ad0cde9fb59a9d7f262bb801adf07af5283178b31aa2f588c2"},
		{"meadow 1531x1021", "meadow.jpg", 1531, 1021, "ycbcr", 0, "d205cfb2c2b3c463d04c32ba2c0db667c90627276971a513d71d98ae64abdb58"},
		{"night 997x1500", "night.jpg", 997, 1500, "ycbcr", 0, "475b7c12aea4f34fc93039796da22fcc50af4029295d66f12f6191ee523135b8"},
		{"water gray", "water.jpg", 0, 0, "gray", 0, "abe5d9bd101463e5bc67334b262c8f86e60cd4ef11f0abcf57676693daf3ad3d"},
		{"flower rgba", "flower.jpg", 0, 0, "rgba", 0, "7fa43e2591c5c64b2e861ad78f88ee32c51f65fa53cfc19f79cfe4c7ab0d7033"},
		{"meadow nrgba", "meadow.jpg", 0, 0, "nrgba", 0, "14884fd3ad03445b0d5efa5d622c2f992ea139acd070ae064f2e13149e117fb5"},
		{"night sub-image", "night.jpg", 0, 0, "sub", 0, "9fd40351d5450fd06e1f85ea85ec8a0ee64051c7688d59f96882730051567a65"},
		{"water 38 dB", "water.jpg", 0, 0, "ycbcr", 38, "e132b1df56a7ab6d8285ff4dca857f3f006d8362f4ba8ee9f282e5794408b40f"},
		{"flower 50 dB", "flower.jpg", 0, 0, "ycbcr", 50, "f6cb6e57d34a2f74fe577fe3650318961814402bc65940324fe4839c7c3c53e7"},
		{"meadow rgba 58 dB", "meadow.jpg", 800, 640, "rgba", 58, "16bbdfefe42683ecb7e04c65433ce8d5e65bc4f8c6b4e9488eea40849cc298c5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			img := embedGoldenImage(t, c.file, c.w, c.h, c.layout)
			var opts []EmbedOption
			if c.psnr > 0 {
				opts = append(opts, WithTargetPSNR(c.psnr))
			}
			out, err := Embed(img, 0x0123456789abcdef, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if got := pixelDigest(t, out); got != c.want {
				t.Errorf("output digest %s, want %s", got, c.want)
			}
		})
	}
}
