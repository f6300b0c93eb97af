package watermark

import (
	"fmt"
	"image"
	"math"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
	"golang.org/x/image/draw"
)

// TestAspectChanged stretches and squeezes marked photos along one axis
// (landscape and portrait, the long or the short side) and checks that the
// payload comes back through the aspect search with the working plane
// reported per axis, and that the unmarked stretched photos give nothing.
func TestAspectChanged(t *testing.T) {
	cases := []struct {
		fx, fy   float64
		portrait bool
	}{
		{1.15, 1, false}, {0.9, 1, false}, {1, 1.2, false}, {1, 0.85, true}, {1.2, 1, true},
	}
	for _, name := range []string{"meadow.jpg", "water.jpg"} {
		src := loadTestImage(t, name)
		b := src.Bounds()
		for _, c := range cases {
			img := src
			if c.portrait {
				// The central portrait cut of the photo.
				w := b.Dy() * 3 / 4
				img = src.(subImager).SubImage(image.Rect(b.Min.X+(b.Dx()-w)/2, b.Min.Y, b.Min.X+(b.Dx()-w)/2+w, b.Max.Y))
			}
			p := Payload(0xa5bec7 ^ uint64(len(name)))
			marked, err := Embed(img, p)
			if err != nil {
				t.Fatal(err)
			}
			stretch := func(m image.Image) *imagex.Luma {
				mb := m.Bounds()
				out := image.NewRGBA(image.Rect(0, 0, int(math.Round(float64(mb.Dx())*c.fx)), int(math.Round(float64(mb.Dy())*c.fy))))
				draw.CatmullRom.Scale(out, out.Bounds(), m, mb, draw.Src, nil)
				return imagex.ToLuma(out)
			}
			t.Run(fmt.Sprintf("%s/%gx%g/portrait=%v", name, c.fx, c.fy, c.portrait), func(t *testing.T) {
				l := stretch(marked)
				got, d, err := Extract(l)
				if err != nil || !d.Found || got != p {
					t.Fatalf("Extract = %v %+v %v, want %v", got, d, err, p)
				}
				// The reported plane undoes the stretch: its aspect is the
				// signed picture's.
				ib := img.Bounds()
				want := float64(ib.Dx()) / float64(ib.Dy())
				if gotA := float64(d.WorkWidth) / float64(d.WorkHeight); math.Abs(gotA/want-1) > 0.01 {
					t.Errorf("working plane %d×%d (aspect %.4f), want the signed picture's aspect %.4f", d.WorkWidth, d.WorkHeight, gotA, want)
				}
				if _, d, _ := Extract(stretch(img)); d.Found {
					t.Errorf("watermark found in the unmarked stretched picture: %+v", d)
				}
			})
		}
	}
}
