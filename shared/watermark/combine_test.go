package watermark

import (
	"image"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
)

func lumaOf(m image.Image) *imagex.Luma { return imagex.ToLuma(m) }

// scaledRect is the square-fraction window at (fx, fy) of b, f of each side.
func scaledRect(b image.Rectangle, fx, fy, f float64) image.Rectangle {
	w, h := float64(b.Dx()), float64(b.Dy())
	return image.Rect(int(fx*w), int(fy*h), int((fx+f)*w), int((fy+f)*h)).Add(b.Min)
}

// markedPlane returns a w×h high-passed plane carrying codeword cw at
// amplitude amp, tile-aligned at offset 0, in the blocks keep accepts, plus
// Gaussian noise of unit power in those and of power noisy elsewhere.
func markedPlane(s *scheme, cw []uint8, w, h int, amp, noisy float64, keep func(bx, by int) bool, seed uint64) []float32 {
	signs := s.chipSigns(cw)
	r := rand.New(rand.NewPCG(seed, 7))
	hp := make([]float32, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := r.NormFloat64()
			if !keep(x/combineBlock, y/combineBlock) {
				v *= math.Sqrt(noisy)
			} else {
				k := ((y%s.tile)/s.chip)*s.grid + (x%s.tile)/s.chip
				v += amp * float64(signs[k])
			}
			hp[y*w+x] = float32(v)
		}
	}
	return hp
}

// TestWeightedReadingRecoversPartlyErasedMark checks what the weighted
// reading is for: a mark kept on an eighth of the picture only is drowned
// in the plain fold by the other blocks' noise (here six times the marked
// blocks' power), and found once each block is weighted by its own pilot
// evidence over its power. Weighting the blocks whose pilot agrees alike,
// or by the pilot correlation alone, finds none of the 8 planes.
// Through decodeBest, the weighted reading is only tried with readWeighted.
func TestWeightedReadingRecoversPartlyErasedMark(t *testing.T) {
	base := schemes()[0]
	p := Payload(0x5eed5eed12345678)
	cw := convEncode(message(p, base.version))
	const w, h = 512, 512
	keep := func(bx, by int) bool { return bx < 4 && by < 2 } // 8 of 64 blocks
	plainFound, weightedFound := 0, 0
	const planes = 8
	for seed := uint64(1); seed <= planes; seed++ {
		hp := markedPlane(base, cw, w, h, 0.16, 6, keep, seed)
		acc := base.fold(hp, w, 1, 0, 0, w, h)
		if _, _, _, ok := base.decodeSoft(base.soft(acc, 0, 0)); ok {
			plainFound++
		}
		ws := base.weightedSoft(hp, w, h, 1, 0, 0, 0, 0, 0)
		if got, _, _, ok := base.decodeSoft(ws); ok {
			if got != p {
				t.Fatalf("seed %d: weighted reading decoded %v, want %v", seed, got, p)
			}
			weightedFound++
		}
		// The candidate as the search would hand it over, already aligned.
		cand := []syncResult{{pixel: true, scale: 1, z: base.minPilotZ + 1, acc: acc}}
		off := *base
		off.readWeighted = false
		if _, d := off.decodeBest(newViews(&off, nil, hp, w, h), cand, 1); d.Found {
			t.Errorf("seed %d: found without the alternative readings; the plane is too easy to test them", seed)
		}
		if got, d := base.decodeBest(newViews(base, nil, hp, w, h), cand, 1); !d.Found || got != p {
			t.Errorf("seed %d: decodeBest = %v %+v, want %v through the weighted reading", seed, got, d, p)
		}
	}
	if plainFound != 0 || weightedFound != planes {
		t.Errorf("plain fold decoded %d of %d planes, weighted %d; want 0 and all", plainFound, planes, weightedFound)
	}
}

// TestFoldReadingAfterRegridFails checks the order of the readings of a
// crop's candidate: when the resampled embedding grid gives nothing (here
// the full-resolution plane is not the picture's, the extreme case of a
// resampling that misses the grid), the working plane's own fold is still
// decoded.
func TestFoldReadingAfterRegridFails(t *testing.T) {
	s := schemes()[0]
	p := Payload(0xc0ffee0000000042)
	_, marked := markedTestPhoto(t, "water.jpg", p)
	crop := toGray(marked).SubImage(scaledRect(marked.Bounds(), 0.25, 0.25, 0.5))
	l := lumaOf(crop)
	other := lumaOf(toGray(loadTestImage(t, "meadow.jpg")).SubImage(scaledRect(marked.Bounds(), 0.25, 0.25, 0.5)))
	if other.Width != l.Width || other.Height != l.Height {
		t.Fatalf("stand-in plane %dx%d, want %dx%d", other.Width, other.Height, l.Width, l.Height)
	}
	w, h := s.workDims(l.Width, l.Height)
	hp := s.highpass(resampleLuma(l, w, h), w, h)
	cands := s.searchViews(newViews(s, l, hp, w, h), s.coarseScales, []float64{0}, s.refineTop, [4]int{0, 0, w, h})
	if got, d := s.decodeBest(newViews(s, l, hp, w, h), cands, s.maxDecodes); !d.Found || got != p {
		t.Fatalf("the crop itself: %v %+v, want %v", got, d, p)
	}
	// The weighted reading is off in both: it reads the fold too.
	on, off := *s, *s
	on.readWeighted, off.readWeighted, off.readFold = false, false, false
	if _, d := off.decodeBest(newViews(&off, other, hp, w, h), cands, s.maxDecodes); d.Found {
		t.Fatalf("found from a stand-in full-resolution plane without the fold reading: %+v", d)
	}
	if got, d := on.decodeBest(newViews(&on, other, hp, w, h), cands, s.maxDecodes); !d.Found || got != p {
		t.Errorf("decodeBest with a failing regrid = %v %+v, want %v from the fold", got, d, p)
	}
}

// TestAlternativeReadingsKeepDetections checks that the alternative
// readings only add: wherever the decoder without them finds the mark, the
// decoder with them returns the same payload and the same Detection (the
// alignment the local signatures use), because every candidate's first
// reading is tried before any alternative.
func TestAlternativeReadingsKeepDetections(t *testing.T) {
	on := schemes()[0]
	off := *on
	off.readFold, off.readWeighted = false, false
	crop := func(fx, fy, f float64) func(*image.Gray) image.Image {
		return func(g *image.Gray) image.Image { return g.SubImage(scaledRect(g.Bounds(), fx, fy, f)) }
	}
	edits := []struct {
		name string
		fn   func(*image.Gray) image.Image
		q    int // JPEG quality afterwards, 0 for none
	}{
		// On flower.jpg this one is found without the alternatives (53
		// bit errors) and, were they tried candidate by candidate, from a
		// weaker candidate's alternative reading first, with another
		// alignment.
		{"mirror+crop70+jpeg40", func(g *image.Gray) image.Image {
			return turnGray(g, true, 0).SubImage(scaledRect(g.Bounds(), 0.02, 0.01, 0.7))
		}, 40},
		// A rotated picture whose crop-search candidates (unrotated) fail
		// their first reading: were their alternative readings tried
		// before the rotation search, one would check with the wrong
		// alignment.
		{"rotate1-canvas+crop90+jpeg85", func(g *image.Gray) image.Image { return crop(0.05, 0.05, 0.9)(rotateCanvas(g, 1)) }, 85},
		{"crop80", crop(0.1, 0.05, 0.8), 0},
		{"crop60", crop(0.2, 0.3, 0.6), 0},
		{"crop50", crop(0.45, 0.08, 0.5), 0},
		{"mirror+crop98", func(g *image.Gray) image.Image { return crop(0.02, 0.02, 0.98)(turnGray(g, true, 0)) }, 0},
		{"rot90+crop90", func(g *image.Gray) image.Image { return crop(0.03, 0.07, 0.9)(turnGray(g, false, 1)) }, 0},
		{"rotate3-canvas", func(g *image.Gray) image.Image { return rotateCanvas(g, 3) }, 0},
	}
	compared := 0
	for _, name := range []string{"meadow.jpg", "water.jpg", "flower.jpg", "night.jpg"} {
		p := Payload(0xabcdef0000000000 | uint64(len(name)))
		_, marked := markedTestPhoto(t, name, p)
		g := toGray(marked)
		for _, e := range edits {
			l := lumaOf(e.fn(g))
			if e.q > 0 {
				l = jpegLuma(l, e.q)
			}
			w, h := on.workDims(l.Width, l.Height)
			work := resampleLuma(l, w, h)
			p0, d0 := off.detect(l, work, w, h, nil)
			p1, d1 := on.detect(l, work, w, h, nil)
			if d1.Found && p1 != p {
				t.Errorf("%s/%s: wrong payload %v", name, e.name, p1)
			}
			if !d0.Found {
				continue
			}
			compared++
			if p1 != p0 || d1 != d0 {
				t.Errorf("%s/%s: with the alternative readings %v %+v, without %v %+v", name, e.name, p1, d1, p0, d0)
			}
		}
	}
	if compared < 12 {
		t.Errorf("only %d edits found without the alternative readings; the comparison needs more", compared)
	}
}
