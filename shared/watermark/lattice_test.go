package watermark

import (
	"fmt"
	"image"
	_ "image/png"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
)

// A measurement, not a search stage: could the rotation search be skipped
// on a picture that shows no mark? The mark is a tile repeated over the
// picture, so its power spectrum sits on a lattice (spacing 1/T cycles per
// embedding pixel) that a rotation turns and a scale stretches. The
// whitened power spectrum of the high-passed working plane, averaged over
// the lattice's points for each (scale, angle) pair of the rotation
// search, is a z-score that costs two 256×256 FFTs instead of the search's
// 168 rotated window folds. The README ("Search cost") has what it
// measured: high on most rotated marked pictures, at noise level on
// rotated marks in dense texture that the search recovers, so it cannot
// gate the search without losing them. TestLatticeGateSurvey reruns it.

const (
	// latticeN is the side of the centre square transformed (the working
	// plane's short side).
	latticeN = 256
	// latticeRMin, latticeRMax: the band of spatial frequencies, in bins
	// of the latticeN-point transform, whose lattice points are averaged
	// (below: the high-pass removed the mark with the host; above: the
	// chips' own envelope and the resampling leave little).
	latticeRMin, latticeRMax = 12, 56
	// latticeTaper is the width, in pixels, of the cosine taper at the
	// edges of each transformed square.
	latticeTaper = 16
	// latticeWhiten is the half-side of the square of bins whose mean
	// power whitens a bin.
	latticeWhiten = 4
	// latticeNullTurn: the null statistic of a pair is taken at its angle
	// plus this many degrees, where no lattice of the search lies.
	latticeNullTurn = 30
)

// latticeMap is the whitened power spectrum of the centre square.
type latticeMap struct {
	p []float64 // latticeN², bin (kx, ky) at ky·latticeN + kx
}

// newLatticeMap transforms latticeN squares covering the w×h plane (one
// at each end of the long side, overlapping), each with a cosine taper of
// latticeTaper pixels at its edges, whitens each one's power by the mean
// over (2·latticeWhiten+1)² neighbouring bins, and averages the two: the
// mark is spread over the whole picture, and a dense texture in the
// centre (the decoder's coarse windows are off-centre for the same
// reason) must not hide it. ok false when the plane is smaller than a
// square.
func (s *scheme) newLatticeMap(hp []float32, w, h int) (*latticeMap, bool) {
	const N = latticeN
	if w < N || h < N {
		return nil, false
	}
	win := make([]float64, N)
	for i := range win {
		win[i] = 1
		if d := min(i, N-1-i); d < latticeTaper {
			win[i] = 0.5 - 0.5*math.Cos(math.Pi*(float64(d)+0.5)/latticeTaper)
		}
	}
	f := newFFT2(N)
	m := &latticeMap{p: make([]float64, N*N)}
	buf := make([]complex128, N*N)
	p := make([]float64, N*N)
	tmp := make([]float64, N*N)
	origins := [][2]int{{0, 0}, {w - N, h - N}}
	for _, o := range origins {
		x0, y0 := o[0], o[1]
		for y := 0; y < N; y++ {
			row := hp[(y+y0)*w+x0 : (y+y0)*w+x0+N]
			dst := buf[y*N : (y+1)*N]
			for x, v := range row {
				dst[x] = complex(float64(v)*win[x]*win[y], 0)
			}
		}
		f.transform(buf, false)
		for i, c := range buf {
			p[i] = real(c)*real(c) + imag(c)*imag(c)
		}
		// Cyclic box mean, rows then columns (running sums).
		const r = latticeWhiten
		for y := 0; y < N; y++ {
			row, dst := p[y*N:(y+1)*N], tmp[y*N:(y+1)*N]
			var sum float64
			for d := -r; d <= r; d++ {
				sum += row[(d+N)%N]
			}
			for x := range dst {
				dst[x] = sum
				sum += row[(x+r+1)%N] - row[(x-r+N)%N]
			}
		}
		inv := float64((2*r+1)*(2*r+1)) / float64(len(origins))
		for x := 0; x < N; x++ {
			var sum float64
			for d := -r; d <= r; d++ {
				sum += tmp[((d+N)%N)*N+x]
			}
			for y := 0; y < N; y++ {
				if sum > 0 {
					// Whitened (power over its neighbourhood's mean),
					// averaged over the squares.
					m.p[y*N+x] += p[y*N+x] / sum * inv
				}
				sum += tmp[((y+r+1)%N)*N+x] - tmp[((y-r+N)%N)*N+x]
			}
		}
	}
	return m, true
}

// stat is the mean whitened power at the points of the tile lattice of a
// mark at this scale and angle (degrees) within the frequency band, one
// of each pair of opposite points (the spectrum of a real plane is
// symmetric).
func (m *latticeMap) stat(tile int, scale, angle float64) float64 {
	const N = latticeN
	sin, cos := math.Sincos(angle * math.Pi / 180)
	step := float64(N) / (float64(tile) * scale)
	lim := int(latticeRMax / step)
	var sum float64
	n := 0
	for q := 0; q <= lim; q++ {
		for k := -lim; k <= lim; k++ {
			if q == 0 && k <= 0 {
				continue
			}
			fx, fy := float64(k)*step, float64(q)*step
			if r2 := fx*fx + fy*fy; r2 < latticeRMin*latticeRMin || r2 > latticeRMax*latticeRMax {
				continue
			}
			// The lattice turned as the search's angle turns the fold
			// (measured: a picture found at angle −3° peaks here at −3°).
			rx, ry := cos*fx-sin*fy, sin*fx+cos*fy
			ix, iy := int(math.Floor(rx+0.5))&(N-1), int(math.Floor(ry+0.5))&(N-1)
			sum += m.p[iy*N+ix]
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// latticeZ returns the largest z-score of the lattice statistic over the
// (scale, angle) pairs, each against the same statistics at the pairs
// turned by latticeNullTurn (mean and spread over all pairs); ok false
// when the plane is too small for the map.
func (s *scheme) latticeZ(hp []float32, w, h int, scales, angles []float64) (float64, bool) {
	m, ok := s.newLatticeMap(hp, w, h)
	if !ok || len(scales) < 2 {
		return 0, false
	}
	var sum, ss float64
	for i, sc := range scales {
		v := m.stat(s.tile, sc, angles[i]+latticeNullTurn)
		sum += v
		ss += v * v
	}
	n := float64(len(scales))
	mean := sum / n
	sd := math.Sqrt(math.Max(ss/n-mean*mean, 1e-30))
	best := math.Inf(-1)
	for i, sc := range scales {
		best = max(best, (m.stat(s.tile, sc, angles[i])-mean)/sd)
	}
	return best, true
}

// rotationLatticeZ is the largest lattice z-score over the rotation
// search's pairs and their angle refinements (ok false without a map).
func (s *scheme) rotationLatticeZ(hp []float32, w, h int) (float64, bool) {
	scales, angles := s.rotationPairs(w, h)
	n := len(scales)
	for i := 0; i < n; i++ {
		for _, da := range s.refineAngles {
			scales, angles = append(scales, scales[i]), append(angles, angles[i]+da)
		}
	}
	return s.latticeZ(hp, w, h, scales, angles)
}

// TestLatticeStatPeaksAtMark: over the rotation search's pairs, the
// lattice statistic of a rotated marked photo peaks at the angle the
// decoder then reports, and its z-score is far above the unmarked photo's.
func TestLatticeStatPeaksAtMark(t *testing.T) {
	s := schemes()[0]
	img := loadTestImage(t, "water.jpg")
	m, err := Embed(img, 0x1234)
	if err != nil {
		t.Fatal(err)
	}
	zOf := func(l *imagex.Luma) float64 {
		w, h := s.workDims(l.Width, l.Height)
		z, ok := s.rotationLatticeZ(s.highpass(resampleLuma(l, w, h), w, h), w, h)
		if !ok {
			t.Fatalf("no lattice map for %dx%d", l.Width, l.Height)
		}
		return z
	}
	unmarked := zOf(rotateCropLuma(imagex.ToLuma(img), 3))
	for _, deg := range []float64{2, -4, 7} {
		l := rotateCropLuma(imagex.ToLuma(m), deg)
		w, h := s.workDims(l.Width, l.Height)
		hp := s.highpass(resampleLuma(l, w, h), w, h)
		lm, ok := s.newLatticeMap(hp, w, h)
		if !ok {
			t.Fatal("no lattice map")
		}
		scales, angles := s.rotationPairs(w, h)
		best, bi := -1.0, 0
		for i := range scales {
			if v := lm.stat(s.tile, scales[i], angles[i]); v > best {
				best, bi = v, i
			}
		}
		_, d, _ := Extract(l)
		if !d.Found || angles[bi] != d.Angle {
			t.Errorf("rotated %g°: lattice peak at %g° (scale %.3f), decoder found %v at %g°", deg, angles[bi], scales[bi], d.Found, d.Angle)
		}
		if z := zOf(l); z < 3*unmarked {
			t.Errorf("rotated %g°: lattice z %.2f, unmarked %.2f", deg, z, unmarked)
		}
	}
}

// TestLatticeGateSurvey prints, for every picture of the directory
// $WM_SURVEY_DIR (or those whose names contain one of the comma-separated
// $WM_SURVEY_ONLY), the lattice z-score of the unmarked picture and of
// rotated marked copies, with the pilot z at which the full search
// recovers each copy ("-" when it does not). It fails if the unmarked
// picture gives a payload.
//
//	WM_SURVEY_DIR=bench/images go test -run LatticeGateSurvey -v -timeout 2h ./shared/watermark
func TestLatticeGateSurvey(t *testing.T) {
	dir := os.Getenv("WM_SURVEY_DIR")
	if dir == "" {
		t.Skip("WM_SURVEY_DIR not set")
	}
	s := schemes()[0]
	zOf := func(l *imagex.Luma) float64 {
		w, h := s.workDims(l.Width, l.Height)
		z, _ := s.rotationLatticeZ(s.highpass(resampleLuma(l, w, h), w, h), w, h)
		return z
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	only := os.Getenv("WM_SURVEY_ONLY")
	for _, name := range names {
		if only != "" {
			hit := false
			for _, o := range strings.Split(only, ",") {
				hit = hit || strings.Contains(name, o)
			}
			if !hit {
				continue
			}
		}
		img, err := decodeFile(filepath.Join(dir, name))
		if err != nil || img.Bounds().Dx()*img.Bounds().Dy() > 12e6 {
			continue
		}
		u := imagex.ToLuma(img)
		if _, d, _ := Extract(u); d.Found {
			t.Errorf("%s: payload in the unmarked picture", name)
		}
		m, err := Embed(img, 0x1234)
		if err != nil {
			continue
		}
		ml := imagex.ToLuma(m)
		line := fmt.Sprintf("%-45s unmarked %5.2f |", name, zOf(u))
		for _, c := range []struct {
			n string
			l *imagex.Luma
		}{
			{"rot1", rotateCropLuma(ml, 1)}, {"rot-5", rotateCropLuma(ml, -5)}, {"rot-10", rotateCropLuma(ml, -10)},
			{"canvas3", canvasLuma(ml, 3)}, {"canvas-5", canvasLuma(ml, -5)},
		} {
			rec := "-"
			if _, d, _ := Extract(c.l); d.Found {
				rec = fmt.Sprintf("%.1f", d.Strength)
			}
			line += fmt.Sprintf(" %s %5.2f/%s", c.n, zOf(c.l), rec)
		}
		t.Log(line)
	}
}

// canvasLuma is rotateCanvas on a luminance plane.
func canvasLuma(l *imagex.Luma, deg float64) *imagex.Luma {
	g := rotateCanvas(&image.Gray{Pix: l.Pix, Stride: l.Stride, Rect: image.Rect(0, 0, l.Width, l.Height)}, deg)
	return &imagex.Luma{Width: l.Width, Height: l.Height, Stride: g.Stride, Pix: g.Pix}
}

// decodeFile decodes a JPEG or PNG file.
func decodeFile(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	return img, err
}
