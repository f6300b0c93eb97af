package imagex

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"testing"
)

// TestJPEGChromaMatchesFullDecode: the chroma means the luminance decoder
// reads from the DC coefficients agree with the chroma of image/jpeg's
// full decode averaged over the same area, for every subsampling, baseline
// and progressive, in the committed corpus.
func TestJPEGChromaMatchesFullDecode(t *testing.T) {
	checked := 0
	for name, b := range lumaCorpus(t) {
		full, err := jpeg.Decode(bytes.NewReader(b))
		if err != nil {
			continue // files image/jpeg refuses
		}
		_, cb, cr, err := decodeJPEGLumaChroma(b, 8, 1<<28)
		if err != nil {
			continue // files the luminance decoder hands to image/jpeg
		}
		wcb, wcr := Chroma(full)
		if wcb == nil || cb == nil {
			if cb != nil {
				t.Errorf("%s: chroma from the DC of a file image/jpeg decodes without chroma", name)
			}
			// Or a progressive file whose chroma DC scans code no Y.
			continue
		}
		// Both planes cover the whole picture: compared at a common
		// size, they agree within 2.5 levels on average (rounding,
		// clamping, the encoder's padding inside the edge blocks and the
		// resampling of blocks that run past the picture's edge); a wrong
		// scale, sign or table would be off by tens of levels.
		w, h := max(cb.Width/2, 1), max(cb.Height/2, 1)
		for k, p := range [][2]*Luma{{cb, wcb}, {cr, wcr}} {
			a, e := Downscale(p[0], w, h), Downscale(p[1], w, h)
			var sum float64
			for i := range a.Pix {
				sum += math.Abs(float64(a.Pix[i]) - float64(e.Pix[i]))
			}
			if m := sum / float64(len(a.Pix)); m > 2.5 {
				t.Errorf("%s: component %d differs from the full decode by %.2f levels on average", name, k+1, m)
			}
		}
		checked++
	}
	if checked < 15 {
		t.Fatalf("only %d files compared", checked)
	}
}

// opaqueImage hides an image's concrete type, so Chroma takes its
// generic path.
type opaqueImage struct{ image.Image }

// TestChromaFastPathsMatchGeneric: the in-place readers of 16-bit,
// paletted and alpha YCbCr pictures give the chroma the generic path
// gives, without a conversion per pixel.
func TestChromaFastPathsMatchGeneric(t *testing.T) {
	const w, h = 67, 45
	rgba64 := image.NewRGBA64(image.Rect(0, 0, w, h))
	nrgba64 := image.NewNRGBA64(image.Rect(0, 0, w, h))
	pal := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{
		color.NRGBA{200, 30, 40, 255}, color.NRGBA{20, 180, 60, 255}, color.NRGBA{30, 40, 220, 255}, color.NRGBA{250, 240, 10, 255}})
	ycc := image.NewNYCbCrA(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r, g, b := uint16(x*977%65536), uint16(y*1499%65536), uint16((x*y*31)%65536)
			rgba64.SetRGBA64(x, y, color.RGBA64{r, g, b, 0xffff})
			nrgba64.SetNRGBA64(x, y, color.NRGBA64{r, g, b, 0xffff})
			pal.SetColorIndex(x, y, uint8((x/5+y/3)%4))
		}
	}
	// Colours inside the RGB gamut, so the generic path's conversion
	// through RGB does not clip them.
	for i := range ycc.Y {
		ycc.Y[i] = uint8(100 + i%50)
	}
	for i := range ycc.Cb {
		ycc.Cb[i], ycc.Cr[i] = uint8(110+i%30), uint8(140-i%25)
	}
	for i := range ycc.A {
		ycc.A[i] = 255
	}
	for name, m := range map[string]image.Image{"rgba64": rgba64, "nrgba64": nrgba64, "paletted": pal, "nycbcra": ycc} {
		cb, cr := Chroma(m)
		gb, gr := Chroma(opaqueImage{m})
		if cb == nil || gb == nil {
			t.Fatalf("%s: no chroma", name)
		}
		for i := range cb.Pix {
			if d := int(cb.Pix[i]) - int(gb.Pix[i]); d < -1 || d > 1 {
				t.Fatalf("%s: Cb sample %d is %d, generic path %d", name, i, cb.Pix[i], gb.Pix[i])
			}
			if d := int(cr.Pix[i]) - int(gr.Pix[i]); d < -1 || d > 1 {
				t.Fatalf("%s: Cr sample %d is %d, generic path %d", name, i, cr.Pix[i], gr.Pix[i])
			}
		}
	}
}

// TestRoundHalfAwayIsRound: the chroma means' rounding is math.Round's,
// bit for bit, at the halves, the signed zeros, the non-finite values and
// the edges of float64 precision, and over random values.
func TestRoundHalfAwayIsRound(t *testing.T) {
	xs := []float64{0, math.Copysign(0, -1), 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994,
		-0.49999999999999994, 1 << 52, 1<<52 + 0.5, -(1<<52 + 1), 1 << 53, math.MaxFloat64, -math.MaxFloat64,
		math.SmallestNonzeroFloat64, math.Inf(1), math.Inf(-1), math.NaN(), 127.5, 254.5, -128.5}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		xs = append(xs, (rng.Float64()-0.5)*600, math.Float64frombits(rng.Uint64()))
	}
	for _, x := range xs {
		if got, want := roundHalfAway(x), math.Round(x); math.Float64bits(got) != math.Float64bits(want) &&
			!(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("roundHalfAway(%v) = %v, math.Round %v", x, got, want)
		}
	}
}

// FuzzRoundHalfAway: roundHalfAway is math.Round for every float64.
func FuzzRoundHalfAway(f *testing.F) {
	for _, x := range []float64{0.5, -2.5, 0.49999999999999994, 1<<52 + 0.5, math.Inf(-1)} {
		f.Add(math.Float64bits(x))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		x := math.Float64frombits(bits)
		got, want := roundHalfAway(x), math.Round(x)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("roundHalfAway(%v) = %v, math.Round %v", x, got, want)
		}
	})
}
