package watermark

import (
	"bytes"
	"image"
	"image/jpeg"
	_ "image/png"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
)

// TestRotationGate: the rotation search's gate stays open for rotated
// marked pictures (cropped to the inscribed rectangle or on their canvas,
// after JPEG too) and for dense texture whether marked or not, and closes
// on unmarked pictures with quiet areas. Mutating latticeGate (to 0 or
// past 10), latticeQuiet (to 0 or past 0.5) or either comparison fails a
// row.
func TestRotationGate(t *testing.T) {
	s := schemes()[0]
	canvas := func(deg float64) func(*imagex.Luma) *imagex.Luma {
		return func(l *imagex.Luma) *imagex.Luma { return canvasLuma(l, deg) }
	}
	crop := func(deg float64) func(*imagex.Luma) *imagex.Luma {
		return func(l *imagex.Luma) *imagex.Luma { return rotateCropLuma(l, deg) }
	}
	same := func(l *imagex.Luma) *imagex.Luma { return l }
	type row struct {
		name  string
		image string // a test photo, or "texture" (dense noise)
		mark  bool
		edit  func(*imagex.Luma) *imagex.Luma
		open  bool
	}
	var rows []row
	for _, name := range testImages {
		rows = append(rows,
			row{"unmarked", name, false, same, false},
			row{"unmarked rotated 3°", name, false, crop(3), false},
			row{"marked rotated 1°", name, true, crop(1), true},
			row{"marked rotated −5° on its canvas", name, true, canvas(-5), true},
			row{"marked rotated 8° on its canvas", name, true, canvas(8), true},
			row{"marked rotated −10°", name, true, crop(-10), true},
			row{"marked rotated 2°, JPEG 50", name, true, func(l *imagex.Luma) *imagex.Luma { return jpegLuma(rotateCropLuma(l, 2), 50) }, true},
		)
	}
	rows = append(rows,
		row{"unmarked dense texture", "texture", false, same, true},
		row{"unmarked dense texture rotated 4°", "texture", false, crop(4), true},
	)
	pics := map[[2]string]*imagex.Luma{}
	for _, r := range rows {
		k := [2]string{r.image, map[bool]string{true: "marked"}[r.mark]}
		l, ok := pics[k]
		if !ok {
			var img image.Image
			if r.image == "texture" {
				img = denseTexture(640, 480)
			} else {
				img = loadTestImage(t, r.image)
			}
			if r.mark {
				m, err := Embed(img, 0x1234)
				if err != nil {
					t.Fatal(err)
				}
				img = m
			}
			l = imagex.ToLuma(img)
			pics[k] = l
		}
		e := r.edit(l)
		w, h := s.workDims(e.Width, e.Height)
		work := resampleLuma(e, w, h)
		hp, q := s.highpassQuiet(work, w, h, true)
		z, _ := s.rotationLatticeZ(hp, w, h)
		if got := s.rotationShows(q, hp, w, h); got != r.open {
			t.Errorf("%s %s: rotation search %v (quiet %.3f, lattice z %.2f), want %v", r.image, r.name, got, q, z, r.open)
		}
		// The margins the bounds leave on these pictures.
		switch {
		case r.image == "texture" && q > latticeQuiet/2:
			t.Errorf("%s %s: quiet fraction %.3f, not under half of %.2f", r.image, r.name, q, latticeQuiet)
		case r.image != "texture" && q < 2*latticeQuiet:
			t.Errorf("%s %s: quiet fraction %.3f, not twice %.2f", r.image, r.name, q, latticeQuiet)
		case r.image != "texture" && r.mark && z < latticeGate+3:
			t.Errorf("%s %s: lattice z %.2f, not 3 above the gate %.1f", r.image, r.name, z, latticeGate)
		case r.image != "texture" && !r.mark && z > latticeGate-1:
			t.Errorf("%s %s: lattice z %.2f within 1 of the gate %.1f", r.image, r.name, z, latticeGate)
		}
	}
}

// denseTexture is a w×h picture of grey noise (σ about 40 levels, no
// flat area): the host on which the lattice cannot show a mark.
func denseTexture(w, h int) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range g.Pix {
		g.Pix[i] = uint8(min(max(128+r.NormFloat64()*40, 0), 255))
	}
	return g
}

// jpegLuma re-encodes l as a greyscale JPEG at quality q and decodes it.
func jpegLuma(l *imagex.Luma, q int) *imagex.Luma {
	g := &image.Gray{Pix: l.Pix, Stride: l.Stride, Rect: image.Rect(0, 0, l.Width, l.Height)}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, g, &jpeg.Options{Quality: q}); err != nil {
		panic(err)
	}
	m, err := jpeg.Decode(&b)
	if err != nil {
		panic(err)
	}
	return imagex.ToLuma(m)
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
