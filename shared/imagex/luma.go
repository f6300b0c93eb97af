// Package imagex decodes untrusted image bytes under explicit limits and
// exposes the luminance plane that the perceptual hash and the watermark share,
// so a request decodes its image once.
package imagex

import (
	"image"
	"image/color"
	"slices"
)

// Luma is an 8-bit BT.601 luminance plane. Pix[y*Stride+x] is the luma of the
// pixel at (x, y), relative to the plane's origin (0, 0).
type Luma struct {
	Width, Height int
	Stride        int
	Pix           []uint8
}

// At returns the luma at (x, y); it panics when the point is outside the plane.
func (l *Luma) At(x, y int) uint8 { return l.Pix[y*l.Stride+x] }

// ToLuma returns the luminance of img. For *image.YCbCr and *image.Gray the Y
// plane is copied as is (no colour conversion, so it is bit-exact with what
// the decoder produced); RGBA-like images are converted with the BT.601
// integer weights that image/color uses; *image.Paletted and *image.NYCbCrA
// give exactly what color.GrayModel gives, through faster paths. Reading Pix
// slices directly matters:
// per-pixel At() allocates and is ~10× slower under WebAssembly.
func ToLuma(img image.Image) *Luma {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	// Contiguous Y or grey planes (the JPEG decoder's usual layout) are
	// cloned in one piece: no zeroing of the new plane before the copy.
	switch m := img.(type) {
	case *image.YCbCr:
		if m.YStride == w && w > 0 && h > 0 {
			off := m.YOffset(b.Min.X, b.Min.Y)
			return &Luma{Width: w, Height: h, Stride: w, Pix: slices.Clone(m.Y[off : off+w*h])}
		}
	case *image.Gray:
		if m.Stride == w && w > 0 && h > 0 {
			off := m.PixOffset(b.Min.X, b.Min.Y)
			return &Luma{Width: w, Height: h, Stride: w, Pix: slices.Clone(m.Pix[off : off+w*h])}
		}
	}
	l := &Luma{Width: w, Height: h, Stride: w, Pix: make([]uint8, w*h)}
	switch m := img.(type) {
	case *image.YCbCr:
		l.rows(m.Y, m.YOffset(b.Min.X, b.Min.Y), m.YStride, func(dst, src []uint8) { copy(dst, src) })
	case *image.Gray:
		l.rows(m.Pix, m.PixOffset(b.Min.X, b.Min.Y), m.Stride, func(dst, src []uint8) { copy(dst, src) })
	case *image.RGBA:
		l.rows(m.Pix, m.PixOffset(b.Min.X, b.Min.Y), m.Stride, func(dst, src []uint8) {
			for x := range dst {
				p := src[4*x : 4*x+3 : 4*x+3]
				dst[x] = lumaOf(uint32(p[0]), uint32(p[1]), uint32(p[2]))
			}
		})
	case *image.NRGBA:
		l.rows(m.Pix, m.PixOffset(b.Min.X, b.Min.Y), m.Stride, func(dst, src []uint8) {
			for x := range dst {
				p := src[4*x : 4*x+4 : 4*x+4]
				// Composite over black, as image/color does for NRGBA→Gray
				// (opaque pixels, nearly all of them, without the divisions).
				a := uint32(p[3])
				if a == 255 {
					dst[x] = lumaOf(uint32(p[0]), uint32(p[1]), uint32(p[2]))
				} else {
					dst[x] = lumaOf(uint32(p[0])*a/255, uint32(p[1])*a/255, uint32(p[2])*a/255)
				}
			}
		})
	case *image.Paletted:
		// Same values as the default path: each palette entry through
		// color.GrayModel once; indices beyond the palette read as black.
		var lut [256]uint8
		for i, c := range m.Palette {
			if i < len(lut) && c != nil {
				lut[i] = color.GrayModel.Convert(c).(color.Gray).Y
			}
		}
		l.rows(m.Pix, m.PixOffset(b.Min.X, b.Min.Y), m.Stride, func(dst, src []uint8) {
			for x := range dst {
				dst[x] = lut[src[x]]
			}
		})
	case *image.NRGBA64:
		// 16-bit PNGs: the same values as the default path without boxing
		// every pixel (an 8-byte allocation each, gigabytes of garbage for
		// a large image).
		l.rows(m.Pix, m.PixOffset(b.Min.X, b.Min.Y), m.Stride, func(dst, src []uint8) {
			for x := range dst {
				p := src[8*x : 8*x+8 : 8*x+8]
				a := uint32(p[6])<<8 | uint32(p[7])
				r := (uint32(p[0])<<8 | uint32(p[1])) * a / 0xffff
				g := (uint32(p[2])<<8 | uint32(p[3])) * a / 0xffff
				dst[x] = luma16(r, g, (uint32(p[4])<<8|uint32(p[5]))*a/0xffff)
			}
		})
	case *image.RGBA64:
		l.rows(m.Pix, m.PixOffset(b.Min.X, b.Min.Y), m.Stride, func(dst, src []uint8) {
			for x := range dst {
				p := src[8*x : 8*x+6 : 8*x+6]
				dst[x] = luma16(uint32(p[0])<<8|uint32(p[1]), uint32(p[2])<<8|uint32(p[3]), uint32(p[4])<<8|uint32(p[5]))
			}
		})
	case *image.Gray16:
		l.rows(m.Pix, m.PixOffset(b.Min.X, b.Min.Y), m.Stride, func(dst, src []uint8) {
			for x := range dst {
				v := uint32(src[2*x])<<8 | uint32(src[2*x+1])
				dst[x] = uint8((65536*v + 1<<15) >> 24)
			}
		})
	case *image.NYCbCrA:
		// Same values as the default path (alpha-premultiplied RGB to grey),
		// without boxing every pixel in an interface.
		for y := 0; y < h; y++ {
			dst := l.Pix[y*w : (y+1)*w]
			for x := range dst {
				yi, ci := m.YOffset(b.Min.X+x, b.Min.Y+y), m.COffset(b.Min.X+x, b.Min.Y+y)
				c := color.NYCbCrA{YCbCr: color.YCbCr{Y: m.Y[yi], Cb: m.Cb[ci], Cr: m.Cr[ci]}, A: m.A[m.AOffset(b.Min.X+x, b.Min.Y+y)]}
				r, g, bl, _ := c.RGBA()
				dst[x] = luma16(r, g, bl)
			}
		}
	default:
		for y := 0; y < h; y++ {
			dst := l.Pix[y*w : (y+1)*w]
			for x := range dst {
				dst[x] = color.GrayModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.Gray).Y
			}
		}
	}
	return l
}

// lumaOf mirrors color.GrayModel on 8-bit channels.
func lumaOf(r, g, b uint32) uint8 {
	return luma16(r*0x101, g*0x101, b*0x101)
}

// luma16 mirrors color.GrayModel on 16-bit channels.
func luma16(r, g, b uint32) uint8 {
	return uint8((19595*r + 38470*g + 7471*b + 1<<15) >> 24)
}

// rows calls conv with each row of l and the same row of an image's
// pixel bytes src, the first of which starts at src[start], stride bytes
// before the next.
func (l *Luma) rows(src []uint8, start, stride int, conv func(dst, src []uint8)) {
	for y := 0; y < l.Height; y++ {
		conv(l.Pix[y*l.Stride:y*l.Stride+l.Width], src[start+y*stride:])
	}
}
