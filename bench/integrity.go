package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/localsig"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/verdict"
	"github.com/provenant/provenant/shared/watermark"
	"github.com/provenant/provenant/shared/wire"
)

// The integrity study: every development photo is signed as the origin
// signs it (watermark, local signatures, a signed record), then copied the
// ways platforms copy pictures and forged the ways attackers forge them;
// every copy goes through facts.Analyze and verdict.Decide, the path of
// POST /api/v1/verify. It reports, per genuine transformation, how many
// copies stay authentic, how many are called edited and how many carry a
// forgery warning; per forgery kind and size, how many are (wrongly)
// authentic; and the transplant case, a victim's payload embedded into
// another photo.

// genuineCopy is a transformation a platform or a phone applies.
type genuineCopy struct {
	name string
	fn   func(m image.Image, tmp string) ([]byte, error)
}

// inkShift counts the pixels an edit changed and their mean chroma
// shift (the larger of |ΔCb| and |ΔCr|, levels): for colour-only text,
// how far the ink stands out from the colour it was drawn over.
func inkShift(before, after *image.RGBA) (int, float64) {
	n, sum := 0, 0.0
	for i := 0; i+3 < len(before.Pix); i += 4 {
		p, q := before.Pix[i:i+3], after.Pix[i:i+3]
		if p[0] == q[0] && p[1] == q[1] && p[2] == q[2] {
			continue
		}
		_, cb0, cr0 := ycc(p)
		_, cb1, cr1 := ycc(q)
		n++
		sum += max(math.Abs(cb1-cb0), math.Abs(cr1-cr0))
	}
	if n == 0 {
		return 0, 0
	}
	return n, sum / float64(n)
}

// forgery is a local edit of area (fraction of the picture) at a place
// chosen by rng; other is another corpus photo (a source of foreign
// content).
type forgery struct {
	name string
	fn   func(m *image.RGBA, area float64, rng *rand.Rand, other image.Image) *image.RGBA
}

func integrityCommand(fs *flag.FlagSet) func() error {
	dir := fs.String("images", "bench/images", "directory of development photos")
	limit := fs.Int("limit", 40, "photos to use, spread over the sorted list (0: all)")
	long := fs.Int("long", 2560, "long side the photos are signed at (larger ones are scaled down first)")
	areas := fs.String("areas", "0.25,0.5,1,2,5,10,30", "forgery sizes, percent of the picture's area")
	only := fs.String("only", "", "comma-separated genuine/forgery names to run (default all)")
	verbose := fs.Bool("v", false, "print every non-authentic genuine copy and every authentic forgery")
	every := fs.Int("every", 0, "also print the tables after every n photos (0: only at the end)")
	format := fs.Int("format", localsig.FormatColour, "local-signature format signed: 1 (luminance, record v3) or 2 (colour, record v4)")
	unseen := fs.Bool("unseen", false, "use only the held-out photos that -heldout -limit 20 does not select (those were studied photo by photo when the tone fit was reworked), spread by -limit")
	photo := fs.String("photo", "", "only the selected photos whose file name contains this (to study one photo's answers)")
	heldOut := fs.Bool("heldout", false, "use only the photos that -limit 40 does not select (the development subset the thresholds were tuned on), spread by -limit")
	harsh := fs.Bool("harsh", false, "add harsher global tone copies (gamma 0.6 and 1.4, saturation 1.7, contrast 1.4, gamma 0.75 with saturation 1.4 or a gain of 1.15, contrast 1.25 with saturation 1.4) to the genuine copies, to study the global fit on the development photos")
	subChroma := fs.Bool("subchroma", false, "instead, measure whether 2×2 sub-block chroma separates colour-only text from genuine copies on the held-out photos (-limit, -long)")
	return func() error {
		if *subChroma {
			return runChromaFine(*dir, *limit, *long)
		}
		var sizes []float64
		for _, s := range strings.Split(*areas, ",") {
			var v float64
			if _, err := fmt.Sscan(s, &v); err != nil {
				return fmt.Errorf("-areas: %w", err)
			}
			sizes = append(sizes, v/100)
		}
		want := map[string]bool{}
		for _, s := range strings.Split(*only, ",") {
			if s != "" {
				want[s] = true
			}
		}
		sel := func(n string) bool { return len(want) == 0 || want[n] }
		files, err := corpusFiles(*dir, *limit)
		if *heldOut {
			files, err = heldOutFiles(*dir, *limit)
		}
		if *unseen {
			files, err = unseenFiles(*dir, *limit)
		}
		if err != nil {
			return err
		}
		if len(files) < 2 {
			return fmt.Errorf("need at least 2 photos in %s", *dir)
		}
		studied := func(name string) bool { return *photo == "" || strings.Contains(name, *photo) }
		return inTempDir("integrity", func(tmp string) error {
			copies := genuineCopies()
			if *harsh {
				copies = append(copies, harshCopies()...)
			}
			if _, err := exec.LookPath("ffmpeg"); err != nil {
				fmt.Println("note: ffmpeg not found, webp80 skipped")
				copies = slicesDelete(copies, "webp80")
			}
			forgeries := forgeryKinds()
			st := newIntegrityStats()
			priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, 32))
			w := os.Stdout
			load := func(path string) (image.Image, error) {
				m, _, err := loadCorpusImage(path)
				if err != nil {
					return nil, err
				}
				b := m.Bounds()
				if max(b.Dx(), b.Dy()) > *long {
					return longSide(*long)(m, tmp)
				}
				return m, nil
			}
			for i, path := range files {
				name := filepath.Base(path)
				if !studied(name) {
					continue
				}
				src, err := load(path)
				if err != nil {
					fmt.Fprintf(w, "%s: skipped: %v\n", name, err)
					continue
				}
				otherPath := files[(i+len(files)/2)%len(files)]
				other, err := load(otherPath)
				if err != nil {
					return err
				}
				payload := payloadFor(name)
				marked, err := watermark.Embed(src, payload)
				if err != nil {
					fmt.Fprintf(w, "%s: not signed: %v\n", name, err)
					continue
				}
				mr := toRGBA(marked)
				cand, err := signedCandidate(priv, mr, payload, *format)
				if err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
				rec, err := record.Verify(cand.Signed)
				if err != nil {
					return err
				}
				grid, err := rec.Grid()
				if err != nil {
					return err
				}
				var last localsig.Result
				check := func(file []byte) (verdict.Result, wire.VerifyResponse, error) {
					f, err := facts.Analyze(file, limits.Default(), time.Now())
					if err != nil {
						return verdict.Result{}, wire.VerifyResponse{}, err
					}
					last = localsig.Result{}
					if f.Local != nil {
						last = localsig.Compare(grid, f.Local)
					}
					r := verdict.Decide(f.Verdict(), []verdict.Candidate{cand}, verdict.Options{})
					return r, r.Wire(), nil
				}
				evidence := func() string {
					return fmt.Sprintf("[%v compared %d changed %d lone %d structured %d foreign %d colour %v why %+v]", last.Outcome, last.Compared, last.ChangedCount, last.Lone, last.Structured, last.Foreign, last.Colour, last.Why)
				}
				rng := rand.New(rand.NewPCG(uint64(payload), 32))
				for _, c := range copies {
					if !sel(c.name) {
						continue
					}
					file, err := c.fn(mr, tmp)
					if err != nil {
						return fmt.Errorf("%s %s: %w", name, c.name, err)
					}
					r, wr, err := check(file)
					if err != nil {
						return fmt.Errorf("%s %s: %w", name, c.name, err)
					}
					st.genuine(c.name, r, wr)
					if *verbose && !r.Authentic {
						fmt.Fprintf(w, "  genuine %-14s %-40s match %-10s %s %s\n", c.name, name, r.Match, relationOf(wr), evidence())
					}
				}
				for _, fk := range forgeries {
					if !sel(fk.name) {
						continue
					}
					for _, a := range sizes {
						edited := fk.fn(cloneRGBA(mr), a, rng, other)
						file, err := encJPEG(edited, 90)
						if err != nil {
							return err
						}
						r, wr, err := check(file)
						if err != nil {
							return fmt.Errorf("%s %s: %w", name, fk.name, err)
						}
						st.forged(fk.name, a, r, wr)
						if *verbose && r.Authentic {
							px, dc := inkShift(mr, edited)
							fmt.Fprintf(w, "  forgery %-12s %5.2f%% %-40s match %s %s ink %d px, chroma shift %.1f\n", fk.name, 100*a, name, r.Match, evidence(), px, dc)
						}
					}
				}
				if sel("transplant") {
					// The victim's payload embedded into another photo with the
					// project's own embedder: the attack the warning is for.
					tm, err := watermark.Embed(other, payload)
					if err == nil {
						file, err := encJPEG(tm, 85)
						if err != nil {
							return err
						}
						r, wr, err := check(file)
						if err != nil {
							return err
						}
						st.transplant(r, wr)
						if *verbose {
							fmt.Fprintf(w, "  transplant into %-40s match %s %s %s\n", filepath.Base(otherPath), r.Match, relationOf(wr), evidence())
						}
					}
				}
				fmt.Fprintf(w, "%3d/%d %s\n", i+1, len(files), name)
				if *every > 0 && (i+1)%*every == 0 && i+1 < len(files) {
					fmt.Fprintf(w, "\n-- after %d photos --", i+1)
					st.print(w, copies, forgeries, sizes)
				}
			}
			st.print(w, copies, forgeries, sizes)
			return nil
		})
	}
}

// studiedHeldOut is the size of the held-out subset whose failures were
// studied block by block: heldOutFiles(dir, studiedHeldOut).
const studiedHeldOut = 20

// unseenFiles lists the held-out photos outside heldOutFiles(dir,
// studiedHeldOut), limit of them spread over the list (0: all).
func unseenFiles(dir string, limit int) ([]string, error) {
	return beyond(func(n int) ([]string, error) { return heldOutFiles(dir, n) }, studiedHeldOut, limit)
}

// beyond lists the files of list(0) that the spread subset list(n) left
// out, limit of them spread over the list (0: all).
func beyond(list func(n int) ([]string, error), n, limit int) ([]string, error) {
	all, err := list(0)
	if err != nil {
		return nil, err
	}
	picked, err := list(n)
	if err != nil {
		return nil, err
	}
	return spreadOver(without(all, picked), limit), nil
}

// without returns the files of all that are not in drop, in all's order.
func without(all, drop []string) []string {
	dropped := make(map[string]bool, len(drop))
	for _, f := range drop {
		dropped[f] = true
	}
	var out []string
	for _, f := range all {
		if !dropped[f] {
			out = append(out, f)
		}
	}
	return out
}

// spreadOver returns limit of files spread evenly over the list (all of
// them when limit is 0 or not smaller).
func spreadOver(files []string, limit int) []string {
	if limit <= 0 || len(files) <= limit {
		return files
	}
	step := float64(len(files)) / float64(limit)
	sub := make([]string, 0, limit)
	for i := 0; i < limit; i++ {
		sub = append(sub, files[int(float64(i)*step)])
	}
	return sub
}

// tunedOn is the size of the development subset the local-signature
// thresholds were tuned on: corpusFiles(dir, tunedOn).
const tunedOn = 40

// heldOutFiles lists the photos of dir outside the development subset,
// limit of them spread over the list (0: all).
func heldOutFiles(dir string, limit int) ([]string, error) {
	return beyond(func(n int) ([]string, error) { return corpusFiles(dir, n) }, tunedOn, limit)
}

func slicesDelete(c []genuineCopy, name string) []genuineCopy {
	out := c[:0]
	for _, x := range c {
		if x.name != name {
			out = append(out, x)
		}
	}
	return out
}

// signedCandidate signs m as the origin does: SHA-256 of the distributed
// JPEG, perceptual hash and local signatures of the marked picture.
func signedCandidate(priv ed25519.PrivateKey, m *image.RGBA, payload watermark.Payload, format int) (verdict.Candidate, error) {
	out, err := encJPEG(m, 95)
	if err != nil {
		return verdict.Candidate{}, err
	}
	l := imagex.ToLuma(m)
	ph, err := phash.Compute(l)
	if err != nil {
		return verdict.Candidate{}, err
	}
	g := localsig.Compute(l)
	if format == localsig.FormatColour {
		cb, cr := imagex.Chroma(m)
		g = localsig.ComputeColour(l, cb, cr)
	}
	grid, err := g.Encode()
	if err != nil {
		return verdict.Candidate{}, err
	}
	rec := &record.Record{ID: record.ID{1}, SHA256: sha256.Sum256(out), PerceptualHash: ph,
		SignerPublicKey: priv.Public().(ed25519.PublicKey), Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Org: "Bench News", WatermarkPayload: binary.BigEndian.AppendUint64(nil, uint64(payload)), LocalSig: grid}
	s, err := record.Sign(priv, rec)
	if err != nil {
		return verdict.Candidate{}, err
	}
	return verdict.Candidate{Signed: s}, nil
}

func encJPEG(m image.Image, q int) ([]byte, error) {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, m, &jpeg.Options{Quality: q}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func cloneRGBA(m *image.RGBA) *image.RGBA {
	c := *m
	c.Pix = append([]byte(nil), m.Pix...)
	return &c
}

func genuineCopies() []genuineCopy {
	jpegAfter := func(q int, f func(image.Image, string) (image.Image, error)) func(image.Image, string) ([]byte, error) {
		return func(m image.Image, tmp string) ([]byte, error) {
			o, err := f(m, tmp)
			if err != nil {
				return nil, err
			}
			return encJPEG(o, q)
		}
	}
	id := func(m image.Image, _ string) (image.Image, error) { return m, nil }
	return []genuineCopy{
		{"1080q80", jpegAfter(80, longSide(1080))},
		{"sharpen-q90", jpegAfter(90, sharpen(0.8))},
		{"webp80", webpFile(80)},
		{"insta4x5", jpegAfter(80, chain(crop45, longSide(1350)))},
		{"1600q60", jpegAfter(60, longSide(1600))},
		{"2048q71", jpegAfter(71, longSide(2048))},
		{"contrast1.25", jpegAfter(90, perPixel(func(v float64) float64 { return 128 + 1.25*(v-128) }))},
		{"saturation1.4", jpegAfter(90, saturate(1.4))},
		{"gamma0.75", jpegAfter(90, perPixel(func(v float64) float64 { return 255 * math.Pow(v/255, 0.75) }))},
		{"hdr-local", jpegAfter(90, localTone(0.6))},
		{"unchanged-q90", jpegAfter(90, id)},
		{"pad-square", jpegAfter(90, padSquare)},
		{"caption-above", jpegAfter(90, captionAbove(0.06))},
		{"phone-shot", pngAfter(phoneScreenshot)},
		{"desktop-shot", pngAfter(desktopShot(0.45))},
	}
}

// harshCopies are global tone changes stronger than genuineCopies
// for studying where the global fit stops explaining a change.
func harshCopies() []genuineCopy {
	q90 := func(f func(image.Image, string) (image.Image, error)) func(image.Image, string) ([]byte, error) {
		return func(m image.Image, tmp string) ([]byte, error) {
			o, err := f(m, tmp)
			if err != nil {
				return nil, err
			}
			return encJPEG(o, 90)
		}
	}
	gamma := func(g float64) func(image.Image, string) (image.Image, error) {
		return perPixel(func(v float64) float64 { return 255 * math.Pow(v/255, g) })
	}
	return []genuineCopy{
		{"gamma0.6", q90(gamma(0.6))},
		{"gamma1.4", q90(gamma(1.4))},
		{"saturation1.7", q90(saturate(1.7))},
		{"contrast1.4", q90(perPixel(func(v float64) float64 { return 128 + 1.4*(v-128) }))},
		{"gamma0.75-sat1.4", q90(chain(gamma(0.75), saturate(1.4)))},
		{"gamma0.75-gain1.15", q90(chain(gamma(0.75), perPixel(func(v float64) float64 { return 1.15 * v })))},
		{"contrast1.25-sat1.4", q90(chain(perPixel(func(v float64) float64 { return 128 + 1.25*(v-128) }), saturate(1.4)))},
	}
}

func pngAfter(f func(image.Image, string) (image.Image, error)) func(image.Image, string) ([]byte, error) {
	return func(m image.Image, tmp string) ([]byte, error) {
		o, err := f(m, tmp)
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		if err := png.Encode(&b, o); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
}

// inkLine writes a line of dark glyph strokes h pixels high from (x0, y0)
// over width w.
func inkLine(m *image.RGBA, x0, y0, w, h int, c color.RGBA) {
	for y := y0; y < min(y0+h, m.Rect.Dy()); y++ {
		for x := x0; x < min(x0+w, m.Rect.Dx()); x++ {
			if textMask(x-x0, y-y0, h) {
				m.SetRGBA(x, y, c)
			}
		}
	}
}

// captionAbove adds a white bar of frac of the height above the picture
// with a line of dark text: a caption, not part of the signed picture.
func captionAbove(frac float64) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, _ string) (image.Image, error) {
		b := m.Bounds()
		bar := int(frac * float64(b.Dy()))
		out := place(m, 1, b.Dx(), b.Dy()+bar, 0, 1, color.RGBA{255, 255, 255, 255})
		inkLine(out, b.Dx()/20, bar/4, b.Dx()*8/10, bar/2, color.RGBA{20, 20, 20, 255})
		return out, nil
	}
}

// phoneScreenshot shows the picture as a phone does, 1080 px wide in a
// 1080×2340 screen with a status bar, a caption line and a navigation
// bar, saved as PNG.
func phoneScreenshot(m image.Image, _ string) (image.Image, error) {
	b := m.Bounds()
	f := 1080 / float64(b.Dx())
	h := int(float64(b.Dy()) * f)
	out := place(m, f, 1080, max(2340, h+400), 0, 0.4, color.RGBA{250, 250, 250, 255})
	y0 := (out.Rect.Dy() - h) * 4 / 10
	for y := 0; y < 90; y++ {
		for x := 0; x < 1080; x++ {
			out.SetRGBA(x, y, color.RGBA{30, 30, 30, 255})
		}
	}
	inkLine(out, 40, 30, 200, 32, color.RGBA{240, 240, 240, 255})
	inkLine(out, 40, y0-80, 900, 40, color.RGBA{20, 20, 20, 255})
	inkLine(out, 40, y0+h+40, 700, 36, color.RGBA{20, 20, 20, 255})
	for y := out.Rect.Dy() - 120; y < out.Rect.Dy(); y++ {
		for x := 0; x < 1080; x++ {
			out.SetRGBA(x, y, color.RGBA{240, 240, 240, 255})
		}
	}
	return out, nil
}

// desktopShot shows the picture scaled by f in a 1920×1080 page with a
// title and lines of text beside it, saved as PNG.
func desktopShot(f float64) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, _ string) (image.Image, error) {
		b := m.Bounds()
		s := min(f, 1000/float64(b.Dx()), 900/float64(b.Dy()))
		out := place(m, s, 1920, 1080, 0.2, 0.6, color.RGBA{255, 255, 255, 255})
		inkLine(out, 100, 30, 1400, 44, color.RGBA{10, 10, 10, 255})
		for y := 150; y < 1000; y += 40 {
			inkLine(out, 1300, y, 560, 22, color.RGBA{40, 40, 40, 255})
		}
		return out, nil
	}
}

// crop45 keeps the centre of the picture at a 4:5 (portrait) aspect, as
// Instagram's portrait post, or the whole width of a taller picture.
func crop45(m image.Image, _ string) (image.Image, error) {
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	cw, ch := w, h
	if float64(w)/float64(h) > 0.8 {
		cw = int(math.Round(float64(h) * 0.8))
	} else {
		ch = int(math.Round(float64(w) / 0.8))
	}
	r := image.Rect((w-cw)/2, (h-ch)/2, (w-cw)/2+cw, (h-ch)/2+ch).Add(b.Min)
	return m.(subImager).SubImage(r), nil
}

// webpFile encodes with libwebp through ffmpeg.
func webpFile(q int) func(image.Image, string) ([]byte, error) {
	return func(m image.Image, tmp string) ([]byte, error) {
		in, out := filepath.Join(tmp, "in.png"), filepath.Join(tmp, "out.webp")
		if err := writePNG(in, m); err != nil {
			return nil, err
		}
		if o, err := exec.Command("ffmpeg", "-loglevel", "error", "-y", "-i", in, "-c:v", "libwebp", "-quality", fmt.Sprint(q), out).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("ffmpeg webp: %w: %s", err, o)
		}
		return os.ReadFile(out)
	}
}

// localTone is an "HDR"-style local tone map: every channel is pushed
// away from a wide local mean of the luminance (σ about 1/20 of the short
// side) by k, and the shadows lifted, as phone HDR and "clarity" sliders do.
func localTone(k float64) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, _ string) (image.Image, error) {
		src := toRGBA(m)
		w, h := src.Bounds().Dx(), src.Bounds().Dy()
		// Local mean by box filters on a 1/8 plane, upsampled bilinearly.
		sw, sh := max(w/8, 1), max(h/8, 1)
		small := make([]float64, sw*sh)
		for y := 0; y < sh; y++ {
			for x := 0; x < sw; x++ {
				var s float64
				for j := 0; j < 8; j++ {
					for i := 0; i < 8; i++ {
						p := src.Pix[min(y*8+j, h-1)*src.Stride+4*min(x*8+i, w-1):]
						s += 0.299*float64(p[0]) + 0.587*float64(p[1]) + 0.114*float64(p[2])
					}
				}
				small[y*sw+x] = s / 64
			}
		}
		rad := max(min(sw, sh)/20, 1)
		for pass := 0; pass < 3; pass++ {
			small = boxBlur(small, sw, sh, rad)
		}
		out := image.NewRGBA(src.Bounds())
		for y := 0; y < h; y++ {
			fy := min(max(float64(y)/8-0.5, 0), float64(sh-1))
			y0 := int(fy)
			y1, ay := min(y0+1, sh-1), fy-float64(int(fy))
			for x := 0; x < w; x++ {
				fx := min(max(float64(x)/8-0.5, 0), float64(sw-1))
				x0 := int(fx)
				x1, ax := min(x0+1, sw-1), fx-float64(x0)
				a := small[y0*sw+x0] + ax*(small[y0*sw+x1]-small[y0*sw+x0])
				bb := small[y1*sw+x0] + ax*(small[y1*sw+x1]-small[y1*sw+x0])
				mean := a + ay*(bb-a)
				i := y*src.Stride + 4*x
				lift := 0.25 * (128 - mean) // shadows up, highlights down
				for c := 0; c < 3; c++ {
					v := float64(src.Pix[i+c])
					out.Pix[i+c] = clampU8(v + k*(v-mean)*0.5 + lift)
				}
				out.Pix[i+3] = 255
			}
		}
		return out, nil
	}
}

func boxBlur(v []float64, w, h, r int) []float64 {
	tmp := make([]float64, len(v))
	out := make([]float64, len(v))
	boxPass(tmp, v, h, w, w, 1, r)   // along the rows
	boxPass(out, tmp, w, 1, h, w, r) // along the columns
	return out
}

// boxPass writes to dst the mean of src over ±r samples along each of
// lines lines (the first sample of line k at k*next, samples step apart,
// n of them), the window cut at the line's ends.
func boxPass(dst, src []float64, lines, next, n, step, r int) {
	for k := range lines {
		for i := range n {
			var s float64
			lo, hi := max(i-r, 0), min(i+r, n-1)
			for j := lo; j <= hi; j++ {
				s += src[k*next+j*step]
			}
			dst[k*next+i*step] = s / float64(hi-lo+1)
		}
	}
}

func forgeryKinds() []forgery {
	return []forgery{
		{"recolour", recolour},
		{"colour-text", colourText},
		{"patch", foreignPatch},
		{"headline", headline},
	}
}

// editRect is a rectangle of the given area fraction and aspect (w/h) at
// a random place inside m's bounds.
func editRect(m *image.RGBA, area, aspect float64, rng *rand.Rand) image.Rectangle {
	W, H := float64(m.Rect.Dx()), float64(m.Rect.Dy())
	a := area * W * H
	w := math.Min(math.Sqrt(a*aspect), W)
	h := math.Min(a/w, H)
	x := rng.Float64() * (W - w)
	y := rng.Float64() * (H - h)
	return image.Rect(int(x), int(y), int(x+w), int(y+h))
}

func ycc(p []uint8) (y, cb, cr float64) {
	r, g, b := float64(p[0]), float64(p[1]), float64(p[2])
	y = 0.299*r + 0.587*g + 0.114*b
	return y, -0.168736*r - 0.331264*g + 0.5*b, 0.5*r - 0.418688*g - 0.081312*b
}

func setYCC(p []uint8, y, cb, cr float64) {
	p[0] = clampU8(y + 1.402*cr)
	p[1] = clampU8(y - 0.344136*cb - 0.714136*cr)
	p[2] = clampU8(y + 1.772*cb)
}

// recolour turns a region's hue around (180°), keeping its luminance; a
// nearly grey region gets a colour of its own (a grey car painted teal).
func recolour(m *image.RGBA, area float64, rng *rand.Rand, _ image.Image) *image.RGBA {
	r := editRect(m, area, 1.3, rng)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			p := m.Pix[y*m.Stride+4*x:]
			l, cb, cr := ycc(p)
			cb, cr = -cb, -cr
			if math.Hypot(cb, cr) < 24 {
				cb, cr = cb+18, cr-18
			}
			setYCC(p, l, cb, cr)
		}
	}
	return m
}

// textMask reports whether (x, y) of a line of text h pixels high is ink:
// glyph-like strokes, 5 columns per glyph of width about 0.6 h.
func textMask(x, y, h int) bool {
	gw := max(int(0.6*float64(h)), 3)
	stroke := max(h/7, 1)
	gx, gy := x%gw, y
	g := (x / gw) % 7
	if gx > gw-stroke-1 && g != 3 { // spacing
		return false
	}
	switch g % 4 {
	case 0: // H
		return gx < stroke || (gx >= gw-2*stroke-1 && gx < gw-stroke-1) || (gy > h/2-stroke/2 && gy <= h/2+stroke/2+1)
	case 1: // E
		return gx < stroke || gy < stroke || gy >= h-stroke || (gy > h/2-stroke/2 && gy <= h/2+stroke/2+1)
	case 2: // O
		return gx < stroke || gx >= gw-2*stroke-1 || gy < stroke || gy >= h-stroke
	default: // space
		return false
	}
}

// colourText writes text in colour only (isoluminant: each ink pixel keeps
// the picture's luminance, its chroma set to a saturated red), over a
// block of lines of total area `area`.
func colourText(m *image.RGBA, area float64, rng *rand.Rand, _ image.Image) *image.RGBA {
	r := editRect(m, area, 4, rng)
	lh := max(min(r.Dy(), m.Rect.Dy()/12), 8)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		ly := (y - r.Min.Y) % (lh + lh/3)
		if ly >= lh {
			continue
		}
		for x := r.Min.X; x < r.Max.X; x++ {
			if !textMask(x-r.Min.X, ly, lh) {
				continue
			}
			p := m.Pix[y*m.Stride+4*x:]
			l, _, _ := ycc(p)
			setYCC(p, l, -30, 60)
		}
	}
	return m
}

// foreignPatch pastes a region of another photo (an object that was not
// there).
func foreignPatch(m *image.RGBA, area float64, rng *rand.Rand, other image.Image) *image.RGBA {
	r := editRect(m, area, 1, rng)
	ob := other.Bounds()
	sx := ob.Min.X + ob.Dx()/3
	sy := ob.Min.Y + ob.Dy()/3
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := color.RGBAModel.Convert(other.At(sx+(x-r.Min.X)%max(ob.Dx()/2, 1), sy+(y-r.Min.Y)%max(ob.Dy()/2, 1))).(color.RGBA)
			i := y*m.Stride + 4*x
			m.Pix[i], m.Pix[i+1], m.Pix[i+2] = c.R, c.G, c.B
		}
	}
	return m
}

// headline writes one line of white text with a dark outline whose height
// is `area` of the picture's height (here the size is a height fraction,
// not an area), across 60 % of the width.
func headline(m *image.RGBA, hfrac float64, rng *rand.Rand, _ image.Image) *image.RGBA {
	W, H := m.Rect.Dx(), m.Rect.Dy()
	lh := max(int(hfrac*float64(H)), 6)
	lw := W * 6 / 10
	x0 := int(rng.Float64() * float64(W-lw))
	y0 := int(rng.Float64() * float64(H-lh))
	o := max(lh/14, 1)
	for y := y0; y < y0+lh; y++ {
		for x := x0; x < x0+lw; x++ {
			ink, edge := textMask(x-x0, y-y0, lh), false
			if !ink {
				for _, d := range [4][2]int{{o, 0}, {-o, 0}, {0, o}, {0, -o}} {
					xx, yy := x-x0+d[0], y-y0+d[1]
					if xx >= 0 && yy >= 0 && yy < lh && textMask(xx, yy, lh) {
						edge = true
					}
				}
			}
			i := y*m.Stride + 4*x
			switch {
			case ink:
				m.Pix[i], m.Pix[i+1], m.Pix[i+2] = 250, 250, 250
			case edge:
				m.Pix[i], m.Pix[i+1], m.Pix[i+2] = 10, 10, 10
			}
		}
	}
	return m
}

// integrityStats tallies the study.
type integrityStats struct {
	gen      map[string]*genTally
	forge    map[string]map[float64]*forgeTally
	tpN      int
	tpWarned int
	tpAuth   int
}

type genTally struct {
	n, authentic, edited, warned int
	kinds                        map[string]int // match kinds of the answers
}
type forgeTally struct{ n, authentic int }

func newIntegrityStats() *integrityStats {
	return &integrityStats{gen: map[string]*genTally{}, forge: map[string]map[float64]*forgeTally{}}
}

func relationOf(w wire.VerifyResponse) string {
	if w.Resembles == nil {
		return ""
	}
	return w.Resembles.Relation
}

func (s *integrityStats) genuine(name string, r verdict.Result, w wire.VerifyResponse) {
	t := s.gen[name]
	if t == nil {
		t = &genTally{kinds: map[string]int{}}
		s.gen[name] = t
	}
	t.n++
	t.kinds[r.Match.String()]++
	if r.Authentic {
		t.authentic++
	}
	if r.Match == verdict.MatchEdited {
		t.edited++
	}
	if relationOf(w) == wire.RelationWatermarkTransplant {
		t.warned++
	}
}

func (s *integrityStats) forged(name string, a float64, r verdict.Result, _ wire.VerifyResponse) {
	m := s.forge[name]
	if m == nil {
		m = map[float64]*forgeTally{}
		s.forge[name] = m
	}
	t := m[a]
	if t == nil {
		t = &forgeTally{}
		m[a] = t
	}
	t.n++
	if r.Authentic {
		t.authentic++
	}
}

func (s *integrityStats) transplant(r verdict.Result, w wire.VerifyResponse) {
	s.tpN++
	if relationOf(w) == wire.RelationWatermarkTransplant {
		s.tpWarned++
	}
	if r.Authentic {
		s.tpAuth++
	}
}

func (s *integrityStats) print(w io.Writer, copies []genuineCopy, forgeries []forgery, sizes []float64) {
	fmt.Fprintln(w, "\ngenuine copy | n | authentic | edited | transplant warning | match kinds")
	fmt.Fprintln(w, "---|---|---|---|---|---")
	var tn, ta, te, tw int
	for _, c := range copies {
		t := s.gen[c.name]
		if t == nil {
			continue
		}
		var ks []string
		for k, v := range t.kinds {
			ks = append(ks, fmt.Sprintf("%s %d", k, v))
		}
		sort.Strings(ks)
		fmt.Fprintf(w, "%s | %d | %d (%.1f %%) | %d | %d | %s\n", c.name, t.n, t.authentic, share(t.authentic, t.n), t.edited, t.warned, strings.Join(ks, ", "))
		tn, ta, te, tw = tn+t.n, ta+t.authentic, te+t.edited, tw+t.warned
	}
	fmt.Fprintf(w, "**all** | %d | %d (%.1f %%) | %d (%.1f %%) | %d |\n", tn, ta, share(ta, tn), te, share(te, tn), tw)
	sort.Float64s(sizes)
	fmt.Fprint(w, "\nforgery: not authentic (of n) by size")
	for _, a := range sizes {
		fmt.Fprintf(w, " | %.2g %%", 100*a)
	}
	fmt.Fprintln(w, " | smallest size caught in ≥ 99 %")
	fmt.Fprint(w, "---")
	for range sizes {
		fmt.Fprint(w, "|---")
	}
	fmt.Fprintln(w, "|---")
	for _, f := range forgeries {
		m := s.forge[f.name]
		if m == nil {
			continue
		}
		fmt.Fprintf(w, "%s", f.name)
		smallest := "none"
		for i := len(sizes) - 1; i >= 0; i-- {
			t := m[sizes[i]]
			if t == nil || share(t.n-t.authentic, t.n) < 99 {
				break
			}
			smallest = fmt.Sprintf("%.2g %%", 100*sizes[i])
		}
		for _, a := range sizes {
			t := m[a]
			if t == nil {
				fmt.Fprint(w, " | –")
				continue
			}
			fmt.Fprintf(w, " | %d/%d", t.n-t.authentic, t.n)
		}
		fmt.Fprintf(w, " | %s\n", smallest)
	}
	if s.tpN > 0 {
		fmt.Fprintf(w, "\ntransplant (payload embedded into another photo): %d, warned %d, authentic %d\n", s.tpN, s.tpWarned, s.tpAuth)
	}
}

func share(a, n int) float64 {
	if n == 0 {
		return 0
	}
	return 100 * float64(a) / float64(n)
}

// integrityCostCommand times, on one photo scaled to 4000×3000 (12 MP),
// signed and saved as JPEG 90: a full image/jpeg decode; facts.Analyze
// (reduced decode with the chroma means, hashes, watermark, probe); and
// the local-signature comparison alone, luminance grid against colour grid
// with the probe's chroma, so the added cost of colour signatures can be
// set against the decode.
func integrityCostCommand(fs *flag.FlagSet) func() error {
	path := fs.String("image", "", "photo to scale to 12 MP")
	runs := fs.Int("runs", 5, "runs per measurement (median)")
	return func() error {
		src, _, err := loadCorpusImage(*path)
		if err != nil {
			return err
		}
		m := resizeTo(src, 4000, 3000)
		marked, err := watermark.Embed(m, payloadFor(*path))
		if err != nil {
			return err
		}
		file, err := encJPEG(marked, 90)
		if err != nil {
			return err
		}
		l := imagex.ToLuma(marked)
		cb, cr := imagex.Chroma(marked)
		g1, g2 := localsig.Compute(l), localsig.ComputeColour(l, cb, cr)
		f, err := facts.Analyze(file, limits.Default(), time.Now())
		if err != nil || f.Local == nil {
			return fmt.Errorf("analyze: %v (probe %v)", err, f.Local != nil)
		}
		lumaOnly := *f.Local
		lumaOnly.Cb, lumaOnly.Cr = nil, nil
		img, err := imagex.DecodeLuma(file, limits.Default(), facts.VerifyShortSide)
		if err != nil {
			return err
		}
		timeIt := func(fn func()) float64 {
			var v []float64
			for i := 0; i < *runs; i++ {
				t0 := time.Now()
				fn()
				v = append(v, ms(time.Since(t0)))
			}
			return medianOf(v)
		}
		dec := timeIt(func() { _, _ = jpeg.Decode(bytes.NewReader(file)) })
		an := timeIt(func() { _, _ = facts.Analyze(file, limits.Default(), time.Now()) })
		c1 := timeIt(func() { localsig.Compare(g1, &lumaOnly) })
		c2 := timeIt(func() {
			p := lumaOnly
			p.WithChroma(img.Cb, img.Cr)
			localsig.Compare(g2, &p)
		})
		fmt.Printf("12 MP JPEG q90 (%d bytes), median of %d runs:\n", len(file), *runs)
		fmt.Printf("  image/jpeg full decode          %7.1f ms (1.00)\n", dec)
		fmt.Printf("  facts.Analyze (verify facts)    %7.1f ms (%.2f)\n", an, an/dec)
		fmt.Printf("  compare, luminance grid (v3)    %7.2f ms (%.3f)\n", c1, c1/dec)
		fmt.Printf("  chroma probe + colour grid (v4) %7.2f ms (%.3f)\n", c2, c2/dec)
		fmt.Printf("  added by colour signatures      %7.2f ms (%.3f of the decode)\n", c2-c1, (c2-c1)/dec)
		// The signed picture at 0.7 inside a page of the same size: the probe
		// grows (localsig.ProbeSide) and the containing translations are
		// searched.
		// inPage times the colour comparison of pic at 0.7 in a white
		// 4000×3000 page, through the verify facts' probe; probe is nil, and
		// what is said not found, when the watermark is not found there.
		inPage := func(what string, pic image.Image) (ms float64, probe *localsig.Probe, r localsig.Result, err error) {
			page, err := encJPEG(place(pic, 0.7, 4000, 3000, 0.5, 0.5, color.RGBA{255, 255, 255, 255}), 90)
			if err != nil {
				return 0, nil, r, err
			}
			f, err := facts.Analyze(page, limits.Default(), time.Now())
			if err != nil || f.Local == nil {
				if err == nil {
					fmt.Printf("  %s: watermark not found\n", what)
				}
				return 0, nil, r, err
			}
			ms = timeIt(func() {
				p := *f.Local
				r = localsig.Compare(g2, &p)
			})
			return ms, f.Local, r, nil
		}
		c3, probe, _, err := inPage("picture in a page", marked)
		if err != nil || probe == nil {
			return err
		}
		fmt.Printf("  picture at 0.7 in a page: probe %d×%d, colour compare %7.2f ms (%.3f of the decode)\n",
			probe.Plane.Width, probe.Plane.Height, c3, c3/dec)
		// The same with a grey patch in the picture: some blocks differ, so
		// the comparison is made a second time with the picture placed by
		// its edges (the worst case).
		ed := cloneRGBA(toRGBA(marked))
		pb := ed.Bounds()
		for y := pb.Dy() * 2 / 5; y < pb.Dy()*3/5; y++ {
			for x := pb.Dx() * 2 / 5; x < pb.Dx()*3/5; x++ {
				i := y*ed.Stride + 4*x
				ed.Pix[i], ed.Pix[i+1], ed.Pix[i+2] = 128, 128, 128
			}
		}
		c4, eprobe, er, err := inPage("edited picture in a page", ed)
		if err != nil || eprobe == nil {
			return err
		}
		fmt.Printf("  edited picture at 0.7 in a page (%v, %d blocks changed): colour compare %7.2f ms (%.3f of the decode)\n",
			er.Outcome, er.ChangedCount, c4, c4/dec)
		return nil
	}
}
