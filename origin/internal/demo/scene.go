package demo

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"math/rand/v2"
)

// palette is one scene's colours: sky top and horizon, sun, and the
// hills from far to near.
type palette struct {
	skyTop, skyLow, sun color.RGBA
	hills               [3]color.RGBA
}

var palettes = []palette{
	{color.RGBA{38, 70, 140, 255}, color.RGBA{250, 180, 120, 255}, color.RGBA{255, 236, 170, 255},
		[3]color.RGBA{{120, 110, 150, 255}, {70, 100, 90, 255}, {35, 60, 45, 255}}},
	{color.RGBA{90, 150, 220, 255}, color.RGBA{200, 230, 250, 255}, color.RGBA{255, 255, 235, 255},
		[3]color.RGBA{{110, 140, 170, 255}, {60, 120, 110, 255}, {40, 90, 140, 255}}},
	{color.RGBA{20, 20, 60, 255}, color.RGBA{120, 60, 110, 255}, color.RGBA{240, 230, 200, 255},
		[3]color.RGBA{{70, 50, 90, 255}, {45, 35, 70, 255}, {20, 20, 40, 255}}},
	{color.RGBA{120, 170, 200, 255}, color.RGBA{240, 220, 170, 255}, color.RGBA{255, 250, 220, 255},
		[3]color.RGBA{{170, 150, 110, 255}, {140, 110, 70, 255}, {90, 70, 40, 255}}},
}

// Scene draws a generated landscape (sky, sun, three ranges of hills,
// film grain) as a JPEG of w×h, the same for the same seed. The grain
// gives the picture the texture of a photograph, which the watermark and
// the perceptual hash are designed for.
func Scene(seed uint64, w, h int) []byte {
	p := palettes[int(seed)%len(palettes)]
	r := rand.New(rand.NewPCG(seed, seed*0x9e3779b97f4a7c15+1))
	sunX, sunY, sunR := float64(w)*(0.2+0.6*r.Float64()), float64(h)*(0.2+0.2*r.Float64()), float64(h)*0.08
	type wave struct{ amp, freq, phase float64 }
	var ridges [3][3]wave
	for i := range ridges {
		for j := range ridges[i] {
			ridges[i][j] = wave{amp: float64(h) * (0.05 / float64(j+1)), freq: float64(j+1) * (1.5 + r.Float64()*2), phase: r.Float64() * 6.28}
		}
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := 0; x < w; x++ {
		fx := float64(x) / float64(w)
		var tops [3]float64
		for i := range ridges {
			base := float64(h) * (0.45 + 0.15*float64(i))
			for _, wv := range ridges[i] {
				base += wv.amp * math.Sin(fx*wv.freq*math.Pi*2+wv.phase)
			}
			tops[i] = base
		}
		for y := 0; y < h; y++ {
			fy := float64(y)
			c := mix(p.skyTop, p.skyLow, fy/float64(h)*1.4)
			if d := math.Hypot(float64(x)-sunX, fy-sunY); d < sunR*3 {
				c = mix(c, p.sun, math.Max(0, 1-math.Max(0, d-sunR)/(sunR*2)))
			}
			for i := range tops {
				if fy >= tops[i] {
					shade := 1 - 0.35*(fy-tops[i])/float64(h)
					c = scale(p.hills[i], shade)
				}
			}
			g := r.NormFloat64() * 7
			img.SetRGBA(x, y, color.RGBA{clamp(float64(c.R) + g), clamp(float64(c.G) + g), clamp(float64(c.B) + g), 255})
		}
	}
	var buf bytes.Buffer
	_ = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}) // cannot fail on an in-memory RGBA
	return buf.Bytes()
}

func mix(a, b color.RGBA, t float64) color.RGBA {
	t = math.Max(0, math.Min(1, t))
	return color.RGBA{
		clamp(float64(a.R) + (float64(b.R)-float64(a.R))*t),
		clamp(float64(a.G) + (float64(b.G)-float64(a.G))*t),
		clamp(float64(a.B) + (float64(b.B)-float64(a.B))*t), 255}
}

func scale(c color.RGBA, f float64) color.RGBA {
	return color.RGBA{clamp(float64(c.R) * f), clamp(float64(c.G) * f), clamp(float64(c.B) * f), 255}
}

func clamp(v float64) uint8 {
	return uint8(math.Max(0, math.Min(255, math.Round(v))))
}
