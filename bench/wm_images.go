package main

import (
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/image/draw"
	"golang.org/x/image/webp"
)

// decodeFile decodes a JPEG, PNG, GIF or WebP file with the stdlib and
// x/image decoders.
func decodeFile(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jpg", ".jpeg":
		return jpeg.Decode(f)
	case ".png":
		return png.Decode(f)
	case ".webp":
		return webp.Decode(f)
	default:
		m, _, err := image.Decode(f)
		return m, err
	}
}

// listImages returns the image files of dir, sorted.
func listImages(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list images: %w", err)
	}
	var out []string
	for _, e := range ents {
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".jpg", ".jpeg", ".png", ".webp", ".gif":
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out, nil
}

// corpusFiles lists the development images of dir, sorted; with limit > 0
// it keeps limit of them spread evenly over the sorted list (not a prefix,
// so a subset still mixes the packages, sizes and kinds of picture).
func corpusFiles(dir string, limit int) ([]string, error) {
	files, err := listImages(dir)
	if err != nil {
		return nil, err
	}
	return spreadOver(files, limit), nil
}

// heldOut keeps the development images never used to tune the watermark:
// every fourth file of the sorted list (index ≡ 3 mod 4), less those the
// earlier tuning runs' subsets (-limit 14, 16 and 24) picked.
func heldOut(files []string) []string {
	tuned := map[string]bool{}
	for _, limit := range []int{14, 16, 24} {
		for _, f := range spreadOver(files, limit) {
			tuned[f] = true
		}
	}
	var out []string
	for i, f := range files {
		if i%4 == 3 && !tuned[f] {
			out = append(out, f)
		}
	}
	return out
}

// loadCorpusImage decodes one development image and flattens it over black
// when it is translucent (flat reports that it was), as the watermark
// benchmarks mark and measure it.
func loadCorpusImage(path string) (img image.Image, flat bool, err error) {
	m, err := decodeFile(path)
	if err != nil {
		return nil, false, err
	}
	img, flat = flattenAlpha(m)
	return img, flat, nil
}

// synthImages are generated photo-like hard cases: a flat sky gradient, dark
// text on a flat studio background, and a noisy night scene.
func synthImages() map[string]image.Image {
	w, h := 1600, 1067
	sky := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		t := float64(y) / float64(h)
		for x := 0; x < w; x++ {
			i := y*sky.Stride + 4*x
			sky.Pix[i], sky.Pix[i+1], sky.Pix[i+2], sky.Pix[i+3] = uint8(90+100*t), uint8(140+80*t), uint8(220+25*t), 255
		}
	}
	text := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < len(text.Pix); i += 4 {
		text.Pix[i], text.Pix[i+1], text.Pix[i+2], text.Pix[i+3] = 236, 234, 228, 255
	}
	// Rows of "glyphs": random dark strokes on a 24 px line grid.
	for ly := 120; ly < h-120; ly += 36 {
		for lx := 120; lx < w-120; {
			gw := 8 + r.IntN(12)
			for k := 0; k < 3; k++ {
				x0, y0 := lx+r.IntN(gw), ly+r.IntN(20)
				vert := r.IntN(2) == 0
				for s := 0; s < 10+r.IntN(10); s++ {
					for t := 0; t < 3; t++ {
						x, y := x0+t, y0+s
						if !vert {
							x, y = x0+s, y0+t
						}
						if x < w && y < h {
							text.Set(x, y, color.RGBA{30, 30, 35, 255})
						}
					}
				}
			}
			lx += gw + 4
			if r.IntN(7) == 0 {
				lx += 14
			}
		}
	}
	night := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := 12 + 10*float64(y)/float64(h) + r.NormFloat64()*3
			// A few lit windows and a street lamp glow.
			if (x/40)%3 == 0 && (y/30)%4 == 1 && y > h/2 && r.IntN(50) != 0 {
				v += 90
			}
			dx, dy := float64(x-w*3/4), float64(y-h/3)
			v += 160 * math.Exp(-(dx*dx+dy*dy)/(2*60*60))
			c := uint8(math.Max(0, math.Min(255, v)))
			i := y*night.Stride + 4*x
			night.Pix[i], night.Pix[i+1], night.Pix[i+2], night.Pix[i+3] = c, c, uint8(math.Min(255, float64(c)+8)), 255
		}
	}
	return map[string]image.Image{"synth-sky-gradient": sky, "synth-text-flat": text, "synth-night": night}
}

// flattenAlpha composites an image with any translucent pixel over opaque
// black (what Go's JPEG encoder and imagex.ToLuma do) and reports whether it
// had to.
func flattenAlpha(m image.Image) (image.Image, bool) {
	n, ok := m.(*image.NRGBA)
	if !ok {
		return m, false
	}
	opaque := true
	for i := 3; i < len(n.Pix); i += 4 {
		if n.Pix[i] != 255 {
			opaque = false
			break
		}
	}
	if opaque {
		return m, false
	}
	out := image.NewRGBA(n.Bounds())
	draw.Draw(out, out.Bounds(), image.NewUniform(color.Black), image.Point{}, draw.Src)
	draw.Draw(out, out.Bounds(), n, n.Bounds().Min, draw.Over)
	return out, true
}
