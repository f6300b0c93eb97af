package main

import (
	"flag"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/image/draw"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/watermark"
)

// cover cuts m to the aspect of w×h around its centre and scales it to
// w×h (Catmull-Rom), as a thumbnail generator would.
func cover(m image.Image, w, h int) image.Image {
	b := m.Bounds()
	sw, sh := b.Dx(), b.Dy()
	cw, ch := sw, sw*h/w
	if ch > sh {
		cw, ch = sh*w/h, sh
	}
	r := image.Rect(0, 0, cw, ch).Add(b.Min).Add(image.Pt((sw-cw)/2, (sh-ch)/2))
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(out, out.Bounds(), m, r, draw.Src, nil)
	return out
}

// smallCommand measures how small a picture can be and still carry a
// recoverable watermark: every development image is cut to 4:3 and
// downscaled to each size, marked, attacked (re-encodes and resizes) and
// extracted. It prints exact recovery per size and attack; the smallest
// size the watermark accepts (watermark.MinEmbedShortSide) is chosen from
// this table, so every size is marked here, also below that minimum.
func smallCommand(fs *flag.FlagSet) func() error {
	corpus := addCorpusFlags(fs)
	sizes := fs.String("sizes", "320x240,256x192,224x168,200x150,180x135,160x120,128x96", "sizes to test, WxH")
	return func() error { return runSmall(fs, corpus, *sizes) }
}

// runSmall is the small command once its flags are parsed; fs names the
// flags set, for the table's heading.
func runSmall(fs *flag.FlagSet, corpus corpusFlags, sizes string) error {
	files, err := corpus.files()
	if err != nil {
		return err
	}
	var dims [][2]int
	for _, s := range strings.Split(sizes, ",") {
		var w, h int
		if _, err := fmt.Sscanf(s, "%dx%d", &w, &h); err != nil {
			return fmt.Errorf("size %q: %w", s, err)
		}
		dims = append(dims, [2]int{w, h})
	}
	atks, err := smallAttacks()
	if err != nil {
		return err
	}
	var srcs []image.Image
	for _, f := range files {
		m, _, err := loadCorpusImage(f)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", filepath.Base(f), err)
			continue
		}
		srcs = append(srcs, m)
	}
	fmt.Printf("command: %s\nimages: %d (cut to 4:3, downscaled)\n\n", commandLine(fs), len(srcs))
	fmt.Print("| size | embedded | PSNR min (dB) | unmarked false positives |")
	for _, a := range atks {
		fmt.Printf(" %s |", a.name)
	}
	fmt.Print("\n|---|---|---|---|")
	for range atks {
		fmt.Print("---|")
	}
	fmt.Println()
	return inTempDir("wm-small-", func(tmp string) error {
		for _, d := range dims {
			ok := make([]int, len(atks))
			embedded, fp := 0, 0
			minPSNR := 1e9
			for i, src := range srcs {
				img := cover(src, d[0], d[1])
				if _, det, _ := watermark.Extract(imagex.ToLuma(img)); det.Found {
					fp++
				}
				p := payloadFor(fmt.Sprint(i, d))
				marked, err := watermark.Embed(img, p, watermark.WithMinShortSide(min(d[0], d[1])))
				if err != nil {
					continue
				}
				embedded++
				if ps, err := watermark.PSNR(imagex.ToLuma(img), imagex.ToLuma(marked)); err == nil {
					minPSNR = min(minPSNR, ps)
				}
				for k, a := range atks {
					m, err := a.fn(marked, tmp)
					if err != nil {
						continue
					}
					if got, det, _ := watermark.Extract(imagex.ToLuma(m)); det.Found && got == p {
						ok[k]++
					}
				}
			}
			fmt.Printf("| %d×%d | %d/%d | %.1f | %d |", d[0], d[1], embedded, len(srcs), minPSNR, fp)
			for _, n := range ok {
				fmt.Printf(" %.1f %% |", 100*float64(n)/float64(max(embedded, 1)))
			}
			fmt.Println()
		}
		return nil
	})
}

// smallAttacks are the robustness table's re-encodes and resizes and two it
// does not have, in the order the small table's columns have always had.
func smallAttacks() ([]attack, error) {
	return pickAttacks(append(attacks(),
		attack{"jpeg75", "jpeg", jpegQ(75)}, attack{"resize0.75+jpeg75", "resize", chain(resizeBy(0.75), jpegQ(75))}),
		"none,jpeg90,jpeg75,jpeg50,resize0.75,resize1.5,resize0.75+jpeg75")
}
