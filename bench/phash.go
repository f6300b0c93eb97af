package main

// go run ./bench phash: perceptual-hash distance distributions on a photo
// set, for the same image after common transformations and for unrelated
// image pairs, and the thresholds chosen from them.

import (
	"flag"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"golang.org/x/image/draw"

	"github.com/provenant/provenant/origin/origintest/corpus"
	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/phash"
)

// transform is one edit applied to an original before re-hashing.
type transform struct {
	name string
	fn   func(image.Image) (image.Image, int) // image to encode, JPEG quality
}

func transforms() []transform {
	scale := func(f func(w, h int) (int, int)) func(image.Image) image.Image {
		return func(src image.Image) image.Image {
			b := src.Bounds()
			w, h := f(b.Dx(), b.Dy())
			dst := image.NewRGBA(image.Rect(0, 0, w, h))
			draw.BiLinear.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
			return dst
		}
	}
	half := scale(func(w, h int) (int, int) { return max(w/2, 1), max(h/2, 1) })
	long1080 := scale(func(w, h int) (int, int) {
		if w >= h {
			return 1080, max(h*1080/w, 1)
		}
		return max(w*1080/h, 1), 1080
	})
	return []transform{
		{"jpeg q90", func(m image.Image) (image.Image, int) { return m, 90 }},
		{"jpeg q70", func(m image.Image) (image.Image, int) { return m, 70 }},
		{"jpeg q50", func(m image.Image) (image.Image, int) { return m, 50 }},
		{"resize 0.5x, q85", func(m image.Image) (image.Image, int) { return half(m), 85 }},
		{"long side 1080, q85", func(m image.Image) (image.Image, int) { return long1080(m), 85 }},
		{"long side 1080, q50", func(m image.Image) (image.Image, int) { return long1080(m), 50 }},
		{"crop 5% (2.5%/side), q90", func(m image.Image) (image.Image, int) { return crop(m, 0.025), 90 }},
		{"crop 10% (5%/side), q90", func(m image.Image) (image.Image, int) { return crop(m, 0.05), 90 }},
		{"brightness +10%, q90", func(m image.Image) (image.Image, int) { return brighten(m, 1.10), 90 }},
		{"brightness -10%, q90", func(m image.Image) (image.Image, int) { return brighten(m, 0.90), 90 }},
	}
}

// verifyHash is the perceptual hash verification computes from file: from
// imagex.DecodeLuma at short side minShort (facts.Analyze), or from the
// full decode when minShort is 0.
func verifyHash(file []byte, lim limits.Limits, minShort int) (phash.Hash, error) {
	if minShort > 0 {
		img, err := imagex.DecodeLuma(file, lim, minShort)
		if err != nil {
			return phash.Hash{}, err
		}
		return phash.Compute(img.DownscaleAs(phash.Side256, phash.Side256))
	}
	img, err := imagex.Decode(file, lim)
	if err != nil {
		return phash.Hash{}, err
	}
	return phash.Compute(imagex.ToLuma(img.Image))
}

// crop keeps the centre of src, frac of each side cut off (the
// conformance corpus's crop).
func crop(src image.Image, frac float64) image.Image { return corpus.Crop(frac)(src) }

func brighten(src image.Image, k float64) image.Image {
	b := src.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(dst, dst.Bounds(), src, b.Min, draw.Src)
	var lut [256]uint8
	for i := range lut {
		lut[i] = uint8(min(255, float64(i)*k+0.5))
	}
	for i := range dst.Pix {
		if i%4 != 3 {
			dst.Pix[i] = lut[dst.Pix[i]]
		}
	}
	return dst
}

type sample struct {
	name string
	h    phash.Hash
}

func phashCommand(fs *flag.FlagSet) func() error {
	dir := fs.String("images", "bench/images", "directory of development photos (jpg, png, webp, gif)")
	maxN := fs.Int("n", 0, "use at most n images (0: all)")
	verbose := fs.Bool("v", false, "print per-image distances")
	verifyShort := fs.Int("verify-short", facts.VerifyShortSide, "hash the edited copies as verification does: imagex.DecodeLuma at this short side (0: full decode); originals are hashed from the full decode, as signing does")
	return func() error {
		files, err := listImages(*dir)
		if err != nil {
			return err
		}
		if *maxN > 0 && len(files) > *maxN {
			files = files[:*maxN]
		}
		if len(files) < 2 {
			return fmt.Errorf("need at least 2 images in %s, found %d (run bench/fetch-images.sh)", *dir, len(files))
		}
		lim := limits.Default()
		trs := transforms()
		if *verifyShort > 0 {
			// The original file itself, verify decode against sign decode.
			trs = append([]transform{{name: "none (the file itself)"}}, trs...)
		}
		d256 := make(map[string][]int)
		d64 := make(map[string][]int)
		var originals []sample
		start := time.Now()
		for i, f := range files {
			raw, img, err := readDecoded(f, lim, "skip")
			if err != nil {
				return err
			}
			if img == nil {
				continue
			}
			h0, err := phash.Compute(imagex.ToLuma(img.Image))
			if err != nil {
				return err
			}
			originals = append(originals, sample{filepath.Base(f), h0})
			for _, tr := range trs {
				file := raw
				if tr.fn != nil {
					if file, err = jpegOf(tr.fn(img.Image)); err != nil {
						return err
					}
				}
				h, err := verifyHash(file, lim, *verifyShort)
				if err != nil {
					return fmt.Errorf("%s %s: %w", f, tr.name, err)
				}
				a, b := phash.Distance256(h0.P256, h.P256), phash.Distance64(h0.P64, h.P64)
				d256[tr.name] = append(d256[tr.name], a)
				d64[tr.name] = append(d64[tr.name], b)
				if *verbose {
					fmt.Fprintf(os.Stderr, "%-50s %-28s d256=%3d d64=%2d\n", filepath.Base(f), tr.name, a, b)
				}
			}
			fmt.Fprintf(os.Stderr, "\r%d/%d images (%s)", i+1, len(files), time.Since(start).Round(time.Second))
		}
		fmt.Fprintln(os.Stderr)

		var un256, un64, var256, var64 []int
		type pair struct {
			a, b string
			d    int
		}
		var closest []pair
		for i := range originals {
			for j := i + 1; j < len(originals); j++ {
				a, b := originals[i], originals[j]
				x, y := phash.Distance256(a.h.P256, b.h.P256), phash.Distance64(a.h.P64, b.h.P64)
				if family(a.name) == family(b.name) {
					var256, var64 = append(var256, x), append(var64, y)
					continue
				}
				un256, un64 = append(un256, x), append(un64, y)
				closest = append(closest, pair{a.name, b.name, x})
			}
		}
		sort.Slice(closest, func(i, j int) bool { return closest[i].d < closest[j].d })

		w := os.Stdout
		fmt.Fprintf(w, "perceptual-hash distances on %d images from %s (%d unrelated pairs, %d same-artwork variant pairs)\n\n",
			len(originals), *dir, len(un256), len(var256))
		fmt.Fprintln(w, "| transformation | n | 256-bit: median | p95 | max | 64-bit: median | p95 | max |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
		var same256, same64 []int
		for _, tr := range trs {
			a, b := d256[tr.name], d64[tr.name]
			same256, same64 = append(same256, a...), append(same64, b...)
			fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d | %d | %d |\n", tr.name, len(a),
				pct(a, 50), pct(a, 95), pct(a, 100), pct(b, 50), pct(b, 95), pct(b, 100))
		}
		fmt.Fprintf(w, "| **all edits** | %d | %d | %d | %d | %d | %d | %d |\n", len(same256),
			pct(same256, 50), pct(same256, 95), pct(same256, 100), pct(same64, 50), pct(same64, 95), pct(same64, 100))
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| unrelated pairs | n | min | p0.1 | p1 | p5 | median |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
		fmt.Fprintf(w, "| 256-bit | %d | %d | %d | %d | %d | %d |\n", len(un256), pct(un256, 0), pctf(un256, 0.1), pct(un256, 1), pct(un256, 5), pct(un256, 50))
		fmt.Fprintf(w, "| 64-bit | %d | %d | %d | %d | %d | %d |\n", len(un64), pct(un64, 0), pctf(un64, 0.1), pct(un64, 1), pct(un64, 5), pct(un64, 50))
		if len(var256) > 0 {
			fmt.Fprintf(w, "| 256-bit, same-artwork variants (excluded above) | %d | %d | %d | %d | %d | %d |\n", len(var256), pct(var256, 0), pctf(var256, 0.1), pct(var256, 1), pct(var256, 5), pct(var256, 50))
		}
		fmt.Fprintln(w)
		fmt.Fprintln(w, "closest unrelated pairs (256-bit):")
		for _, p := range closest[:min(5, len(closest))] {
			fmt.Fprintf(w, "  %3d  %s  ~  %s\n", p.d, p.a, p.b)
		}
		fmt.Fprintln(w)
		// Threshold sweep: edits split into mild (re-encode, resize,
		// brightness), 5% crop and 10% crop.
		class := func(name string) int {
			switch {
			case strings.HasPrefix(name, "crop 5%"):
				return 1
			case strings.HasPrefix(name, "crop 10%"):
				return 2
			}
			return 0
		}
		fmt.Fprintln(w, "| 256-bit threshold T | re-encode/resize/brightness within | crop 5% within | crop 10% within | unrelated pairs within | max 64-bit distance of accepted edits |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|")
		chosen, chosen64 := -1, 0
		for t := 24; t <= 96; t += 8 {
			var within, total [3]int
			max64 := 0
			for _, tr := range trs {
				c := class(tr.name)
				for k, d := range d256[tr.name] {
					total[c]++
					if d <= t {
						within[c]++
						max64 = max(max64, d64[tr.name][k])
					}
				}
			}
			fmt.Fprintf(w, "| %d | %d/%d | %d/%d | %d/%d | %d/%d | %d |\n", t, within[0], total[0], within[1], total[1], within[2], total[2], count(un256, t), len(un256), max64)
			// Rule: the smallest T (step 8) that accepts every mild edit and at
			// least 95% of 5% crops, with a margin of 24 bits below the closest
			// unrelated pair.
			if chosen < 0 && within[0] == total[0] && 100*within[1] >= 95*total[1] && t+24 < pct(un256, 0) {
				chosen, chosen64 = t, max64
			}
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "rule: smallest T (step 8) accepting all re-encode/resize/brightness edits and >= 95%% of 5%% crops, at least 24 bits below the closest unrelated pair (%d)\n", pct(un256, 0))
		fmt.Fprintf(w, "chosen: NearDistance256 = %d, CandidateDistance64 = %d (max 64-bit distance of the edits it accepts)\n", chosen, chosen64)
		fmt.Fprintf(w, "in use: phash.NearDistance256 = %d, phash.CandidateDistance64 = %d (unrelated pairs within the 64-bit radius: %d of %d)\n",
			phash.NearDistance256, phash.CandidateDistance64, count(un64, phash.CandidateDistance64), len(un64))
		if chosen != phash.NearDistance256 || chosen64 != phash.CandidateDistance64 {
			fmt.Fprintln(w, "NOTE: the constants in shared/phash differ from what this data suggests")
		}
		return nil
	}
}

// family strips size, orientation and light/dark suffixes from a file name
// so that variants of one artwork are not counted as unrelated pairs.
func family(name string) string {
	s := strings.TrimSuffix(name, filepath.Ext(name))
	s = regexp.MustCompile(`_+\d+x\d+`).ReplaceAllString(s, "")
	s = regexp.MustCompile(`(?i)[-_](portrait|light|dark|d|l)$`).ReplaceAllString(s, "")
	s = regexp.MustCompile(`(?i)-(dark|radioactive|warm|cold)-no-logo$`).ReplaceAllString(s, "")
	s = regexp.MustCompile(`(?i)[-_](portrait|light|dark|d|l)$`).ReplaceAllString(s, "")
	return strings.ToLower(s)
}

// pct returns the p-th percentile (nearest rank) of xs.
func pct(xs []int, p int) int { return pctf(xs, float64(p)) }

func pctf(xs []int, p float64) int {
	if len(xs) == 0 {
		return -1
	}
	s := append([]int(nil), xs...)
	sort.Ints(s)
	i := int(p / 100 * float64(len(s)-1))
	return s[i]
}

func count(xs []int, t int) int {
	n := 0
	for _, x := range xs {
		if x <= t {
			n++
		}
	}
	return n
}

// readDecoded reads the photo at path and decodes it within lim. A file
// that cannot be read is an error; one that does not decode is reported
// on stderr after skip and answered with a nil image, for the caller to
// pass over (a photo set holds the odd format the decoder refuses).
func readDecoded(path string, lim limits.Limits, skip string) ([]byte, *imagex.Image, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	img, err := imagex.Decode(raw, lim)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s %s: %v\n", skip, path, err)
		return raw, nil, nil
	}
	return raw, img, nil
}
