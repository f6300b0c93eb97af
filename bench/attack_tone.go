package main

import (
	"image"
	"math"
	"sort"
)

// Tone edits: what a photo editor's or a phone's "enhance" does to the
// luminance, the watermark's carrier. Each is applied to R, G and B as
// 8-bit RGB, as the editors do.

// toneAttacks lists the tone-edit columns of bench robustness.
func toneAttacks() []attack {
	return []attack{
		// A strong linear contrast boost about mid-grey (clips both ends).
		{"contrast1.6", "tone", perPixel(func(v float64) float64 { return 128 + 1.6*(v-128) })},
		// An S-curve (ImageMagick -sigmoidal-contrast 6x50%), the usual
		// "contrast" slider of photo apps: steep in the mid-tones, flat
		// near black and white.
		{"scurve6", "tone", perPixel(sigmoidal(6, 0.5))},
		// Auto levels: the 1st and 99th luminance percentiles stretched to
		// 0 and 255.
		{"autolevels", "tone", autoLevels(0.01)},
		{"gamma0.75", "tone", perPixel(func(v float64) float64 { return 255 * math.Pow(v/255, 0.75) })},
		{"gamma1.4", "tone", perPixel(func(v float64) float64 { return 255 * math.Pow(v/255, 1.4) })},
		{"saturation2", "tone", saturate(2)},
		{"saturation0.5", "tone", saturate(0.5)},
		// A local tone map ("HDR" or "clarity"): in the log domain the
		// large-scale base is compressed and the detail amplified.
		{"tonemap-local", "tone", localToneMap(0.6, 1.4)},
		// Both a contrast boost and a re-share.
		{"scurve6-jpeg70", "tone", chain(perPixel(sigmoidal(6, 0.5)), jpegQ(70))},
	}
}

// sigmoidal is ImageMagick's sigmoidal contrast with gain a about the
// midpoint b (0–1), scaled so that 0 and 255 stay fixed.
func sigmoidal(a, b float64) func(float64) float64 {
	sig := func(u float64) float64 { return 1 / (1 + math.Exp(a*(b-u))) }
	lo, hi := sig(0), sig(1)
	return func(v float64) float64 { return 255 * (sig(v/255) - lo) / (hi - lo) }
}

// autoLevels stretches the luminance percentiles clip and 1−clip to 0 and
// 255 with one LUT on every channel.
func autoLevels(clip float64) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, tmp string) (image.Image, error) {
		src := toRGBA(m)
		n := len(src.Pix) / 4
		ys := make([]float64, 0, n)
		for i := 0; i < len(src.Pix); i += 4 {
			ys = append(ys, 0.299*float64(src.Pix[i])+0.587*float64(src.Pix[i+1])+0.114*float64(src.Pix[i+2]))
		}
		sort.Float64s(ys)
		lo, hi := ys[int(clip*float64(n-1))], ys[int((1-clip)*float64(n-1))]
		if hi-lo < 1 {
			return src, nil
		}
		return perPixel(func(v float64) float64 { return 255 * (v - lo) / (hi - lo) })(src, tmp)
	}
}

// localToneMap works on the log luminance Y: base = its blur at a tenth of
// the short side (three box passes), out = base·compress + (log Y −
// base)·detail, renormalised to the input's mean; R, G and B are scaled by
// the luminance ratio.
func localToneMap(compress, detail float64) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, _ string) (image.Image, error) {
		src := toRGBA(m)
		w, h := src.Bounds().Dx(), src.Bounds().Dy()
		ly := make([]float64, w*h)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				i := y*src.Stride + 4*x
				ly[y*w+x] = math.Log(1 + 0.299*float64(src.Pix[i]) + 0.587*float64(src.Pix[i+1]) + 0.114*float64(src.Pix[i+2]))
			}
		}
		base := append([]float64(nil), ly...)
		r := max(1, min(w, h)/30)
		for pass := 0; pass < 3; pass++ {
			base = boxBlurF(base, w, h, r)
		}
		var meanIn, meanOut float64
		out := make([]float64, len(ly))
		for i, v := range ly {
			out[i] = base[i]*compress + (v-base[i])*detail
			meanIn += v
			meanOut += out[i]
		}
		shift := (meanIn - meanOut) / float64(len(ly))
		res := image.NewRGBA(image.Rect(0, 0, w, h))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				i, j := y*src.Stride+4*x, y*res.Stride+4*x
				k := math.Exp(out[y*w+x] + shift - ly[y*w+x]) // ratio of (1+Y) values
				for c := 0; c < 3; c++ {
					v := float64(src.Pix[i+c])
					res.Pix[j+c] = clampU8((1+v)*k - 1)
				}
				res.Pix[j+3] = 255
			}
		}
		return res, nil
	}
}

// boxBlurF is a (2r+1)-wide box blur of a w×h plane, edges clamped.
func boxBlurF(p []float64, w, h, r int) []float64 {
	tmp := make([]float64, len(p))
	out := make([]float64, len(p))
	n := float64(2*r + 1)
	for y := 0; y < h; y++ {
		row := p[y*w : (y+1)*w]
		var s float64
		for k := -r; k <= r; k++ {
			s += row[min(max(k, 0), w-1)]
		}
		for x := 0; x < w; x++ {
			tmp[y*w+x] = s / n
			s += row[min(x+r+1, w-1)] - row[max(x-r, 0)]
		}
	}
	for x := 0; x < w; x++ {
		var s float64
		for k := -r; k <= r; k++ {
			s += tmp[min(max(k, 0), h-1)*w+x]
		}
		for y := 0; y < h; y++ {
			out[y*w+x] = s / n
			s += tmp[min(y+r+1, h-1)*w+x] - tmp[max(y-r, 0)*w+x]
		}
	}
	return out
}
