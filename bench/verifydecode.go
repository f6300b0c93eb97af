package main

// go run ./bench decode: what the reduced-resolution verify decode
// (imagex.DecodeLuma, used by facts.Analyze) changes. Every development
// image is marked as signing marks it, every robustness attack is applied,
// and the attacked picture is stored as a JPEG (quality -q, the form a
// verifier receives); the same file is then checked twice, from the full
// decode (imagex.Decode, the luminance of every pixel) and from the
// reduced luminance decode at each -min-short, and the table compares
// watermark recovery, bit errors and perceptual-hash distance between the
// two.

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/watermark"
)

type decodeCheck struct {
	found     bool
	recovered bool
	bitErrors int
	hash      phash.Hash
	ms        float64
}

type decodeRow struct {
	attack string
	full   decodeCheck
	red    []decodeCheck // one per -min-short
	scales []int
}

func decodeStudyCommand(fs *flag.FlagSet) func() error {
	dir := fs.String("images", "bench/images", "directory of development images")
	limit := fs.Int("limit", 0, "use at most N images, spread over the sorted list (0 = all)")
	only := fs.String("attacks", "", "comma-separated attack names (default all)")
	maxMP := fs.Float64("max-mp", 12, "skip images above this many megapixels")
	workers := fs.Int("j", 2, "images processed in parallel")
	quality := fs.Int("q", 95, "JPEG quality the attacked picture is stored at")
	shorts := fs.String("min-short", "512", "comma-separated short sides for imagex.DecodeLuma")
	return func() error {
		var minShort []int
		for _, s := range strings.Split(*shorts, ",") {
			v, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || v <= 0 {
				return fmt.Errorf("bad -min-short %q", s)
			}
			minShort = append(minShort, v)
		}
		files, err := corpusFiles(*dir, *limit)
		if err != nil {
			return err
		}
		atks, err := attacksNamed(*only)
		if err != nil {
			return err
		}
		lim := limits.Default()
		var mu sync.Mutex
		var rows []decodeRow
		images := 0
		err = eachWithScratch(files, *workers, "decode-study-", func(tmp, path string) {
			img, err := decodeFile(path)
			if err != nil {
				return
			}
			img, _ = flattenAlpha(img)
			b := img.Bounds()
			if float64(b.Dx()*b.Dy())/1e6 > *maxMP {
				return
			}
			name := filepath.Base(path)
			p := payloadFor(name)
			marked, err := watermark.Embed(img, p)
			if err != nil {
				return
			}
			var out []decodeRow
			for _, a := range atks {
				m, err := a.fn(marked, tmp)
				if err != nil {
					continue
				}
				file, err := jpegOf(m, *quality)
				if err != nil {
					continue
				}
				r := decodeRow{attack: a.name}
				r.full = checkFull(file, lim, p)
				for _, s := range minShort {
					c, sc := checkReduced(file, lim, p, s)
					r.red, r.scales = append(r.red, c), append(r.scales, sc)
				}
				out = append(out, r)
			}
			mu.Lock()
			rows = append(rows, out...)
			images++
			// One line per image and attack, so that a partial run
			// still says something.
			for _, r := range out {
				fmt.Fprintf(os.Stderr, "%s\t%s\tfull=%v/%d", name, r.attack, r.full.recovered, r.full.bitErrors)
				for i, c := range r.red {
					fmt.Fprintf(os.Stderr, "\tmin%d=%v/%d/1:%d/d256=%d", minShort[i], c.recovered, c.bitErrors, r.scales[i],
						phash.Distance256(r.full.hash.P256, c.hash.P256))
				}
				fmt.Fprintln(os.Stderr)
			}
			mu.Unlock()
		})
		if err != nil {
			return err
		}
		printDecodeStudy(rows, atks, minShort, images, *quality, commandLine(fs))
		return nil
	}
}

func checkFull(file []byte, lim limits.Limits, p watermark.Payload) decodeCheck {
	t := time.Now()
	img, err := imagex.Decode(file, lim)
	if err != nil {
		return decodeCheck{}
	}
	c := decodeCheck{ms: float64(time.Since(t).Microseconds()) / 1000}
	l := imagex.ToLuma(img.Image)
	return finishCheck(c, l, p)
}

func checkReduced(file []byte, lim limits.Limits, p watermark.Payload, minShort int) (decodeCheck, int) {
	t := time.Now()
	img, err := imagex.DecodeLuma(file, lim, minShort)
	if err != nil {
		return decodeCheck{}, 0
	}
	c := decodeCheck{ms: float64(time.Since(t).Microseconds()) / 1000}
	c = finishCheck(c, img.Luma, p)
	c.hash, _ = phash.Compute(img.DownscaleAs(phash.Side256, phash.Side256))
	return c, img.Scale
}

func finishCheck(c decodeCheck, l *imagex.Luma, p watermark.Payload) decodeCheck {
	got, d, _ := watermark.Extract(l)
	c.found, c.recovered, c.bitErrors = d.Found, d.Found && got == p, d.BitErrors
	c.hash, _ = phash.Compute(l)
	return c
}

func printDecodeStudy(rows []decodeRow, atks []attack, minShort []int, images, quality int, cmd string) {
	fmt.Printf("%s\n%d images ≤ max-mp, every attacked picture stored as JPEG q%d, then checked from the full decode and from imagex.DecodeLuma\n\n", cmd, images, quality)
	hdr := "| attack | full decode: recovered | mean bit errors |"
	sep := "|---|---|---|"
	for _, s := range minShort {
		hdr += fmt.Sprintf(" min-short %d: recovered | mean bit errors | pHash-256 distance to full, median / max | pHash-64 max | scales used |", s)
		sep += "---|---|---|---|---|"
	}
	fmt.Println(hdr)
	fmt.Println(sep)
	sumFull, nAll := 0, 0
	sumRed := make([]int, len(minShort))
	for _, a := range append(atks, attack{name: "**all**"}) {
		var full []decodeCheck
		red := make([][]decodeCheck, len(minShort))
		scales := make([]map[int]int, len(minShort))
		var d256, d64 = make([][]int, len(minShort)), make([][]int, len(minShort))
		for i := range scales {
			scales[i] = map[int]int{}
		}
		for _, r := range rows {
			if r.attack != a.name && a.name != "**all**" {
				continue
			}
			full = append(full, r.full)
			for i, c := range r.red {
				red[i] = append(red[i], c)
				scales[i][r.scales[i]]++
				d256[i] = append(d256[i], phash.Distance256(r.full.hash.P256, c.hash.P256))
				d64[i] = append(d64[i], phash.Distance64(r.full.hash.P64, c.hash.P64))
			}
		}
		rec, be := summarise(full)
		line := fmt.Sprintf("| %s | %d/%d | %.1f |", a.name, rec, len(full), be)
		if a.name != "**all**" {
			sumFull += rec
			nAll += len(full)
		}
		for i := range minShort {
			r, b := summarise(red[i])
			if a.name != "**all**" {
				sumRed[i] += r
			}
			sort.Ints(d256[i])
			sort.Ints(d64[i])
			med, mx, mx64 := 0, 0, 0
			if n := len(d256[i]); n > 0 {
				med, mx, mx64 = d256[i][n/2], d256[i][n-1], d64[i][n-1]
			}
			var sc []string
			for _, k := range []int{1, 2, 4, 8} {
				if scales[i][k] > 0 {
					sc = append(sc, fmt.Sprintf("1/%d×%d", k, scales[i][k]))
				}
			}
			line += fmt.Sprintf(" %d/%d | %.1f | %d / %d | %d | %s |", r, len(red[i]), b, med, mx, mx64, strings.Join(sc, " "))
		}
		fmt.Println(line)
	}
	fmt.Printf("\nrecovered over all attacks: full %d/%d", sumFull, nAll)
	for i, s := range minShort {
		fmt.Printf(", min-short %d %d/%d", s, sumRed[i], nAll)
	}
	fmt.Println()
}

func summarise(cs []decodeCheck) (recovered int, meanBitErrors float64) {
	n := 0
	for _, c := range cs {
		if c.recovered {
			recovered++
			meanBitErrors += float64(c.bitErrors)
			n++
		}
	}
	if n > 0 {
		meanBitErrors /= float64(n)
	}
	return recovered, meanBitErrors
}
