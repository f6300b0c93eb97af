package watermark

import (
	"fmt"
	"image"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
	"golang.org/x/image/draw"
)

type subImager interface {
	SubImage(image.Rectangle) image.Image
}

// TestV2SurvivesTypicalEdits marks the test photos and checks exact payload
// recovery after the edits the v2 format is designed for. The full table over
// the development set is produced by "go run ./bench robustness".
func TestV2SurvivesTypicalEdits(t *testing.T) {
	edits := []struct {
		name string
		fn   func(testing.TB, image.Image) image.Image
	}{
		{"jpeg50", func(t testing.TB, m image.Image) image.Image { return reencode(t, m, "jpeg", 50) }},
		{"resize0.5+jpeg70", func(t testing.TB, m image.Image) image.Image {
			b := m.Bounds()
			out := image.NewRGBA(image.Rect(0, 0, b.Dx()/2, b.Dy()/2))
			draw.CatmullRom.Scale(out, out.Bounds(), m, b, draw.Src, nil)
			return reencode(t, out, "jpeg", 70)
		}},
		{"crop80-offcentre", func(t testing.TB, m image.Image) image.Image {
			b := m.Bounds()
			r := image.Rect(b.Dx()/8, b.Dy()/20, b.Dx()/8+b.Dx()*4/5, b.Dy()/20+b.Dy()*4/5)
			return m.(subImager).SubImage(r)
		}},
	}
	for _, name := range []string{"meadow.jpg", "water.jpg", "night.jpg"} {
		img := loadTestImage(t, name)
		p := Payload(0xdeadbeef00000000 | uint64(len(name)))
		marked, err := Embed(img, p)
		if err != nil {
			t.Fatalf("Embed(%s): %v", name, err)
		}
		for _, e := range edits {
			t.Run(fmt.Sprintf("%s/%s", name, e.name), func(t *testing.T) {
				got, d, err := Extract(imagex.ToLuma(e.fn(t, marked)))
				if err != nil {
					t.Fatalf("Extract: %v", err)
				}
				if !d.Found || got != p || d.Version != 2 {
					t.Errorf("Extract = %v %+v, want %v (v2)", got, d, p)
				}
			})
		}
	}
}
