package imagex

import (
	"image"
)

// Orient returns img transformed for EXIF orientation o (1..8), at origin
// (0, 0). Orientation 1 and out-of-range values return img unchanged (but
// translated to the origin if needed). *image.Gray, *image.RGBA and
// *image.NRGBA keep their type; *image.YCbCr becomes a 4:4:4 *image.YCbCr
// with the Y plane moved bit-exactly; other types become *image.RGBA.
func Orient(img image.Image, o int) image.Image {
	b := img.Bounds()
	if o < 2 || o > 8 {
		if b.Min == (image.Point{}) {
			return img
		}
		o = 1
	}
	w, h := b.Dx(), b.Dy()
	dw, dh := w, h
	if o >= 5 {
		dw, dh = h, w
	}
	src := orientSource(o, w, h)
	switch m := img.(type) {
	case *image.Gray:
		d := image.NewGray(image.Rect(0, 0, dw, dh))
		remap(d.Pix, d.Stride, m.Pix[m.PixOffset(b.Min.X, b.Min.Y):], m.Stride, 1, dw, dh, src)
		return d
	case *image.RGBA:
		d := image.NewRGBA(image.Rect(0, 0, dw, dh))
		remap(d.Pix, d.Stride, m.Pix[m.PixOffset(b.Min.X, b.Min.Y):], m.Stride, 4, dw, dh, src)
		return d
	case *image.NRGBA:
		d := image.NewNRGBA(image.Rect(0, 0, dw, dh))
		remap(d.Pix, d.Stride, m.Pix[m.PixOffset(b.Min.X, b.Min.Y):], m.Stride, 4, dw, dh, src)
		return d
	case *image.YCbCr:
		d := image.NewYCbCr(image.Rect(0, 0, dw, dh), image.YCbCrSubsampleRatio444)
		for y := 0; y < dh; y++ {
			for x := 0; x < dw; x++ {
				sx, sy := src(x, y)
				sx, sy = sx+b.Min.X, sy+b.Min.Y
				i := y*d.YStride + x
				d.Y[i] = m.Y[m.YOffset(sx, sy)]
				c := m.COffset(sx, sy)
				d.Cb[i], d.Cr[i] = m.Cb[c], m.Cr[c]
			}
		}
		return d
	}
	// Rare types (CMYK, 16-bit, paletted): convert to RGBA first, with
	// what draw.Draw(…, draw.Src) stores (the high byte of each
	// alpha-premultiplied 16-bit channel), without linking image/draw
	// into the browser's module.
	rgba := toRGBA(img)
	if o == 1 {
		return rgba
	}
	return Orient(rgba, o)
}

// remap copies bpp-byte pixels from src to dst through the coordinate map f.
func remap(dst []uint8, dstStride int, src []uint8, srcStride, bpp, dw, dh int, f func(x, y int) (int, int)) {
	for y := 0; y < dh; y++ {
		row := dst[y*dstStride:]
		for x := 0; x < dw; x++ {
			sx, sy := f(x, y)
			copy(row[x*bpp:x*bpp+bpp], src[sy*srcStride+sx*bpp:])
		}
	}
}

// orientSource maps a pixel of the image oriented by o to its pixel in the
// stored w×h image.
func orientSource(o, w, h int) func(x, y int) (int, int) {
	return func(x, y int) (int, int) {
		switch o {
		case 2: // mirror horizontal
			return w - 1 - x, y
		case 3: // rotate 180
			return w - 1 - x, h - 1 - y
		case 4: // mirror vertical
			return x, h - 1 - y
		case 5: // transpose
			return y, x
		case 6: // rotate 90 CW
			return y, h - 1 - x
		case 7: // transverse
			return w - 1 - y, h - 1 - x
		case 8: // rotate 270 CW
			return w - 1 - y, x
		}
		return x, y
	}
}

// toRGBA copies img into a new RGBA image at the origin.
func toRGBA(img image.Image) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := out.Pix[(y-b.Min.Y)*out.Stride:]
		for x, i := b.Min.X, 0; x < b.Max.X; x, i = x+1, i+4 {
			r, g, bl, a := img.At(x, y).RGBA()
			row[i], row[i+1], row[i+2], row[i+3] = uint8(r>>8), uint8(g>>8), uint8(bl>>8), uint8(a>>8)
		}
	}
	return out
}
