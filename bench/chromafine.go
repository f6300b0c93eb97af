package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"time"

	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/localsig"
	"github.com/provenant/provenant/shared/watermark"
)

// runChromaFine measures whether a chroma descriptor finer than a
// colour-grid block (the 2×2 sub-cell chroma means of each block, less
// the block's mean) separates colour-only text from genuine copies: per
// copy, after a least-squares gain per channel over every block, the
// number of blocks whose largest sub-cell residual exceeds 3 to 8 levels.
// Only copies that keep the picture's geometry are measured, so the
// examined probe lies on the signed one without an alignment.
func runChromaFine(dir string, limit, long int) error {
	files, err := heldOutFiles(dir, limit)
	if err != nil {
		return err
	}
	return inTempDir("chromafine", func(tmp string) error {
		ths := []float64{3, 4, 5, 6, 8}
		copies := map[string]bool{"1080q80": true, "sharpen-q90": true, "webp80": true, "1600q60": true, "contrast1.25": true, "saturation1.4": true, "gamma0.75": true, "hdr-local": true, "unchanged-q90": true}
		for _, path := range files {
			src, _, err := loadCorpusImage(path)
			if err != nil {
				continue
			}
			if b := src.Bounds(); max(b.Dx(), b.Dy()) > long {
				if src, err = longSide(long)(src, tmp); err != nil {
					return err
				}
			}
			name := filepath.Base(path)
			payload := payloadFor(name)
			marked, err := watermark.Embed(src, payload)
			if err != nil {
				continue
			}
			mr := toRGBA(marked)
			l := imagex.ToLuma(mr)
			ww, wh := localsig.WorkDims(l.Width, l.Height)
			sp := localsig.NewProbe(l, localsig.Alignment{Scale: 1, WorkWidth: ww, WorkHeight: wh, Period: 1}).WithChroma(imagex.Chroma(mr))
			cols, rows := localsig.LayoutColour(ww, wh)
			sig := subChroma(sp, cols, rows)
			measure := func(label string, file []byte) {
				f, err := facts.Analyze(file, limits.Default(), time.Now())
				if err != nil || f.Local == nil || f.Local.Cb == nil {
					fmt.Printf("%-40s %-16s no probe\n", name, label)
					return
				}
				if f.Local.Plane.Width != sp.Plane.Width || f.Local.Plane.Height != sp.Plane.Height {
					f.Local.Plane = imagex.Downscale(f.Local.Plane, sp.Plane.Width, sp.Plane.Height)
					f.Local.WithChroma(f.Local.Cb, f.Local.Cr)
				}
				ex := subChroma(f.Local, cols, rows)
				fmt.Printf("%-40s %-16s", name, label)
				for _, t := range ths {
					fmt.Printf(" >%g:%4d", t, overFine(sig, ex, t))
				}
				fmt.Println()
			}
			for _, c := range genuineCopies() {
				if !copies[c.name] {
					continue
				}
				file, err := c.fn(mr, tmp)
				if err != nil {
					return err
				}
				measure(c.name, file)
			}
			rng := rand.New(rand.NewPCG(uint64(payload), 32))
			for _, a := range []float64{0.01, 0.02, 0.05} {
				file, err := encJPEG(colourText(cloneRGBA(mr), a, rng, nil), 90)
				if err != nil {
					return err
				}
				measure(fmt.Sprintf("colour-text %g%%", 100*a), file)
			}
		}
		return nil
	})
}

// subChroma returns, per block of a cols×rows layout over the probe, the
// 2×2 sub-cell Cb and Cr means less the block's: 8 values per block.
func subChroma(p *localsig.Probe, cols, rows int) [][8]float64 {
	w, h := p.Plane.Width, p.Plane.Height
	out := make([][8]float64, cols*rows)
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			x0, x1 := c*w/cols, (c+1)*w/cols
			y0, y1 := r*h/rows, (r+1)*h/rows
			xm, ym := (x0+x1)/2, (y0+y1)/2
			var v [8]float64
			for k, pl := range []*imagex.Luma{p.Cb, p.Cr} {
				mean := func(ax, ay, bx, by int) float64 {
					var s, n float64
					for y := ay; y < by; y++ {
						for x := ax; x < bx; x++ {
							s += float64(pl.Pix[y*pl.Stride+x])
							n++
						}
					}
					if n == 0 {
						return 0
					}
					return s / n
				}
				bm := mean(x0, y0, x1, y1)
				v[4*k+0] = mean(x0, y0, xm, ym) - bm
				v[4*k+1] = mean(xm, y0, x1, ym) - bm
				v[4*k+2] = mean(x0, ym, xm, y1) - bm
				v[4*k+3] = mean(xm, ym, x1, y1) - bm
			}
			out[r*cols+c] = v
		}
	}
	return out
}

// overFine counts blocks whose largest sub-cell residual, after a
// least-squares gain per channel, exceeds t.
func overFine(s, e [][8]float64, t float64) int {
	var gain [2]float64
	for k := 0; k < 2; k++ {
		var sx, sxy float64
		for i := range s {
			for j := 4 * k; j < 4*k+4; j++ {
				sx += s[i][j] * s[i][j]
				sxy += s[i][j] * e[i][j]
			}
		}
		gain[k] = 1
		if sx > 0 {
			gain[k] = sxy / sx
		}
	}
	n := 0
	for i := range s {
		worst := 0.0
		for j := 0; j < 8; j++ {
			worst = max(worst, math.Abs(e[i][j]-gain[j/4]*s[i][j]))
		}
		if worst > t {
			n++
		}
	}
	return n
}
