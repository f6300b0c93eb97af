package watermark

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
)

// TestRotationGateSurvey runs the rotation search's gate over every
// picture of $WM_SURVEY_DIR (pictures over 12 MP skipped; those whose
// names contain one of the comma-separated $WM_SURVEY_ONLY, if set): on
// the unmarked picture, and on rotated marked copies (cropped to the
// inscribed rectangle at 1°, −5° and −10°, on their canvas at 3° and
// −5°, and 2° and canvas −5° after JPEG 50), each also extracted with
// the search ungated. It logs one line per picture (quiet fraction,
// lattice z, the ungated search's pilot z or "-") and fails for every
// copy the ungated search recovers that the gate would have skipped.
//
//	WM_SURVEY_DIR=bench/images go test -run RotationGateSurvey -v -timeout 2h ./shared/watermark
func TestRotationGateSurvey(t *testing.T) {
	paths := surveyPhotos(t, "WM_SURVEY_DIR")
	s := schemes()[0]
	ungated := *s
	ungated.latticeFFT = nil
	type gateView struct {
		quiet, z float64
		open     bool
	}
	look := func(l *imagex.Luma) gateView {
		w, h := s.workDims(l.Width, l.Height)
		work := resampleLuma(l, w, h)
		hp, q := s.highpassQuiet(work, w, h, true)
		z, _ := s.rotationLatticeZ(hp, w, h)
		return gateView{q, z, s.rotationShows(q, hp, w, h)}
	}
	only := os.Getenv("WM_SURVEY_ONLY")
	pictures, skipped, recovered, lost := 0, 0, 0, 0
	for _, path := range paths {
		name := filepath.Base(path)
		if only != "" {
			hit := false
			for _, o := range strings.Split(only, ",") {
				hit = hit || strings.Contains(name, o)
			}
			if !hit {
				continue
			}
		}
		img, err := decodeFile(path)
		if err != nil || img.Bounds().Dx()*img.Bounds().Dy() > 12e6 {
			continue
		}
		u := imagex.ToLuma(img)
		g := look(u)
		pictures++
		if !g.open {
			skipped++
		}
		m, err := Embed(img, 0x1234)
		if err != nil {
			continue
		}
		ml := imagex.ToLuma(m)
		line := fmt.Sprintf("%-45s unmarked q %.2f z %5.2f open %-5v |", name, g.quiet, g.z, g.open)
		for _, c := range []struct {
			n string
			l *imagex.Luma
		}{
			{"rot1", rotateCropLuma(ml, 1)}, {"rot-5", rotateCropLuma(ml, -5)}, {"rot-10", rotateCropLuma(ml, -10)},
			{"canvas3", canvasLuma(ml, 3)}, {"canvas-5", canvasLuma(ml, -5)},
			{"rot2j50", jpegLuma(rotateCropLuma(ml, 2), 50)}, {"canvas-5j50", jpegLuma(canvasLuma(ml, -5), 50)},
		} {
			g := look(c.l)
			w, h := ungated.workDims(c.l.Width, c.l.Height)
			_, d := ungated.detect(c.l, resampleLuma(c.l, w, h), w, h, nil)
			rec := "-"
			if d.Found {
				recovered++
				rec = fmt.Sprintf("%.1f", d.Strength)
				if !g.open {
					lost++
					t.Errorf("%s %s: recovered at pilot z %.1f by the ungated search, gate closed (quiet %.3f, lattice z %.2f)", name, c.n, d.Strength, g.quiet, g.z)
				}
			}
			line += fmt.Sprintf(" %s q%.2f z%.1f %s", c.n, g.quiet, g.z, rec)
		}
		t.Log(line)
	}
	t.Logf("pictures %d, rotation search skipped on %d unmarked; rotated copies recovered ungated %d, of which the gate would lose %d", pictures, skipped, recovered, lost)
}
