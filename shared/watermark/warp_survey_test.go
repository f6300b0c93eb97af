package watermark

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
)

// TestWarpSurvey (WM_WARP_DIR=dir of photos) marks each photo, applies the
// perspective attacks of the robustness bench and reports the warp
// search's z-score and decode next to Extract's.
func TestWarpSurvey(t *testing.T) {
	dir := os.Getenv("WM_WARP_DIR")
	if dir == "" {
		t.Skip("WM_WARP_DIR not set")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	s := schemeFor(CurrentVersion)
	truth := convEncode(message(0x1234567890abcdef, s.version))
	wrong := func(soft []float64) (n int) {
		for i, b := range truth {
			if (soft[i] > 0) != (b == 1) {
				n++
			}
		}
		return n
	}
	for _, f := range files {
		img, err := decodeFile(f)
		if err != nil {
			continue
		}
		marked, err := Embed(img, 0x1234567890abcdef)
		if err != nil {
			continue
		}
		base := imagex.ToLuma(marked)
		for name, q := range warpQuads {
			for _, mark := range []bool{true, false} {
				src := base
				if !mark {
					src = imagex.ToLuma(img)
				}
				l := jpegLuma(warpLuma(src, q), 85)
				p, d, _ := Extract(l)
				ww, wh := s.workDims(l.Width, l.Height)
				work := resampleLuma(l, ww, wh)
				hp := s.highpass(work, ww, wh)
				m, r := s.warpSearch(hp, ww, wh, identityWarp())
				soft := s.soft(r.acc, r.dx, r.dy)
				var wsoft []float64
				if wp := s.whitenedPlane(work, ww, wh); wp != nil {
					wsoft = s.soft(s.foldWarpTo(make([]float64, s.tile*s.tile), wp, ww, m, 0, 0, ww, wh), r.dx, r.dy)
				}
				rsoft := s.warpRegrid(l, ww, wh, m, r.dx, r.dy)
				line := fmt.Sprintf(" | warp z=%5.2f wrong bits: fold %d, regrid %d, whitened %d", r.z, wrong(soft), wrong(rsoft), wrong(wsoft))
				t.Logf("%-28.28s %-13s mark=%-5v extract=%-5v z=%.2f%s",
					filepath.Base(f), name, mark, d.Found && p == 0x1234567890abcdef, d.Strength, line)
			}
		}
	}
}
