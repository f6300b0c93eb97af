package imagex

import (
	"fmt"

	"github.com/provenant/provenant/shared/limits"
)

// LumaImage is the luminance of an image decoded for verification,
// possibly at a reduced size.
type LumaImage struct {
	// Info is what the header declared (the full stored size, before
	// orientation).
	Info
	// Luma is the luminance plane, EXIF orientation applied, at 1/Scale of
	// the oriented size along each axis (rounded up).
	Luma *Luma
	// Scale is the reduction: 1, 2, 4 or 8.
	Scale int
}

// LumaScale returns the largest reduction s in 1, 2, 4, 8 whose plane of
// ceil(w/s)×ceil(h/s) still has a short side of at least minShort (1 when
// even the full size is shorter).
func LumaScale(w, h, minShort int) int {
	short := min(w, h)
	for _, s := range []int{8, 4, 2} {
		if (short+s-1)/s >= minShort {
			return s
		}
	}
	return 1
}

// DecodeLuma is [Decode] for a caller that needs only the luminance, and
// only at a short side of at least minShort pixels. For a JPEG (baseline
// or progressive Huffman coding, any chroma subsampling, restart
// intervals) it decodes the first component alone, at the largest scale of
// [LumaScale], straight from the DCT coefficients: the 1/8 plane is the
// mean of each 8×8 block, the 1/4 and 1/2 planes inverse DCTs of the
// lowest 2×2 and 4×4 frequencies. Its full-size output is the Y plane
// image/jpeg decodes, within one level. JPEGs it does not handle itself
// (arithmetic coding, 12-bit, lossless, CMYK, RGB-coded) and every other
// format are decoded by [Decode] and returned at full size (Scale 1).
//
// It checks the same limits first ([DecodeConfig]) and returns the same
// typed errors as [Decode]; a JPEG its own decoder rejects as malformed
// is handed to image/jpeg, so it refuses no file that Decode accepts.
// It never panics.
func DecodeLuma(b []byte, lim limits.Limits, minShort int) (*LumaImage, error) {
	info, err := DecodeConfig(b, lim)
	if err != nil {
		return nil, err
	}
	if info.Format == JPEG {
		s := LumaScale(info.Width, info.Height, minShort)
		var l *Luma
		err := guard(func() (err error) {
			l, err = decodeJPEGLuma(b, s, lim.MaxDecodeBytes)
			return err
		})
		if err == nil && (l.Width != (info.Width+s-1)/s || l.Height != (info.Height+s-1)/s) {
			err = fmt.Errorf("%w: decoded %d×%d at 1/%d, header said %d×%d", errLumaData, l.Width, l.Height, s, info.Width, info.Height)
		}
		if err == nil {
			return &LumaImage{Info: info, Luma: orientLuma(l, info.Orientation), Scale: s}, nil
		}
		// Anything else, unsupported or malformed: image/jpeg decides,
		// and its error is the one returned.
	}
	img, err := Decode(b, lim)
	if err != nil {
		return nil, err
	}
	return &LumaImage{Info: img.Info, Luma: ToLuma(img.Image), Scale: 1}, nil
}

// orientLuma returns l transformed for EXIF orientation o (see [Orient]),
// as a plane whose stride is its width.
func orientLuma(l *Luma, o int) *Luma {
	if o < 2 || o > 8 {
		return l
	}
	w, h := l.Width, l.Height
	dw, dh := w, h
	if o >= 5 {
		dw, dh = h, w
	}
	out := &Luma{Width: dw, Height: dh, Stride: dw, Pix: make([]uint8, dw*dh)}
	remap(out.Pix, dw, l.Pix, l.Stride, 1, dw, dh, orientSource(o, w, h))
	return out
}
