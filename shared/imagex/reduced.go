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
	// Cb and Cr are the picture's chroma means (BT.601, offset 128),
	// EXIF orientation applied, each sample the mean over a block of the
	// picture covering it whole (a JPEG's 8×8 chroma blocks, read from
	// their DC coefficients; 8×8 pixels of a full decode, [Chroma]); nil
	// when the file has no chroma or its decoder did not give it. From
	// [DecodeLuma] they are made on the first call of
	// [LumaImage.Chroma], which is how to read them.
	Cb, Cr *Luma
	// chroma, when not nil, makes Cb and Cr (only the checks of a
	// watermarked picture read them).
	chroma func() (cb, cr *Luma)
}

// Chroma returns Cb and Cr, making them first if the decoder left them
// to be made. The first call must not run concurrently with another.
func (li *LumaImage) Chroma() (cb, cr *Luma) {
	if li.chroma != nil {
		li.Cb, li.Cr = li.chroma()
		li.chroma = nil
	}
	return li.Cb, li.Cr
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
	return DecodeLumaInfo(b, info, lim, minShort)
}

// DecodeLumaInfo is [DecodeLuma] for a caller that has already read the
// header, with info = DecodeConfig(b, lim) returned without error (to
// weigh the decode's memory first): it does not read the header again.
// The result is DecodeLuma's. An info that is not b's under lim gives a
// wrong Info in the result or an error, never a panic.
func DecodeLumaInfo(b []byte, info Info, lim limits.Limits, minShort int) (*LumaImage, error) {
	if info.Format == JPEG {
		s := LumaScale(info.Width, info.Height, minShort)
		var l *Luma
		var d *lumaDecoder
		err := guard(func() (err error) {
			d, err = decodeJPEGLumaDecoder(b, s, lim.MaxDecodeBytes)
			if err == nil {
				l = d.out
			}
			return err
		})
		if err == nil && (l.Width != (info.Width+s-1)/s || l.Height != (info.Height+s-1)/s) {
			err = fmt.Errorf("%w: decoded %d×%d at 1/%d, header said %d×%d", errLumaData, l.Width, l.Height, s, info.Width, info.Height)
		}
		if err == nil {
			li := &LumaImage{Info: info, Luma: orientLuma(l, info.Orientation), Scale: s}
			// The chroma needs the DC coefficients and the frame's
			// geometry, not the file, the plane or a progressive
			// frame's coefficients.
			d.data, d.out, d.coef = nil, nil, nil
			li.chroma = func() (cb, cr *Luma) {
				cb, cr = d.chromaPlanes()
				if cb == nil || cr == nil {
					return nil, nil
				}
				return orientLuma(cb, info.Orientation), orientLuma(cr, info.Orientation)
			}
			return li, nil
		}
		// Anything else, unsupported or malformed: image/jpeg decides,
		// and its error is the one returned.
	}
	img, err := Decode(b, lim)
	if err != nil {
		return nil, err
	}
	cb, cr := Chroma(img.Image)
	return &LumaImage{Info: img.Info, Luma: ToLuma(img.Image), Scale: 1, Cb: cb, Cr: cr}, nil
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

// DownscaleAs returns what [Downscale] of the full-size luminance would
// give at w×h, computed from img's reduced plane: each output pixel is
// the mean over the same block of full-size pixels (edges at i*W/w, W the
// oriented full width), with every reduced pixel counted for the
// full-size pixels it stands for. It is exact where each Scale×Scale group
// is uniform; elsewhere only the groups cut by a block edge differ. This
// keeps the perceptual hash of a reduced decode (256×256 blocks) on the
// blocks a full decode would have averaged, instead of blocks rounded to
// whole groups. At Scale 1 it is Downscale.
func (img *LumaImage) DownscaleAs(w, h int) *Luma {
	l := img.Luma
	if img.Scale <= 1 {
		return Downscale(l, w, h)
	}
	if w <= 0 || h <= 0 || l.Width <= 0 || l.Height <= 0 {
		panic("imagex: DownscaleAs of or to an empty plane")
	}
	W, H := img.OrientedSize()
	s := img.Scale
	revX, revY := orientReversed(img.Orientation)
	x0, x1 := bins(W, w)
	y0, y1 := bins(H, h)
	// Reduced pixel p stands for full-size pixels [p*s-off, (p+1)*s-off)
	// of its axis, off being the padding of the last group when the
	// orientation reversed the axis (the partial group then comes first).
	offX, offY := 0, 0
	if revX {
		offX = l.Width*s - W
	}
	if revY {
		offY = l.Height*s - H
	}
	// weights returns, for one output interval [a, b) of full pixels, the
	// first reduced pixel it touches and the full pixels each one covers.
	weights := func(a, b, off, n int) (first int, ws []int) {
		first = (a + off) / s
		for p := first; p < n; p++ {
			lo, hi := max(a, p*s-off), min(b, (p+1)*s-off)
			if hi <= lo {
				break
			}
			ws = append(ws, hi-lo)
		}
		return first, ws
	}
	out := &Luma{Width: w, Height: h, Stride: w, Pix: make([]uint8, w*h)}
	col := make([]uint64, l.Width)
	means := blockSpec{spec: make([]int, 0, 4*w), cols: l.Width}
	for i := range w {
		first, ws := weights(x0[i], x1[i], offX, l.Width)
		means.spec = append(means.spec, first, len(ws), len(means.wts), x1[i]-x0[i])
		for _, wt := range ws {
			means.wts = append(means.wts, uint64(wt))
		}
	}
	means.check()
	for j := 0; j < h; j++ {
		clear(col)
		fy, wy := weights(y0[j], y1[j], offY, l.Height)
		weightedSums(col, l.Pix, fy*l.Stride, l.Stride, wy)
		means.row(out.Pix[j*w:(j+1)*w], col, y1[j]-y0[j])
	}
	return out
}

// weightedSums adds to each col[x] the bytes pix[off+k*stride+x] times
// wts[k], for every row k, after checking that they all lie in pix and
// that every weight is 1 to 256 (the WebAssembly body reads without
// bounds checks and sums 16-bit lanes): runs of rows whose weights add
// up to at most 256 at a time.
func weightedSums(col []uint64, pix []uint8, off, stride int, wts []int) {
	if len(wts) < 1 || len(col) < 1 || off < 0 || stride < len(col) || off > len(pix)-(len(wts)-1)*stride-len(col) {
		panic("imagex: weighted sums outside the plane")
	}
	for len(wts) > 0 {
		n, sum := 0, 0
		for ; n < len(wts) && wts[n] >= 1 && sum+wts[n] <= 256; n++ {
			sum += wts[n]
		}
		if n == 0 {
			panic("imagex: a row weight outside 1 to 256")
		}
		weightedSumsImpl(col, pix[off:], stride, wts[:n])
		off += n * stride
		wts = wts[n:]
	}
}

// weightedSumsGo is weightedSums's portable body and the reference for
// the WebAssembly one.
func weightedSumsGo(col []uint64, pix []uint8, stride int, wts []int) {
	for k, wt := range wts {
		addWeighted(col, pix[k*stride:k*stride+len(col)], uint64(wt))
	}
}

// addWeighted adds wt times each byte of row to col (of the same length),
// eight columns per iteration: the sums are the same integers, with an
// eighth of the loop's jumps and bounds checks.
func addWeighted(col []uint64, row []uint8, wt uint64) {
	col = col[:len(row)]
	x := 0
	for ; x+8 <= len(row); x += 8 {
		r, c := row[x:x+8:x+8], col[x:x+8:x+8]
		c[0] += wt * uint64(r[0])
		c[1] += wt * uint64(r[1])
		c[2] += wt * uint64(r[2])
		c[3] += wt * uint64(r[3])
		c[4] += wt * uint64(r[4])
		c[5] += wt * uint64(r[5])
		c[6] += wt * uint64(r[6])
		c[7] += wt * uint64(r[7])
	}
	for ; x < len(row); x++ {
		col[x] += wt * uint64(row[x])
	}
}

// orientReversed reports whether EXIF orientation o runs the displayed x
// and y axes against the stored axes they come from.
func orientReversed(o int) (x, y bool) {
	switch o {
	case 2:
		return true, false
	case 3:
		return true, true
	case 4:
		return false, true
	case 6:
		return true, false
	case 7:
		return true, true
	case 8:
		return false, true
	}
	return false, false
}
