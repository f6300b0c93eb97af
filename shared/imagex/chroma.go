package imagex

import (
	"image"
	"image/color"
)

// ChromaBlock is the block side, in pixels, of the chroma means [Chroma]
// returns.
const ChromaBlock = 8

// Chroma returns the BT.601 chroma (Cb, Cr, offset 128) of m averaged
// over blocks: planes of ceil(w/8)×ceil(h/8) samples, each covering an
// equal share of the picture (pixel x belongs to sample x·cw/w), as the
// JPEG chroma planes of the verify decode do. A grey image (*image.Gray,
// *image.Gray16) gives nil planes, as a one-component JPEG does. Alpha is
// ignored (the colour as stored).
func Chroma(m image.Image) (cb, cr *Luma) {
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= 0 || h <= 0 {
		return nil, nil
	}
	switch m.(type) {
	case *image.Gray, *image.Gray16:
		return nil, nil
	}
	cw, ch := (w+ChromaBlock-1)/ChromaBlock, (h+ChromaBlock-1)/ChromaBlock
	sumB := make([]int64, cw*ch)
	sumR := make([]int64, cw*ch)
	xi, yi := make([]int, w), make([]int, h)
	cnt := make([]int64, cw*ch)
	for x := range xi {
		xi[x] = x * cw / w
	}
	for y := range yi {
		yi[y] = y * ch / h
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			cnt[yi[y]*cw+xi[x]]++
		}
	}
	add := func(x, y int, r, g, bl int32) {
		// BT.601 full range, as JPEG: Cb = −0.1687R − 0.3313G + 0.5B,
		// Cr = 0.5R − 0.4187G − 0.0813B, in 1/65536.
		i := yi[y]*cw + xi[x]
		sumB[i] += int64(-11056*r - 21712*g + 32768*bl)
		sumR[i] += int64(32768*r - 27440*g - 5328*bl)
	}
	// ycc sums the chroma planes as stored; rgb reads interleaved samples
	// of size bytes (1: 8-bit, 2: 16-bit, high byte first, read in place so
	// a large picture costs no allocation per pixel).
	ycc := func(t *image.YCbCr) {
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				ci := t.COffset(b.Min.X+x, b.Min.Y+y)
				i := yi[y]*cw + xi[x]
				sumB[i] += (int64(t.Cb[ci]) - 128) << 16
				sumR[i] += (int64(t.Cr[ci]) - 128) << 16
			}
		}
	}
	rgb := func(pix []uint8, stride, size int) {
		px := 4 * size
		for y := 0; y < h; y++ {
			row := pix[y*stride : y*stride+px*w]
			for x := 0; x < w; x++ {
				add(x, y, int32(row[px*x]), int32(row[px*x+size]), int32(row[px*x+2*size]))
			}
		}
	}
	switch t := m.(type) {
	case *image.YCbCr:
		ycc(t)
	case *image.NYCbCrA:
		ycc(&t.YCbCr)
	case *image.RGBA:
		rgb(t.Pix, t.Stride, 1)
	case *image.NRGBA:
		rgb(t.Pix, t.Stride, 1)
	case *image.RGBA64:
		rgb(t.Pix, t.Stride, 2)
	case *image.NRGBA64:
		rgb(t.Pix, t.Stride, 2)
	case *image.Paletted:
		pal := make([]color.NRGBA, len(t.Palette))
		for i, c := range t.Palette {
			pal[i] = color.NRGBAModel.Convert(c).(color.NRGBA)
		}
		for y := 0; y < h; y++ {
			row := t.Pix[y*t.Stride : y*t.Stride+w]
			for x, k := range row {
				if int(k) < len(pal) {
					c := pal[k]
					add(x, y, int32(c.R), int32(c.G), int32(c.B))
				}
			}
		}
	default:
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				c := color.NRGBAModel.Convert(m.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
				add(x, y, int32(c.R), int32(c.G), int32(c.B))
			}
		}
	}
	cb = &Luma{Width: cw, Height: ch, Stride: cw, Pix: make([]uint8, cw*ch)}
	cr = &Luma{Width: cw, Height: ch, Stride: cw, Pix: make([]uint8, cw*ch)}
	for i := range cnt {
		a := cnt[i] << 16
		cb.Pix[i] = clampChroma(sumB[i], a)
		cr.Pix[i] = clampChroma(sumR[i], a)
	}
	return cb, cr
}

// clampChroma is 128 + s/a rounded, clamped to 0..255 (a > 0).
func clampChroma(s, a int64) uint8 {
	v := 128 + (2*s+a)/(2*a)
	if 2*s+a < 0 && (2*s+a)%(2*a) != 0 {
		v--
	}
	return uint8(min(max(v, 0), 255))
}
