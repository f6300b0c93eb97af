package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"image"
	"image/jpeg"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/provenant/provenant/internal/cputime"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/watermark"
)

// corpusFlags are the -images and -limit flags of the benches that walk
// the development set.
type corpusFlags struct {
	dir   *string
	limit *int
}

// addCorpusFlags adds -images and -limit to fs.
func addCorpusFlags(fs *flag.FlagSet) corpusFlags {
	return corpusFlags{
		dir:   fs.String("images", "bench/images", "directory of development images"),
		limit: fs.Int("limit", 0, "use at most N images from -images, spread over the sorted list (0 = all)"),
	}
}

// files is corpusFiles for the parsed flags.
func (c corpusFlags) files() ([]string, error) { return corpusFiles(*c.dir, *c.limit) }

// robustnessCommand embeds a payload in every image, applies every attack and
// reports exact recovery, bit errors, strength, PSNR and timings.
func robustnessCommand(fs *flag.FlagSet) func() error {
	corpus := addCorpusFlags(fs)
	outPath := fs.String("out", "", "write per-image rows (TSV) to this file")
	only := fs.String("attacks", "", "comma-separated attack names to run (default all)")
	maxMP := fs.Float64("max-mp", 12, "skip images above this many megapixels (counted separately)")
	synth := fs.Bool("synth", true, "add the generated hard cases (sky gradient, text, night)")
	workers := fs.Int("j", 2, "images processed in parallel")
	fpAttacks := fs.Bool("fp-attacked", true, "also extract from attacked unmarked originals (jpeg70, resize0.5, crop75, mirror, screenshot0.5, mirror-crop98, rotate-5-canvas, caption6-q90)")
	fpWith := fs.String("fp-with", "jpeg70,resize0.5,crop75,mirror,screenshot0.5,mirror-crop98,rotate-5-canvas,caption6-q90", "with -fp-attacked, the attacks applied to the unmarked originals")
	version := fs.Int("version", watermark.CurrentVersion, "format version to embed")
	held := fs.Bool("heldout", false, "use only the held-out development images (never tuned on; see heldOut), no generated cases")
	psnr := fs.Float64("psnr", 0, "target luma PSNR in dB for embedding (0 = the package default)")
	return func() error {
		files, err := corpus.files()
		if err != nil {
			return err
		}
		if *held {
			files, *synth = heldOut(files), false
		}
		atks, err := attacksNamed(*only)
		if err != nil {
			return err
		}
		var fpAtks []attack
		if *fpAttacks {
			if strings.TrimSpace(*fpWith) == "" {
				// attacksNamed reads an empty list as every attack, none
				// included, which would count the originals twice.
				return errors.New("-fp-with is empty: name the attacks, or give -fp-attacked=false")
			}
			if fpAtks, err = attacksNamed(*fpWith); err != nil {
				return err
			}
		}
		type job struct {
			name string
			path string
			img  image.Image
		}
		// The generated hard cases first, then the files in spread order.
		var jobs []job
		if *synth {
			sm := synthImages()
			names := make([]string, 0, len(sm))
			for n := range sm {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				jobs = append(jobs, job{name: n, img: sm[n]})
			}
		}
		for _, i := range spreadOrder(len(files)) {
			jobs = append(jobs, job{name: filepath.Base(files[i]), path: files[i]})
		}

		var rowsOut io.Writer = io.Discard
		if *outPath != "" {
			f, err := os.Create(*outPath)
			if err != nil {
				return err
			}
			defer f.Close()
			rowsOut = f
		}
		fmt.Fprintln(rowsOut, "image\tmp\tattack\trecovered\tfound\tbit_errors\tstrength\tscale\tpsnr\tembed_ms\textract_ms\tdecode_ms_mp\tunmarked_extract_ms_mp\tfp_unmarked\tfp_attacked")

		res := &results{byAttack: map[string]*attackStats{}}
		var mu sync.Mutex
		err = eachWithScratch(jobs, *workers, "wm-robust-", func(tmp string, j job) {
			img, flat := j.img, false
			if img != nil {
				img, flat = flattenAlpha(img)
			} else {
				var err error
				if img, flat, err = loadCorpusImage(j.path); err != nil {
					mu.Lock()
					res.errors = append(res.errors, fmt.Sprintf("%s: decode: %v", j.name, err))
					mu.Unlock()
					return
				}
			}
			if flat {
				mu.Lock()
				res.flattened = append(res.flattened, j.name)
				mu.Unlock()
			}
			mp := float64(img.Bounds().Dx()*img.Bounds().Dy()) / 1e6
			if mp > *maxMP {
				mu.Lock()
				res.skippedLarge = append(res.skippedLarge, j.name)
				mu.Unlock()
				return
			}
			r := runImage(j.name, img, atks, tmp, *version, *psnr, fpAtks)
			mu.Lock()
			res.add(r, rowsOut)
			fmt.Fprintf(os.Stderr, "%-60s %5.1f MP psnr %.2f  %d/%d attacks recovered\n", j.name, mp, r.psnr, r.recovered, len(r.rows))
			mu.Unlock()
		})
		if err != nil {
			return err
		}
		res.print(os.Stdout, atks, commandLine(fs))
		return nil
	}
}

// spreadOrder returns 0…n-1 in an order whose every prefix is spread over
// the range (bit-reversed indices), so that a run stopped early, or read
// from the per-image rows while it runs, covers the whole sorted set.
func spreadOrder(n int) []int {
	bits := 0
	for 1<<bits < n {
		bits++
	}
	out := make([]int, 0, n)
	for k := 0; k < 1<<bits; k++ {
		r := 0
		for b := 0; b < bits; b++ {
			if k&(1<<b) != 0 {
				r |= 1 << (bits - 1 - b)
			}
		}
		if r < n {
			out = append(out, r)
		}
	}
	return out
}

type row struct {
	attack    string
	group     string
	recovered bool
	found     bool
	bitErrors int
	strength  float64
	scale     float64
	extractMS float64
	err       error
}

type imageResult struct {
	name         string
	mp           float64
	psnr         float64
	embedMS      float64
	decodeMSMP   float64 // JPEG decode of the marked image (q90), ms per MP
	extractMSMP  float64 // extract from that decode, ms per MP
	unmarkedMSMP float64 // extract from the unmarked original (full search), ms per MP
	embedErr     error
	fpOriginal   bool
	fpAttacked   int
	fpChecked    int
	rows         []row
	recovered    int
}

func payloadFor(name string) watermark.Payload {
	h := fnv.New64a()
	h.Write([]byte(name))
	return watermark.Payload(h.Sum64())
}

// ms returns d in milliseconds.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median3(f func() float64) float64 {
	v := []float64{f(), f(), f()}
	sort.Float64s(v)
	return v[1]
}

func runImage(name string, img image.Image, atks []attack, tmp string, version int, psnr float64, fpAtks []attack) imageResult {
	b := img.Bounds()
	r := imageResult{name: name, mp: float64(b.Dx()*b.Dy()) / 1e6}
	orig := imagex.ToLuma(img)
	// Median of three runs, as for the decode it is compared with.
	r.unmarkedMSMP = median3(func() float64 {
		return ms(cputime.Thread(func() {
			if _, d, _ := watermark.Extract(orig); d.Found {
				r.fpOriginal = true
			}
		}))
	}) / r.mp
	for _, a := range fpAtks {
		m, err := a.fn(img, tmp)
		if err != nil {
			continue
		}
		r.fpChecked++
		if _, d, _ := watermark.Extract(imagex.ToLuma(m)); d.Found {
			r.fpAttacked++
		}
	}
	p := payloadFor(name)
	t0 := time.Now()
	opts := []watermark.EmbedOption{watermark.WithVersion(version)}
	if psnr > 0 {
		opts = append(opts, watermark.WithTargetPSNR(psnr))
	}
	marked, err := watermark.Embed(img, p, opts...)
	r.embedMS = float64(time.Since(t0).Microseconds()) / 1000
	if err != nil {
		r.embedErr = err
		return r
	}
	ml := imagex.ToLuma(marked)
	r.psnr, _ = watermark.PSNR(orig, ml)

	// Decode floor and extract cost on the same JPEG q90 file.
	var jb bytes.Buffer
	if err := jpeg.Encode(&jb, marked, &jpeg.Options{Quality: 90}); err == nil {
		var dec image.Image
		r.decodeMSMP = median3(func() float64 {
			return ms(cputime.Thread(func() { dec, _ = jpeg.Decode(bytes.NewReader(jb.Bytes())) }))
		}) / r.mp
		if dec != nil {
			dl := imagex.ToLuma(dec)
			r.extractMSMP = median3(func() float64 {
				return ms(cputime.Thread(func() { watermark.Extract(dl) }))
			}) / r.mp
		}
	}

	for _, a := range atks {
		rw := row{attack: a.name, group: a.group}
		m, err := a.fn(marked, tmp)
		if err != nil {
			rw.err = err
			r.rows = append(r.rows, rw)
			continue
		}
		l := imagex.ToLuma(m)
		var got watermark.Payload
		var d watermark.Detection
		rw.extractMS = ms(cputime.Thread(func() { got, d, err = watermark.Extract(l) }))
		rw.err = err
		rw.found = d.Found
		rw.recovered = d.Found && got == p
		rw.strength = d.Strength
		rw.scale = d.Scale
		rw.bitErrors = -1
		if d.Found {
			rw.bitErrors = d.BitErrors
		}
		if rw.recovered {
			r.recovered++
		}
		r.rows = append(r.rows, rw)
	}
	return r
}

type attackStats struct {
	psnrSum             float64
	n, recovered, wrong int
	bitErrSum           int
	strength            []float64
	misses              []string
}

type results struct {
	images       []imageResult
	byAttack     map[string]*attackStats
	skippedLarge []string
	flattened    []string
	errors       []string
}

func (res *results) add(r imageResult, w io.Writer) {
	res.images = append(res.images, r)
	if r.embedErr != nil {
		res.errors = append(res.errors, fmt.Sprintf("%s: embed: %v", r.name, r.embedErr))
		return
	}
	for _, rw := range r.rows {
		st := res.byAttack[rw.attack]
		if st == nil {
			st = &attackStats{}
			res.byAttack[rw.attack] = st
		}
		st.n++
		st.psnrSum += r.psnr
		st.strength = append(st.strength, rw.strength)
		if rw.recovered {
			st.recovered++
			st.bitErrSum += rw.bitErrors
		} else {
			st.misses = append(st.misses, r.name)
		}
		if rw.found && !rw.recovered {
			st.wrong++
		}
		if rw.err != nil {
			res.errors = append(res.errors, fmt.Sprintf("%s/%s: %v", r.name, rw.attack, rw.err))
		}
		fmt.Fprintf(w, "%s\t%.2f\t%s\t%v\t%v\t%d\t%.2f\t%.3f\t%.2f\t%.1f\t%.1f\t%.2f\t%.2f\t%v\t%d/%d\n", r.name, r.mp, rw.attack, rw.recovered, rw.found, rw.bitErrors, rw.strength, rw.scale, r.psnr, r.embedMS, rw.extractMS,
			r.decodeMSMP, r.unmarkedMSMP, r.fpOriginal, r.fpAttacked, r.fpChecked)
	}
}

func medianOf(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func (res *results) print(w io.Writer, atks []attack, cmd string) {
	var psnrs, emb, dec, ext, ratio, unm, unmRatio []float64
	fpOrig, fpAtt, fpChecked, marked := 0, 0, 0, 0
	for _, r := range res.images {
		if r.fpOriginal {
			fpOrig++
		}
		fpAtt += r.fpAttacked
		fpChecked += r.fpChecked
		if r.embedErr != nil {
			continue
		}
		marked++
		psnrs = append(psnrs, r.psnr)
		emb = append(emb, r.embedMS/r.mp)
		if r.decodeMSMP > 0 {
			dec = append(dec, r.decodeMSMP)
			ext = append(ext, r.extractMSMP)
			ratio = append(ratio, r.extractMSMP/r.decodeMSMP)
			unm = append(unm, r.unmarkedMSMP)
			unmRatio = append(unmRatio, r.unmarkedMSMP/r.decodeMSMP)
		}
	}
	minP, sumP := math.Inf(1), 0.0
	for _, p := range psnrs {
		minP = math.Min(minP, p)
		sumP += p
	}
	fmt.Fprintf(w, "\ncommand: %s\n", cmd)
	fmt.Fprintf(w, "images: %d marked (%d skipped > max-mp: %s), embed errors/other: %d\n", marked, len(res.skippedLarge), strings.Join(res.skippedLarge, " "), len(res.errors))
	fmt.Fprintf(w, "translucent images flattened over black before marking (as Go's JPEG encoder and imagex.ToLuma composite them): %d\n", len(res.flattened))
	fmt.Fprintf(w, "luma PSNR: min %.2f dB, mean %.2f dB\n", minP, sumP/float64(max(1, len(psnrs))))
	fmt.Fprintf(w, "false positives: %d / %d unmarked originals, %d / %d attacked unmarked originals\n", fpOrig, len(res.images), fpAtt, fpChecked)
	fmt.Fprintf(w, "speed (medians over images; decode and extract in CPU time of the thread that ran them): embed %.1f ms/MP, JPEG q90 decode %.1f ms/MP, extract (marked) %.2f ms/MP, extract/decode %.2f; extract (unmarked, full search) %.2f ms/MP, /decode %.2f\n\n", medianOf(emb), medianOf(dec), medianOf(ext), medianOf(ratio), medianOf(unm), medianOf(unmRatio))
	fmt.Fprintln(w, "| attack | exact recovery | wrong payload | mean PSNR of the marked images (dB) | mean bit errors (of 294) | median strength | misses |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, a := range atks {
		st := res.byAttack[a.name]
		if st == nil {
			continue
		}
		miss := strings.Join(st.misses, " ")
		if len(st.misses) > 6 {
			miss = strings.Join(st.misses[:6], " ") + fmt.Sprintf(" … (+%d)", len(st.misses)-6)
		}
		be := math.NaN()
		if st.recovered > 0 {
			be = float64(st.bitErrSum) / float64(st.recovered)
		}
		fmt.Fprintf(w, "| %s | %d/%d (%.1f%%) | %d | %.2f | %.1f | %.1f | %s |\n", a.name, st.recovered, st.n, 100*float64(st.recovered)/float64(st.n), st.wrong, st.psnrSum/float64(st.n), be, medianOf(st.strength), miss)
	}
	for _, e := range res.errors {
		fmt.Fprintln(w, "error:", e)
	}
}
