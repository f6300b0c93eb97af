package watermark

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
)

// surveyPhotos returns the sorted paths in the folder named by the
// environment variable env, and skips the test when it is not set.
func surveyPhotos(t *testing.T, env string) []string {
	t.Helper()
	dir := os.Getenv(env)
	if dir == "" {
		t.Skip(env + " not set")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestWarpSurvey (WM_WARP_DIR=dir of photos) marks each photo, applies the
// perspective attacks of the robustness bench and reports the warp
// search's z-score and decode next to Extract's.
func TestWarpSurvey(t *testing.T) {
	files := surveyPhotos(t, "WM_WARP_DIR")
	s := schemeFor(CurrentVersion)
	wrong := wrongBits(s, 0x1234567890abcdef)
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
		if os.Getenv("WM_WARP_UNMARKED") != "" {
			for _, q := range []*[4][2]float64{nil, ptr(warpQuads["perspective2"]), ptr(warpQuads["perspective3"])} {
				l := imagex.ToLuma(img)
				if q != nil {
					l = jpegLuma(warpLuma(l, *q), 85)
				}
				ww, wh := s.workDims(l.Width, l.Height)
				hp := s.highpass(resampleLuma(l, ww, wh), ww, wh)
				lv := warpLevels()
				_, _, pz := pooledOffset(s.warpBlocksOf(hp, ww, wh, identityWarp(), lv[0].n), s.tile, int(lv[0].reach))
				t.Logf("UNMARKED %s warped=%v pooled z %.2f", filepath.Base(f), q != nil, pz)
			}
			continue
		}
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
				if r.acc == nil {
					t.Logf("%-28.28s %-13s mark=%-5v extract=%-5v z=%.2f | warp gate closed",
						filepath.Base(f), name, mark, d.Found && p == 0x1234567890abcdef, d.Strength)
					continue
				}
				soft := s.soft(r.acc, r.dx, r.dy)
				var wsoft []float64
				if wp := s.whitenedPlane(work, ww, wh); wp != nil {
					wsoft = s.soft(s.foldWarpTo(make([]float64, s.tile*s.tile), wp, ww, m, 0, 0, ww, wh), r.dx, r.dy)
				}
				lv := warpLevels()
				b := s.warpBlocksOf(hp, ww, wh, identityWarp(), lv[0].n)
				bdx, bdy, pz := pooledOffset(b, s.tile, int(lv[0].reach))
				z0 := 0.0
				for _, f0 := range fitField(b, s.tile, bdx, bdy, lv[0].reach, warpStarts, warpTerms) {
					z0 = max(z0, s.warpFold(hp, ww, wh, identityWarp().minus(f0, ww, wh)).z)
				}
				line := fmt.Sprintf(" | pooled z %.2f level0 z %.2f | warp z=%5.2f wrong bits: fold %d, whitened %d", pz, z0, r.z, wrong(soft), wrong(wsoft))
				t.Logf("%-28.28s %-13s mark=%-5v extract=%-5v z=%.2f%s",
					filepath.Base(f), name, mark, d.Found && p == 0x1234567890abcdef, d.Strength, line)
			}
		}
	}
}

func ptr[T any](v T) *T { return &v }
