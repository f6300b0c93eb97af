package watermark

import (
	"image"
	"image/draw"
	"math"

	"github.com/provenant/provenant/shared/imagex"
)

// The embedder's full-resolution passes. Embed measures the mark's energy,
// checks the dithered rounding against the PSNR target and writes the
// output, each over every pixel of the picture; these helpers make each
// pass as cheap as it can be while computing exactly the same floating-point
// values, in the same order where the order matters (the energy's sum
// aside, see energy), as the straightforward per-pixel formulas they
// replace (TestEmbedGolden pins the output).

// upsampler produces rows of the bilinear enlargement of a ww-wide working
// residual to the picture's size.
type upsampler struct {
	res   []float32
	ww    int
	bx    bilinear
	by    bilinear
	spans []span    // output columns grouped by their left source column
	row   []float32 // the current row, at working width
}

// span is a run of output columns [x0, x1) interpolated between the same
// two source columns i0 and i1: their values and difference are read once
// per run instead of once per pixel.
type span struct{ x0, x1, i0, i1 int }

func newUpsampler(res []float32, ww, wh, W, H int) *upsampler {
	u := &upsampler{res: res, ww: ww, bx: newBilinear(ww, W), by: newBilinear(wh, H), row: make([]float32, ww)}
	for x := 0; x < W; {
		s := span{x0: x, i0: u.bx.i0[x], i1: u.bx.i1[x]}
		for x < W && u.bx.i0[x] == s.i0 && u.bx.i1[x] == s.i1 {
			x++
		}
		s.x1 = x
		u.spans = append(u.spans, s)
	}
	return u
}

// line writes row y of the enlarged residual to dst (len W): vertical then
// horizontal interpolation, each a + f×(b−a) in float32.
func (u *upsampler) line(y int, dst []float32) {
	ww := u.ww
	r0, r1, fy := u.res[u.by.i0[y]*ww:][:ww], u.res[u.by.i1[y]*ww:][:ww], u.by.f[y]
	row := u.row[:ww]
	for x := range row {
		row[x] = r0[x] + fy*(r1[x]-r0[x])
	}
	f := u.bx.f
	for _, s := range u.spans {
		a := row[s.i0]
		d := row[s.i1] - a
		fs, out := f[s.x0:s.x1], dst[s.x0:s.x1]
		for i := range out {
			out[i] = a + fs[i]*d
		}
	}
}

// energy returns the sum of squares of the enlarged residual in float64.
//
// A single running sum would make every pixel wait for the previous
// addition (about 15 ms of latency at 12 MP); four partial sums per row do
// not. The order moves the sum by about 1e-13 of itself, and Embed rounds
// the scale it derives from it to float32 (steps of 6e-8), so the scale,
// and the output, change only when the sum lies that close to a rounding
// boundary: none of the golden cases nor any of the 94 pictures of the
// benchmark corpus does.
func (u *upsampler) energy(delta []float32) float64 {
	var ss float64
	for y := 0; y < len(u.by.f); y++ {
		u.line(y, delta)
		var s0, s1, s2, s3 float64
		i := 0
		for ; i+4 <= len(delta); i += 4 {
			d := delta[i : i+4 : i+4]
			s0 += float64(d[0]) * float64(d[0])
			s1 += float64(d[1]) * float64(d[1])
			s2 += float64(d[2]) * float64(d[2])
			s3 += float64(d[3]) * float64(d[3])
		}
		for ; i < len(delta); i++ {
			s0 += float64(delta[i]) * float64(delta[i])
		}
		ss += (s0 + s1) + (s2 + s3)
	}
	return ss
}

// lumaView returns the luminance plane of img without copying it when img
// stores it as a plane (YCbCr, Gray); the embedder only reads it.
func lumaView(img image.Image) *imagex.Luma {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	switch m := img.(type) {
	case *image.YCbCr:
		if w > 0 && h > 0 {
			return &imagex.Luma{Width: w, Height: h, Stride: m.YStride, Pix: m.Y[m.YOffset(b.Min.X, b.Min.Y):]}
		}
	case *image.Gray:
		if w > 0 && h > 0 {
			return &imagex.Luma{Width: w, Height: h, Stride: m.Stride, Pix: m.Pix[m.PixOffset(b.Min.X, b.Min.Y):]}
		}
	}
	return imagex.ToLuma(img)
}

// marker writes the marked picture: a copy of the input whose luminance
// rows are set from the input's rows plus an offset. Rows are always
// written from the input, so a later pass with another scale simply
// overwrites an earlier one.
type marker struct {
	img image.Image
	// plane is the output's luminance plane when the picture stores one
	// (YCbCr, Gray): the rounding pass writes it directly and measures the
	// result on the way.
	plane  []uint8
	stride int
	origin int
	// setRow writes row y of other layouts from the input row plus d.
	setRow func(y int, d []float32)
}

func newMarker(img image.Image) *marker {
	b := img.Bounds()
	switch m := img.(type) {
	case *image.YCbCr:
		c := &image.YCbCr{
			Y: append([]uint8(nil), m.Y...), Cb: append([]uint8(nil), m.Cb...), Cr: append([]uint8(nil), m.Cr...),
			YStride: m.YStride, CStride: m.CStride, SubsampleRatio: m.SubsampleRatio, Rect: m.Rect,
		}
		return &marker{img: c, plane: c.Y, stride: c.YStride, origin: c.YOffset(b.Min.X, b.Min.Y)}
	case *image.Gray:
		c := &image.Gray{Pix: append([]uint8(nil), m.Pix...), Stride: m.Stride, Rect: m.Rect}
		return &marker{img: c, plane: c.Pix, stride: c.Stride, origin: c.PixOffset(b.Min.X, b.Min.Y)}
	case *image.RGBA:
		c := &image.RGBA{Pix: append([]uint8(nil), m.Pix...), Stride: m.Stride, Rect: m.Rect}
		return &marker{img: c, setRow: rgbRows(m.Pix, c.Pix, c.Stride, c.PixOffset(b.Min.X, b.Min.Y))}
	case *image.NRGBA:
		c := &image.NRGBA{Pix: append([]uint8(nil), m.Pix...), Stride: m.Stride, Rect: m.Rect}
		return &marker{img: c, setRow: nrgbaRows(m.Pix, c.Pix, c.Stride, c.PixOffset(b.Min.X, b.Min.Y))}
	default:
		c := image.NewNRGBA(b)
		draw.Draw(c, b, img, b.Min, draw.Src)
		src := append([]uint8(nil), c.Pix...)
		return &marker{img: c, setRow: nrgbaRows(src, c.Pix, c.Stride, 0)}
	}
}

// pass is one sweep over the picture at scale alpha: the enlarged residual
// times alpha plus the dither, rounded onto the luminance l.
//
// With check, it returns the squared error of the rounding the PSNR
// prediction assumes (l + alpha×delta + dither, rounded once). With write,
// it writes the output (each channel gets delta×alpha + dither, as the
// output's own rounding sees it) and, for a luminance plane, returns the
// squared error of what it wrote; other layouts report −1 there and are
// measured on the output's luminance.
func (e *embedPass) pass(alpha float32, check, write bool) (predicted, written int64) {
	l, u, delta, m := e.l, e.u, e.delta, e.m
	if check && write && m.plane != nil {
		return e.checkAndWrite(alpha)
	}
	for y := 0; y < l.Height; y++ {
		u.line(y, delta)
		src := l.Pix[y*l.Stride:][:l.Width]
		delta := delta[:len(src)]
		hy := uint32(y) * ditherY
		for x, v := range src {
			dt := ditherMix(uint32(x)*ditherX ^ hy)
			if check {
				d := int64(clamp8(float32(v)+alpha*delta[x]+dt)) - int64(v)
				predicted += d * d
			}
			delta[x] = delta[x]*alpha + dt
		}
		if !write {
			continue
		}
		if m.plane == nil {
			m.setRow(y, delta)
			continue
		}
		dst := m.plane[m.origin+y*m.stride:][:len(src)]
		for x, v := range src {
			q := clamp8(float32(v) + delta[x])
			dst[x] = q
			d := int64(q) - int64(v)
			written += d * d
		}
	}
	if !write || m.plane == nil {
		written = -1
	}
	return predicted, written
}

// checkAndWrite is pass with check and write on a luminance plane, the
// usual case, in one loop.
func (e *embedPass) checkAndWrite(alpha float32) (predicted, written int64) {
	l, u, delta, m := e.l, e.u, e.delta, e.m
	for y := 0; y < l.Height; y++ {
		u.line(y, delta)
		src := l.Pix[y*l.Stride:][:l.Width]
		dst := m.plane[m.origin+y*m.stride:][:len(src)]
		delta := delta[:len(src)]
		h := uint32(y) * ditherY
		var hx uint32
		var pr, wr int64
		for x, v := range src {
			dt := ditherMix(hx ^ h)
			hx += ditherX
			fv, d := float32(v), delta[x]
			c := int64(clamp8(fv+alpha*d+dt)) - int64(v)
			q := clamp8(fv + (d*alpha + dt))
			dst[x] = q
			o := int64(q) - int64(v)
			pr += c * c
			wr += o * o
		}
		predicted += pr
		written += wr
	}
	return predicted, written
}

// embedPass holds what the full-resolution sweeps share.
type embedPass struct {
	l     *imagex.Luma
	u     *upsampler
	delta []float32
	m     *marker
}

// psnrOf is the PSNR of a squared error ss over n pixels, as PSNR computes it.
func psnrOf(ss int64, n int) float64 {
	if ss == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255*float64(n)/float64(ss))
}
