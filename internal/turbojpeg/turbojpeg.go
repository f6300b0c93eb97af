//go:build turbo && cgo

package turbojpeg

/*
#cgo LDFLAGS: -lturbojpeg
#include <stdlib.h>
#include <turbojpeg.h>

static int pv_decode_planes(tjhandle h, const unsigned char *b, unsigned long n,
		unsigned char *y, unsigned char *u, unsigned char *v,
		int w, int ys, int cs, int hgt, int flags) {
	unsigned char *p[3] = {y, u, v};
	int s[3] = {ys, cs, cs};
	return tjDecompressToYUVPlanes(h, b, n, p, w, s, hgt, flags);
}

static int pv_encode_planes(tjhandle h, const unsigned char *y, const unsigned char *u,
		const unsigned char *v, int w, int ys, int cs, int hgt, int ss,
		unsigned char **out, unsigned long *size, int q, int flags) {
	const unsigned char *p[3] = {y, u, v};
	int s[3] = {ys, cs, cs};
	return tjCompressFromYUVPlanes(h, p, w, s, hgt, ss, out, size, q, flags);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"image"
	"image/draw"
	"io"
	"unsafe"

	"github.com/provenant/provenant/shared/imagex"
)

// Codec is the TurboJPEG [imagex.JPEGCodec]. The zero value is ready to
// use and safe for concurrent use: every call has its own TurboJPEG
// handle, destroyed before it returns.
type Codec struct{}

var _ imagex.JPEGCodec = Codec{}

// Name returns "turbojpeg".
func (Codec) Name() string { return "turbojpeg" }

// errUnsupported marks a file the plane decoder does not take; DecodeJPEG
// hands it to image/jpeg.
var errUnsupported = errors.New("turbojpeg: not decodable to planes")

// decodeFlags: stop at the first warning (damaged data is image/jpeg's to
// judge) and refuse progressive files with more than 500 scans, which
// libjpeg would otherwise spend unbounded time on.
const decodeFlags = C.TJFLAG_STOPONWARNING | C.TJFLAG_LIMITSCANS

// DecodeJPEG decodes b with TurboJPEG into planes it allocates only after
// the file's own header has been read and found equal to info (so within
// the limits [imagex.DecodeConfig] checked), falling back to image/jpeg for
// the files the package documentation lists. Its peak memory is the
// planes (the size of image/jpeg's, without the MCU padding) plus, for a
// progressive file, libjpeg's coefficient buffer of 2 bytes per sample
// (image/jpeg keeps 4): within info.DecodeBytes.
func (Codec) DecodeJPEG(b []byte, info imagex.Info) (image.Image, error) {
	img, err := decodePlanes(b, info)
	if err == nil {
		return img, nil
	}
	if errors.Is(err, imagex.ErrTooManyPixels) {
		return nil, err
	}
	return imagex.StdJPEG{}.DecodeJPEG(b, info)
}

// ratio maps TurboJPEG's subsampling to the image package's.
func ratio(ss C.int) (image.YCbCrSubsampleRatio, bool) {
	switch ss {
	case C.TJSAMP_444:
		return image.YCbCrSubsampleRatio444, true
	case C.TJSAMP_422:
		return image.YCbCrSubsampleRatio422, true
	case C.TJSAMP_420:
		return image.YCbCrSubsampleRatio420, true
	case C.TJSAMP_440:
		return image.YCbCrSubsampleRatio440, true
	case C.TJSAMP_411:
		return image.YCbCrSubsampleRatio411, true
	}
	return 0, false
}

// decodePlanes is the TurboJPEG path of DecodeJPEG, without the fallback:
// errUnsupported for a file it does not take, an error wrapping
// imagex.ErrCorrupt for one that fails or warns while decoding.
func decodePlanes(b []byte, info imagex.Info) (image.Image, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("%w: empty", errUnsupported)
	}
	h := C.tjInitDecompress()
	if h == nil {
		return nil, fmt.Errorf("turbojpeg: init: %s", C.GoString(C.tjGetErrorStr2(nil)))
	}
	defer C.tjDestroy(h)
	src, n := (*C.uchar)(unsafe.Pointer(&b[0])), C.ulong(len(b))
	var w, hgt, ss, cs C.int
	if C.tjDecompressHeader3(h, src, n, &w, &hgt, &ss, &cs) != 0 {
		return nil, fmt.Errorf("%w: header: %s", errUnsupported, C.GoString(C.tjGetErrorStr2(h)))
	}
	if int(w) != info.Width || int(hgt) != info.Height {
		return nil, fmt.Errorf("%w: TurboJPEG reads %d×%d, the header check %d×%d", errUnsupported, w, hgt, info.Width, info.Height)
	}
	rect := image.Rect(0, 0, int(w), int(hgt))
	var (
		img        image.Image
		y, u, v    *C.uchar
		ys, cstr   int
		planes     []byte // the last plane, followed by the guard
		need       int64
		planeBytes = func(c C.int) int64 {
			return int64(C.tjPlaneWidth(c, w, ss)) * int64(C.tjPlaneHeight(c, hgt, ss))
		}
	)
	switch {
	case cs == C.TJCS_GRAY && ss == C.TJSAMP_GRAY:
		need = planeBytes(0)
		if err := within(need, info); err != nil {
			return nil, err
		}
		pix := guarded(int(need))
		g := &image.Gray{Pix: pix, Stride: int(w), Rect: rect}
		img, y, ys, planes = g, (*C.uchar)(unsafe.Pointer(&g.Pix[0])), g.Stride, pix
	case cs == C.TJCS_YCbCr:
		r, ok := ratio(ss)
		if !ok {
			return nil, fmt.Errorf("%w: subsampling %d", errUnsupported, ss)
		}
		need = planeBytes(0) + 2*planeBytes(1)
		if err := within(need, info); err != nil {
			return nil, err
		}
		m := newPlanes(w, hgt, ss, r)
		planes = m.Cr // the last plane: the guard follows it
		img, ys, cstr = m, m.YStride, m.CStride
		y = (*C.uchar)(unsafe.Pointer(&m.Y[0]))
		u, v = (*C.uchar)(unsafe.Pointer(&m.Cb[0])), (*C.uchar)(unsafe.Pointer(&m.Cr[0]))
	default:
		return nil, fmt.Errorf("%w: colour space %d", errUnsupported, cs)
	}
	rc := C.pv_decode_planes(h, src, n, y, u, v, w, C.int(ys), C.int(cstr), hgt, decodeFlags)
	if !intact(planes) {
		// TurboJPEG wrote past the planes it was given: a plane size
		// computed here is wrong. Never hand out that memory.
		panic(fmt.Sprintf("turbojpeg: decode of %d×%d (subsampling %d) wrote past its planes", w, hgt, ss))
	}
	if rc != 0 {
		return nil, fmt.Errorf("%w: turbojpeg: %s", imagex.ErrCorrupt, C.GoString(C.tjGetErrorStr2(h)))
	}
	return img, nil
}

// guardLen bytes of a known pattern follow every plane allocation handed
// to TurboJPEG, so that a write past the planes (a wrong plane size) is
// detected instead of silently corrupting memory.
const (
	guardLen  = 64
	guardByte = 0xA5
)

// guarded returns n zero bytes whose capacity extends over the guard.
func guarded(n int) []byte {
	b := make([]byte, n+guardLen)
	for i := n; i < len(b); i++ {
		b[i] = guardByte
	}
	return b[:n]
}

// intact reports whether the guard after b (from guarded) is untouched.
func intact(b []byte) bool {
	g := b[len(b):cap(b)]
	for _, v := range g {
		if v != guardByte {
			return false
		}
	}
	return len(g) == guardLen
}

// newPlanes allocates a w×h image with TurboJPEG's plane sizes: the Y
// plane padded to a whole number of chroma samples (TurboJPEG reads and
// writes those padding samples), chroma planes as the image package's.
func newPlanes(w, h, ss C.int, r image.YCbCrSubsampleRatio) *image.YCbCr {
	yw, yh := int(C.tjPlaneWidth(0, w, ss)), int(C.tjPlaneHeight(0, h, ss))
	cw, ch := int(C.tjPlaneWidth(1, w, ss)), int(C.tjPlaneHeight(1, h, ss))
	ny, nc := yw*yh, cw*ch
	buf := guarded(ny + 2*nc)
	return &image.YCbCr{
		Y: buf[:ny:ny], Cb: buf[ny : ny+nc : ny+nc], Cr: buf[ny+nc:],
		YStride: yw, CStride: cw, SubsampleRatio: r, Rect: image.Rect(0, 0, int(w), int(h)),
	}
}

// fitPlanes returns m (4:2:0, at the origin) if its planes cover
// TurboJPEG's plane sizes, or else a copy whose Y padding repeats the last
// column and row, as image/jpeg's encoder pads its edge blocks.
func fitPlanes(m *image.YCbCr) *image.YCbCr {
	w, h := C.int(m.Rect.Dx()), C.int(m.Rect.Dy())
	yw, yh := int(C.tjPlaneWidth(0, w, C.TJSAMP_420)), int(C.tjPlaneHeight(0, h, C.TJSAMP_420))
	cw, ch := int(C.tjPlaneWidth(1, w, C.TJSAMP_420)), int(C.tjPlaneHeight(1, h, C.TJSAMP_420))
	covers := func(p []byte, stride, pw, ph int) bool { return stride >= pw && len(p) >= stride*(ph-1)+pw }
	if covers(m.Y, m.YStride, yw, yh) && covers(m.Cb, m.CStride, cw, ch) && covers(m.Cr, m.CStride, cw, ch) &&
		(int(w) == yw && int(h) == yh) {
		return m
	}
	d := newPlanes(w, h, C.TJSAMP_420, image.YCbCrSubsampleRatio420)
	copyLuma(d, m)
	for y := 0; y < ch; y++ {
		copy(d.Cb[y*cw:(y+1)*cw], m.Cb[y*m.CStride:])
		copy(d.Cr[y*cw:(y+1)*cw], m.Cr[y*m.CStride:])
	}
	return d
}

// to420 returns m with 4:2:0 chroma, computed as image/jpeg's encoder
// computes it (each chroma sample the rounded mean of the chroma of the
// 2×2 pixels it covers, edge pixels repeated), so that both codecs write
// the same picture; m itself when it is 4:2:0 at the origin already.
func to420(m *image.YCbCr) *image.YCbCr {
	r := m.Rect
	if m.SubsampleRatio == image.YCbCrSubsampleRatio420 && r.Min == (image.Point{}) {
		return m
	}
	w, h := r.Dx(), r.Dy()
	d := newPlanes(C.int(w), C.int(h), C.TJSAMP_420, image.YCbCrSubsampleRatio420)
	copyLuma(d, m)
	for cy := 0; cy < (h+1)/2; cy++ {
		y0, y1 := r.Min.Y+2*cy, r.Min.Y+min(2*cy+1, h-1)
		cb, cr := d.Cb[cy*d.CStride:], d.Cr[cy*d.CStride:]
		for cx := 0; cx < (w+1)/2; cx++ {
			x0, x1 := r.Min.X+2*cx, r.Min.X+min(2*cx+1, w-1)
			a, b, c, e := m.COffset(x0, y0), m.COffset(x1, y0), m.COffset(x0, y1), m.COffset(x1, y1)
			cb[cx] = uint8((int(m.Cb[a]) + int(m.Cb[b]) + int(m.Cb[c]) + int(m.Cb[e]) + 2) >> 2)
			cr[cx] = uint8((int(m.Cr[a]) + int(m.Cr[b]) + int(m.Cr[c]) + int(m.Cr[e]) + 2) >> 2)
		}
	}
	return d
}

// copyLuma fills d's whole Y plane (padding included) from m's luminance,
// repeating m's last column and row into the padding.
func copyLuma(d, m *image.YCbCr) {
	r := m.Rect
	w, h := r.Dx(), r.Dy()
	yh := len(d.Y) / d.YStride
	for y := 0; y < yh; y++ {
		row := d.Y[y*d.YStride : (y+1)*d.YStride]
		copy(row, m.Y[m.YOffset(r.Min.X, r.Min.Y+min(y, h-1)):][:w])
		for x := w; x < len(row); x++ {
			row[x] = row[w-1]
		}
	}
}

// within refuses planes larger than the decode memory the header check
// granted (info.DecodeBytes; 0 when the caller did not run it).
func within(need int64, info imagex.Info) error {
	if info.DecodeBytes > 0 && need > info.DecodeBytes {
		return &imagex.DimensionError{Format: imagex.JPEG, Width: info.Width, Height: info.Height,
			NeedBytes: need, MaxBytes: info.DecodeBytes}
	}
	return nil
}

// EncodeJPEG writes img at IJG quality q (clamped to 1..100) with
// TurboJPEG, as image/jpeg would write it: an *image.Gray as grey, any
// other image with 4:2:0 chroma. An *image.YCbCr is compressed from its
// planes (no colour conversion), its chroma first brought to 4:2:0 as
// image/jpeg's encoder does when it is not; other images are converted to
// RGB, alpha ignored as image/jpeg ignores it.
func (Codec) EncodeJPEG(wr io.Writer, img image.Image, q int) error {
	q = min(max(q, 1), 100)
	b := img.Bounds()
	if b.Empty() {
		return errors.New("turbojpeg: encode: empty image")
	}
	if b.Dx() > 65535 || b.Dy() > 65535 {
		return fmt.Errorf("turbojpeg: encode: %d×%d exceeds the JPEG limit of 65535 per side", b.Dx(), b.Dy())
	}
	h := C.tjInitCompress()
	if h == nil {
		return fmt.Errorf("turbojpeg: init: %s", C.GoString(C.tjGetErrorStr2(nil)))
	}
	defer C.tjDestroy(h)
	var (
		out  *C.uchar
		size C.ulong
		rc   C.int
		w    = C.int(b.Dx())
		hgt  = C.int(b.Dy())
	)
	switch m := img.(type) {
	case *image.YCbCr:
		m = fitPlanes(to420(m))
		rc = C.pv_encode_planes(h, (*C.uchar)(unsafe.Pointer(&m.Y[0])), (*C.uchar)(unsafe.Pointer(&m.Cb[0])),
			(*C.uchar)(unsafe.Pointer(&m.Cr[0])), w, C.int(m.YStride), C.int(m.CStride), hgt, C.TJSAMP_420,
			&out, &size, C.int(q), 0)
	case *image.Gray:
		pix := m.Pix[m.PixOffset(b.Min.X, b.Min.Y):]
		rc = C.tjCompress2(h, (*C.uchar)(unsafe.Pointer(&pix[0])), w, C.int(m.Stride), hgt, C.TJPF_GRAY,
			&out, &size, C.TJSAMP_GRAY, C.int(q), 0)
	default:
		rc = encodePixels(h, toRGBA(img), &out, &size, q)
	}
	if out != nil {
		defer C.tjFree(out)
	}
	if rc != 0 {
		return fmt.Errorf("turbojpeg: encode: %s", C.GoString(C.tjGetErrorStr2(h)))
	}
	if _, err := wr.Write(unsafe.Slice((*byte)(unsafe.Pointer(out)), int(size))); err != nil {
		return fmt.Errorf("turbojpeg: encode: %w", err)
	}
	return nil
}

// encodePixels compresses an RGBA image (origin (0, 0)) as 4:2:0 YCbCr.
func encodePixels(h C.tjhandle, m *image.RGBA, out **C.uchar, size *C.ulong, q int) C.int {
	b := m.Bounds()
	return C.tjCompress2(h, (*C.uchar)(unsafe.Pointer(&m.Pix[0])), C.int(b.Dx()), C.int(m.Stride), C.int(b.Dy()),
		C.TJPF_RGBX, out, size, C.TJSAMP_420, C.int(q), 0)
}

// toRGBA returns img as an *image.RGBA at the origin, converting when it
// is not one already (the colour image/jpeg's encoder would read).
func toRGBA(img image.Image) *image.RGBA {
	b := img.Bounds()
	if m, ok := img.(*image.RGBA); ok && b.Min == (image.Point{}) {
		return m
	}
	m := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(m, m.Bounds(), img, b.Min, draw.Src)
	return m
}
