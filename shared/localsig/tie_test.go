package localsig_test

import (
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/localsig"
)

// TestPlacementTieFavoursStructure: a dark picture of nearly one tone,
// with texture, shown at the top left of a large white page. Every
// whole-period translation that puts the grid on the white page matches
// every block too, by an offset alone (the page 220 levels brighter
// than the picture everywhere), and ranks as well as the true place
// (the page's only other content, a bar of text along its bottom, lies
// beyond the translations tried first);
// the true place shows the picture's structure and must win, so the
// copy reads `contained` where it is, not `unknown` on the white (the
// unseen Flow wallpaper's phone screenshot).
func TestPlacementTieFavoursStructure(t *testing.T) {
	const W, H = 480, 300
	sig := image.NewRGBA(image.Rect(0, 0, W, H))
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			v := uint8(28 + 10*math.Sin(float64(x)/5)*math.Cos(float64(y)/7))
			sig.SetRGBA(x, y, color.RGBA{v, v, v + 4, 255})
		}
	}
	cb, cr := imagex.Chroma(sig)
	g := localsig.ComputeColour(imagex.ToLuma(sig), cb, cr)
	pw, ph, ox, oy := 3*W, 4*H, W/5, H/5
	page := surround(sig, pw, ph, ox, oy, color.RGBA{248, 248, 248, 255}, 0).(*image.RGBA)
	// A navigation bar of text strokes along the page's bottom: the
	// page is added content, not uniform padding.
	for y := ph - 120; y < ph-40; y++ {
		for x := 20; x < pw-20; x++ {
			if (x/6)%3 == 0 && (y/20)%2 == 0 {
				page.SetRGBA(x, y, color.RGBA{0, 0, 0, 255})
			}
		}
	}
	ks := float64(localsig.WorkShort) / float64(min(W, H))
	ke := float64(localsig.WorkShort) / float64(min(pw, ph))
	ww, wh := localsig.WorkDims(pw, ph)
	a := localsig.Alignment{Scale: ke / ks, OffsetX: -ks * float64(ox), OffsetY: -ks * float64(oy),
		WorkWidth: ww, WorkHeight: wh, Period: localsig.WorkShort / 2}
	r := localsig.Compare(g, localsig.NewProbe(imagex.ToLuma(page), a).WithChroma(imagex.Chroma(page)))
	if r.Outcome != localsig.Contained {
		t.Fatalf("outcome %v (compared %d, changed %d, structured %d, region %+v, within %+v), want contained", r.Outcome, r.Compared, r.ChangedCount, r.Structured, r.Region, r.Within)
	}
	if math.Abs(r.Within.X-float64(ox)/float64(pw)) > 0.01 || math.Abs(r.Within.Y-float64(oy)/float64(ph)) > 0.01 {
		t.Errorf("within %+v, want the picture at %.3f, %.3f", r.Within, float64(ox)/float64(pw), float64(oy)/float64(ph))
	}
}
