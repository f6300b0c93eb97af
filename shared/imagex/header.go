package imagex

import (
	"bytes"
	"encoding/binary"
)

// What the standard decoders allocate, read from the headers before any
// pixel is decoded. The figures follow the decoders in image/png,
// image/jpeg, image/gif and golang.org/x/image/webp:
//
//   - PNG: one image of the colour type's Go type (Gray and Paletted 1 B/px,
//     Gray16 2, RGBA and NRGBA 4, RGBA64 and NRGBA64 8; a tRNS chunk turns
//     grey into NRGBA and truecolour into NRGBA or NRGBA64); an interlaced
//     file also allocates its seven passes, the size of the image again.
//   - JPEG: the sample planes padded to whole MCUs (grey 1 B/px, YCbCr
//     4:4:4 3, 4:2:2 and 4:4:0 2, 4:2:0 and 4:1:1 1.5, 4:1:0 1.25, plus a
//     full K plane for four components); a progressive file keeps every
//     coefficient as an int32 (4 B per sample) until its last scan; RGB and
//     four-component files are converted into a further 4 B/px image.
//   - GIF: the first frame as Paletted (1 B/px), copied once more when
//     interlaced.
//   - WebP: lossy frames as YCbCr 4:2:0 padded to 16×16 macroblocks, an
//     alpha plane of 1 B/px (a lossless-coded alpha plane is first decoded
//     as an NRGBA image and may be re-expanded: 8 B/px more); lossless
//     files as NRGBA, plus as much again when a colour-indexing transform
//     re-expands the packed pixels.

// kind is the Go type family of the image [Decode] returns, as far as the
// memory of the steps after it is concerned.
type kind uint8

const (
	// kindPlanar: *image.YCbCr or *image.Gray; a marked copy is the same
	// size as the image.
	kindPlanar kind = iota
	// kindRGBA: *image.RGBA or *image.NRGBA; a marked copy is the same size.
	kindRGBA
	// kindOther: anything else (paletted, 16-bit, CMYK, NYCbCrA); a marked
	// copy is an NRGBA image (4 B/px).
	kindOther
)

// layout is what a header says about the memory of a decode.
type layout struct {
	// peak is the most the decoder (and Orient) hold at once, in bytes.
	peak int64
	// out is the size of the image Decode returns, in bytes.
	out  int64
	kind kind
}

// pngLayout reads a PNG's IHDR (and scans the chunk headers up to the first
// IDAT for tRNS). It returns the declared dimensions even when ok is false
// because a later chunk could not be read.
func pngLayout(b []byte) (w, h int64, l layout, dims, ok bool) {
	const sig = 8
	if len(b) < sig+8+13 || string(b[sig+4:sig+8]) != "IHDR" || binary.BigEndian.Uint32(b[sig:]) != 13 {
		return 0, 0, layout{}, false, false
	}
	ihdr := b[sig+8 : sig+8+13]
	w, h = int64(binary.BigEndian.Uint32(ihdr[0:])), int64(binary.BigEndian.Uint32(ihdr[4:]))
	depth, ct, interlace := ihdr[8], ihdr[9], ihdr[12]
	trns := false
	for i := sig + 8 + 13 + 4; i+8 <= len(b); {
		n := int64(binary.BigEndian.Uint32(b[i:]))
		typ := string(b[i+4 : i+8])
		if typ == "IDAT" {
			break
		}
		if typ == "tRNS" {
			trns = true
		}
		next := int64(i) + 12 + n
		if next > int64(len(b)) {
			break
		}
		i = int(next)
	}
	px := w * h
	var bpp int64
	k := kindOther
	switch {
	case ct == 0 && depth <= 8: // grey
		bpp, k = 1, kindPlanar
		if trns {
			bpp, k = 4, kindRGBA
		}
	case ct == 0 && depth == 16:
		bpp = 2
		if trns {
			bpp = 8
		}
	case ct == 3: // paletted
		bpp = 1
	case (ct == 2 || ct == 4 || ct == 6) && depth == 8:
		bpp, k = 4, kindRGBA
	case (ct == 2 || ct == 4 || ct == 6) && depth == 16:
		bpp = 8
	default:
		return w, h, layout{}, true, false
	}
	l = layout{peak: bpp * px, out: bpp * px, kind: k}
	if interlace == 1 {
		l.peak *= 2
	}
	return w, h, l, true, true
}

// jpegLayout walks a JPEG's marker segments up to the first scan: the frame
// header gives the components and their sampling, APP0/APP14 whether the
// decoder converts to RGB.
func jpegLayout(b []byte, orientation int) (layout, bool) {
	if len(b) < 4 || b[0] != 0xFF || b[1] != 0xD8 {
		return layout{}, false
	}
	var (
		sof            []byte
		progressive    bool
		jfif, adobe    bool
		adobeTransform byte
	)
	for i := 2; i+4 <= len(b); {
		if b[i] != 0xFF { // stray bytes before a marker, skipped as image/jpeg does
			i++
			continue
		}
		m := b[i+1]
		switch {
		case m == 0xFF:
			i++
			continue
		case m == 0x01 || (m >= 0xD0 && m <= 0xD7):
			i += 2
			continue
		case m == 0xD9:
			return layout{}, false
		}
		n := int(binary.BigEndian.Uint16(b[i+2:]))
		if n < 2 || i+2+n > len(b) {
			return layout{}, false
		}
		seg := b[i+4 : i+2+n]
		switch {
		case m == 0xC0 || m == 0xC1 || m == 0xC2:
			if sof == nil {
				sof, progressive = seg, m == 0xC2
			}
		case m == 0xE0 && bytes.HasPrefix(seg, []byte("JFIF\x00")):
			jfif = true
		case m == 0xEE && len(seg) >= 12 && bytes.HasPrefix(seg, []byte("Adobe")):
			adobe, adobeTransform = true, seg[11]
		}
		if m == 0xDA {
			break
		}
		i += 2 + n
	}
	if len(sof) < 6 {
		return layout{}, false
	}
	h, w, nc := int64(binary.BigEndian.Uint16(sof[1:])), int64(binary.BigEndian.Uint16(sof[3:])), int(sof[5])
	if (nc != 1 && nc != 3 && nc != 4) || len(sof) < 6+3*nc || w == 0 || h == 0 {
		return layout{}, false
	}
	hv := func(c int) (int64, int64) { x := sof[7+3*c]; return int64(x >> 4), int64(x & 0x0F) }
	h0, v0 := hv(0)
	if nc == 1 {
		h0, v0 = 1, 1
	}
	if h0 < 1 || v0 < 1 {
		return layout{}, false
	}
	mxx, myy := (w+8*h0-1)/(8*h0), (h+8*v0-1)/(8*v0)
	yPlane := 64 * h0 * mxx * v0 * myy
	px := w * h
	samples := yPlane
	l := layout{kind: kindPlanar}
	switch nc {
	case 1:
		l.out = yPlane
	default:
		h1, v1 := hv(1)
		if h1 < 1 || v1 < 1 || h0%h1 != 0 || v0%v1 != 0 {
			return layout{}, false
		}
		chroma := yPlane / ((h0 / h1) * (v0 / v1))
		samples += 2 * chroma
		l.out = samples
		rgb := !jfif && ((adobe && adobeTransform == 0) || (nc == 3 && sof[6] == 'R' && sof[9] == 'G' && sof[12] == 'B'))
		if nc == 4 {
			samples += yPlane // the K plane
			l.out, l.kind = 4*px, kindOther
		} else if rgb {
			l.out, l.kind = 4*px, kindRGBA
		}
	}
	l.peak = samples
	if progressive {
		l.peak += 4 * samples
	}
	if l.kind != kindPlanar {
		l.peak += l.out
	}
	if orientation >= 2 && orientation <= 8 {
		// Orient copies: YCbCr becomes 4:4:4, grey stays grey, RGBA stays
		// RGBA; CMYK goes through one RGBA image into another.
		switch {
		case nc == 1:
			l.out = px
		case l.kind == kindPlanar:
			l.out = 3 * px
		case l.kind == kindRGBA:
			l.out = 4 * px
		default:
			l.peak += 4 * px
			l.out, l.kind = 4*px, kindRGBA
		}
		l.peak += l.out
	}
	return l, true
}

// gifLayout reads a GIF up to its first image descriptor.
func gifLayout(b []byte) (layout, bool) {
	if len(b) < 13 {
		return layout{}, false
	}
	i := 13
	if b[10]&0x80 != 0 {
		i += 3 << (b[10]&7 + 1)
	}
	for i < len(b) {
		switch b[i] {
		case 0x21: // extension: label, then sub-blocks
			i += 2
			for i < len(b) && b[i] != 0 {
				i += int(b[i]) + 1
			}
			i++
		case 0x2C:
			if i+10 > len(b) {
				return layout{}, false
			}
			d := b[i+1:]
			x, y := binary.LittleEndian.Uint16(d[0:]), binary.LittleEndian.Uint16(d[2:])
			px := int64(binary.LittleEndian.Uint16(d[4:])) * int64(binary.LittleEndian.Uint16(d[6:]))
			l := layout{peak: px, out: px, kind: kindOther}
			if d[8]&0x40 != 0 { // interlaced: the rows are reordered into a copy
				l.peak += px
			}
			if x != 0 || y != 0 { // Orient moves the frame to the origin as RGBA
				l.peak += 4 * px
				l.out, l.kind = 4*px, kindRGBA
			}
			return l, true
		default:
			return layout{}, false
		}
	}
	return layout{}, false
}

// webpLayout walks a WebP's RIFF chunks up to the image data.
func webpLayout(b []byte, w, h int64) (layout, bool) {
	px := w * h
	alpha := int64(0)
	for i := 12; i+8 <= len(b); {
		id := string(b[i : i+4])
		n := int64(binary.LittleEndian.Uint32(b[i+4:]))
		data := b[i+8:]
		switch id {
		case "ALPH":
			if len(data) < 1 {
				return layout{}, false
			}
			alpha = px
			if data[0]&3 == 1 {
				alpha += 8 * px
			}
		case "VP8 ":
			mb := ((w + 15) / 16) * ((h + 15) / 16)
			ycc := 256*mb + 2*64*mb
			if alpha > 0 {
				return layout{peak: alpha + ycc, out: ycc + px, kind: kindOther}, true
			}
			return layout{peak: ycc, out: ycc, kind: kindPlanar}, true
		case "VP8L":
			return layout{peak: 8 * px, out: 4 * px, kind: kindRGBA}, true
		}
		next := int64(i) + 8 + n + n&1
		if next > int64(len(b)) {
			return layout{}, false
		}
		i = int(next)
	}
	return layout{}, false
}

// worstLayout is used when a header the standard decoder accepted could not
// be read here: the most any file of the format can need per pixel.
func worstLayout(f Format, px int64) layout {
	per := map[Format]int64{PNG: 16, JPEG: 32, GIF: 6, WebP: 11}[f]
	return layout{peak: per * px, out: 4 * px, kind: kindOther}
}
