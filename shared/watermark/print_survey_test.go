package watermark

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
)

// printAngleQuad is the robustness bench's print-angle corners: a print
// seen at an angle and not straightened (scale 0.81–0.94 across it).
var printAngleQuad = [4][2]float64{{0.09, 0.06}, {0.90, 0.03}, {0.97, 0.95}, {0.03, 0.97}}

// foldFunc folds hp under an arbitrary map (pixel centre to tile
// coordinates), pointwise.
func (s *scheme) foldFunc(hp []float32, w, h int, at func(fx, fy float64) (float64, float64)) []float64 {
	T := s.tile
	acc := make([]float64, T*T)
	bias := float64(64 * T)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			ux, uy := at(float64(x)+0.5, float64(y)+0.5)
			acc[(int(uy+bias)&(T-1))*T+int(ux+bias)&(T-1)] += float64(hp[y*w+x])
		}
	}
	return acc
}

// lsMap fits the first n terms per axis of a warpMap to the map at over
// a grid of the w×h plane (least squares).
func lsMap(at func(fx, fy float64) (float64, float64), w, h, n int) warpMap {
	ata := make([]float64, n*n)
	bx, by := make([]float64, n), make([]float64, n)
	for j := 0; j <= 16; j++ {
		for i := 0; i <= 16; i++ {
			fx, fy := float64(i)*float64(w)/16, float64(j)*float64(h)/16
			ux, uy := at(fx, fy)
			r := terms(fx/float64(w), fy/float64(h))
			for p := 0; p < n; p++ {
				for q := 0; q < n; q++ {
					ata[p*n+q] += r[p] * r[q]
				}
				bx[p] += r[p] * ux
				by[p] += r[p] * uy
			}
		}
	}
	cx, _ := solveLinear(append([]float64(nil), ata...), bx, n)
	cy, _ := solveLinear(ata, by, n)
	// Back from (fx/w, fy/h) to pixel coordinates.
	sc := [warpTerms]float64{1, 1 / float64(w), 1 / float64(h), 1 / float64(w*h), 1 / float64(w*w), 1 / float64(h*h)}
	var m warpMap
	for p := 0; p < n; p++ {
		m.ux[p], m.uy[p] = cx[p]*sc[p], cy[p]*sc[p]
	}
	return m
}

// TestPrintAngleSurvey (WM_PA_DIR=dir of photos, WM_PA_N=how many) marks
// each photo, applies the print-angle attack (on the luminance, grey
// outside the print, JPEG 85) and reports where the copy is lost: the
// fold under the true homography, under the closest quadratic, bilinear
// and affine maps, the warp fit from the affine map, the similarity
// search's candidates and the warp stage's starts. With WM_PA_ATTACKED
// set, the photos are the bench's own copies, already marked (format 2,
// payload 0x1234567890abcdef) and attacked (bench wm embed, bench wm
// attack -attack print-angle).
func TestPrintAngleSurvey(t *testing.T) {
	files := surveyPhotos(t, "WM_PA_DIR")
	if n, err := strconv.Atoi(os.Getenv("WM_PA_N")); err == nil && n < len(files) {
		files = files[:n]
	}
	attacked := os.Getenv("WM_PA_ATTACKED") != ""
	s := schemeFor(2)
	wrong := wrongBits(s, 0x1234567890abcdef)
	for _, f := range files {
		img, err := decodeFile(f)
		if err != nil {
			continue
		}
		if attacked {
			printSurveyOne(t, s, filepath.Base(f), imagex.ToLuma(img), wrong)
			continue
		}
		marked, err := Embed(img, 0x1234567890abcdef, WithVersion(2))
		if err != nil {
			continue
		}
		printSurveyOne(t, s, filepath.Base(f), printAt(imagex.ToLuma(marked), printAngleQuad), wrong)
	}
}

// printSurveyOne reports, for one print-angle copy l of a picture marked
// with 0x1234567890abcdef, where it is lost (see TestPrintAngleSurvey).
func printSurveyOne(t *testing.T, s *scheme, f string, l *imagex.Luma, wrong func([]float64) int) {
	W, H := l.Width, l.Height
	Hm := quadHomography(printAngleQuad, W, H)
	p, d, _ := Extract(l)
	ww, wh := s.workDims(l.Width, l.Height)
	work := resampleLuma(l, ww, wh)
	hp := s.highpass(work, ww, wh)
	kx, ky := float64(ww)/float64(W), float64(wh)/float64(H)
	at := func(fx, fy float64) (float64, float64) {
		x, y := applyHomography(Hm, fx/kx, fy/ky)
		return x * kx, y * ky
	}
	rt := s.sync2(s.foldFunc(hp, ww, wh, at), nil)[0]
	mq := lsMap(at, ww, wh, warpTerms)
	rq := s.warpFold(hp, ww, wh, mq)
	mb := lsMap(at, ww, wh, bilinearTerms)
	rb := s.warpFold(hp, ww, wh, mb)
	// The closest similarity: fit the affine part and keep it (the
	// search's candidates are similarities; the affine is close).
	ma := lsMap(at, ww, wh, 3)
	ra := s.warpFold(hp, ww, wh, ma)
	lv := warpLevels()
	_, _, pzA := pooledOffset(s.warpBlocksOf(hp, ww, wh, ma, lv[0].n), s.tile, int(lv[0].reach))
	_, _, pzI := pooledOffset(s.warpBlocksOf(hp, ww, wh, identityWarp(), lv[0].n), s.tile, int(lv[0].reach))
	fm, fr := s.warpSearch(hp, ww, wh, ma)
	fw := -1
	if fr.acc != nil {
		fw = wrong(s.soft(fr.acc, fr.dx, fr.dy))
	}
	_ = fm
	t.Logf("%-24.24s extract=%-5v z=%.2f sc=%.3f | true z %.1f w%d | quad z %.1f w%d | bilin z %.1f w%d | affine z %.1f w%d | pooled id %.2f aff %.2f | warp from affine z %.1f w%d",
		f, d.Found && p == 0x1234567890abcdef, d.Strength, d.Scale,
		rt.z, wrong(s.soft(rt.acc, rt.dx, rt.dy)), rq.z, wrong(s.soft(rq.acc, rq.dx, rq.dy)),
		rb.z, wrong(s.soft(rb.acc, rb.dx, rb.dy)), ra.z, wrong(s.soft(ra.acc, ra.dx, ra.dy)), pzI, pzA, fr.z, fw)
	// The search's candidates and the seeds' first levels.
	v := newViews(s, l, hp, ww, wh)
	cands := s.searchViews(v, s.coarseScales, []float64{0}, s.refineTop, [4]int{0, 0, ww, wh})
	line := ""
	for i, c := range cands {
		if i == 6 {
			break
		}
		line += fmt.Sprintf(" [%.3f d%d z%.2f]", c.scale, c.d, c.z)
	}
	seeds := warpSeeds(cands)
	for _, m := range seeds[1:] {
		_, _, _, z := s.warpFirstLevel(hp, ww, wh, m)
		_, r := s.warpSearch(hp, ww, wh, m)
		w := -1
		if r.acc != nil {
			w = wrong(s.soft(r.acc, r.dx, r.dy))
		}
		line += fmt.Sprintf(" | seed sc %.3f pooled %.2f fit z %.1f w%d", 1/math.Hypot(m.ux[1], m.ux[2]), z, r.z, w)
	}
	for _, grid := range [][]float64{{0.84, 0.90, 0.96}, {0.82, 0.86, 0.90, 0.94}} {
		bz, bsc := 0.0, 0.0
		for _, sc := range grid {
			_, _, _, z := s.warpFirstLevel(hp, ww, wh, similarityWarp(sc, 0))
			if z > bz {
				bz, bsc = z, sc
			}
		}
		_, r := s.warpSearch(hp, ww, wh, similarityWarp(bsc, 0))
		w := -1
		if r.acc != nil {
			w = wrong(s.soft(r.acc, r.dx, r.dy))
		}
		line += fmt.Sprintf(" | grid%d best sc %.2f pooled %.2f fit z %.1f w%d", len(grid), bsc, bz, r.z, w)
	}
	t.Logf("   %s", line)
}
