package imagex

import (
	"bytes"
	"image/jpeg"
	"math"
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
