package watermark

import (
	"image"
	"math"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
)

// TestRegridBeatsWorkingGridOnCrops checks the reason regridSoft exists:
// after a crop, decoding from the full-resolution luminance resampled onto
// the embedding grid gives fewer coded-bit errors than folding the
// decoder's own working grid at the same alignment.
func TestRegridBeatsWorkingGridOnCrops(t *testing.T) {
	p := Payload(0x0123456789abcdef)
	s := schemeFor(2)
	cw := convEncode(message(p, 2))
	errs := func(soft []float64) (n int) {
		for j, b := range cw {
			if (soft[j] > 0) != (b == 1) {
				n++
			}
		}
		return n
	}
	var foldTotal, regridTotal int
	for _, name := range []string{"meadow.jpg", "water.jpg", "night.jpg", "flower.jpg"} {
		_, marked := markedTestPhoto(t, name, p)
		b := marked.Bounds()
		for _, r := range []image.Rectangle{
			image.Rect(b.Dx()/20, b.Dy()/20, b.Dx()*19/20, b.Dy()*19/20),          // 90 %
			image.Rect(b.Dx()/8, b.Dy()/8, b.Dx()*7/8, b.Dy()*7/8),                // 75 %
			image.Rect(b.Dx()*17/100, b.Dy()*3/100, b.Dx()*97/100, b.Dy()*83/100), // off-centre 80 %
		} {
			// JPEG 50 after the crop, so that there are bit errors to compare.
			l := imagex.ToLuma(reencode(t, marked.(subImager).SubImage(r), "jpeg", 50))
			w, h := s.workDims(l.Width, l.Height)
			hp := s.highpass(resampleLuma(l, w, h), w, h)
			cands := s.search(hp, w, h, s.coarseScales, []float64{0}, s.refineTop, [4]int{0, 0, w, h})
			c := s.fineScale(hp, w, h, s.align(hp, w, h, cands[0]))
			g, ok := s.regridSoft(l, w, h, c)
			if !ok {
				t.Fatalf("crop %v: regrid refused", r)
			}
			fe, ge := errs(s.soft(c.acc, c.dx, c.dy)), errs(g)
			t.Logf("%s crop %v: scale %.4f, bit errors fold %d, regrid %d", name, r, c.scale, fe, ge)
			foldTotal += fe
			regridTotal += ge
		}
	}
	if regridTotal >= foldTotal {
		t.Errorf("regrid bit errors %d, working-grid fold %d: regrid should be fewer", regridTotal, foldTotal)
	}
}

// TestCapTextureKeepsFlatAmplitude checks the PSNR-cap allocation: the
// energy is alpha² times the input's, and on flat pixels (mask = maskFlat)
// the residual is unchanged while textured pixels shrink.
func TestCapTextureKeepsFlatAmplitude(t *testing.T) {
	const w, h = 128, 96
	work := make([]float32, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if x >= w/2 { // right half: texture
				work[y*w+x] = float32((x*7+y*13)%32) * 4
			} else {
				work[y*w+x] = 120
			}
		}
	}
	s := schemeFor(2)
	mask := perceptualMask(work, w, h)
	res := s.residual(mask, w, h, convEncode(message(0x1234, 2)), nil)
	energy := func(v []float32) (e float64) {
		for _, r := range v {
			e += float64(r) * float64(r)
		}
		return e
	}
	const alpha = 0.6
	got := capTexture(mask, res, alpha)
	if e0, e1 := energy(res), energy(got); math.Abs(e1-alpha*alpha*e0) > 1e-3*e0 {
		t.Errorf("energy %v, want %v", e1, alpha*alpha*e0)
	}
	var flat, tex int
	for i := range res {
		switch {
		case mask[i] == maskFlat:
			flat++
			if got[i] != res[i] {
				t.Fatalf("flat pixel %d changed: %v → %v", i, res[i], got[i])
			}
		case mask[i] > 2*maskFlat:
			tex++
			if math.Abs(float64(got[i])) >= math.Abs(float64(res[i])) {
				t.Fatalf("textured pixel %d not shrunk: %v → %v", i, res[i], got[i])
			}
		}
	}
	if flat == 0 || tex == 0 {
		t.Fatalf("test image has %d flat and %d textured pixels", flat, tex)
	}
}

// FuzzExtractCrop extracts from arbitrary crops of one marked photo: the
// search and the re-gridding must never fail, and whatever is found must be
// the embedded payload.
func FuzzExtractCrop(f *testing.F) {
	const p = Payload(0x5eed5eed5eed5eed)
	marked, err := Embed(loadTestImage(f, "meadow.jpg"), p)
	if err != nil {
		f.Fatal(err)
	}
	l := imagex.ToLuma(marked)
	f.Add(uint16(30), uint16(24), uint16(570), uint16(456))
	f.Add(uint16(102), uint16(14), uint16(582), uint16(398))
	f.Add(uint16(0), uint16(0), uint16(64), uint16(64))
	f.Fuzz(func(t *testing.T, x0, y0, x1, y1 uint16) {
		r := image.Rect(int(x0), int(y0), int(x1), int(y1)).Intersect(image.Rect(0, 0, l.Width, l.Height))
		if r.Dx() < MinExtractShortSide || r.Dy() < MinExtractShortSide {
			return
		}
		sub := &imagex.Luma{Width: r.Dx(), Height: r.Dy(), Stride: l.Stride, Pix: l.Pix[r.Min.Y*l.Stride+r.Min.X:]}
		got, d, err := Extract(sub)
		if err != nil {
			t.Fatalf("Extract(crop %v): %v", r, err)
		}
		if d.Found && got != p {
			t.Fatalf("Extract(crop %v) = %v, embedded %v", r, got, p)
		}
	})
}
