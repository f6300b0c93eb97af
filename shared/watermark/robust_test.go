package watermark

import (
	"fmt"
	"image"
	"math"
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
		{"crop75+jpeg70", func(t testing.TB, m image.Image) image.Image {
			b := m.Bounds()
			r := image.Rect(b.Dx()/8, b.Dy()/8, b.Dx()*7/8, b.Dy()*7/8)
			return reencode(t, m.(subImager).SubImage(r), "jpeg", 70)
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

// TestGridAxis checks the mapping from a found alignment back to source
// pixels on a worked example: a 1000-pixel axis marked on a 256-pixel grid
// (embedding pixels of 1000/256 source pixels), cropped to [100, 900) and
// decoded on its own 256-pixel grid, so scale 1.25. Embedding pixel 26 is
// the first whole one in the crop and starts at 26·1000/256 - 100 = 1.5625.
// The search reports that as a tile offset d and phase p with
// p - d ≡ 100/(1000/256) = 25.6 (mod 64).
func TestGridAxis(t *testing.T) {
	const q = 1000.0 / 256
	for _, tc := range []struct {
		d int
		p float64
	}{{39, 0.6}, {38, 0.6 - 1}, {39 + 64, 0.6}} {
		e0, m, start, gotQ := gridAxis(800, 256, 1.25, tc.d, tc.p)
		if math.Abs(gotQ-q) > 1e-9 {
			t.Errorf("d=%d p=%v: q = %v, want %v", tc.d, tc.p, gotQ, q)
		}
		if ((e0%64)+64)%64 != 26 {
			t.Errorf("d=%d p=%v: e0 = %d, want ≡ 26 (mod 64)", tc.d, tc.p, e0)
		}
		if math.Abs(start-1.5625) > 1e-9 {
			t.Errorf("d=%d p=%v: start = %v, want 1.5625", tc.d, tc.p, start)
		}
		// 204 whole embedding pixels fit: [1.5625, 1.5625+204·q] ⊂ [0, 800].
		if m != 204 {
			t.Errorf("d=%d p=%v: %d pixels, want 204", tc.d, tc.p, m)
		}
	}
}

// TestAreaTapsAverage checks that areaTaps averages exactly the covered
// interval, fractional ends included.
func TestAreaTapsAverage(t *testing.T) {
	src := make([]float64, 50)
	for i := range src {
		src[i] = float64(i * i % 17)
	}
	for _, tc := range []struct{ start, ratio float64 }{{0, 1}, {1.5625, 3.906}, {0.25, 0.7}, {3, 2}} {
		m := int((50 - tc.start) / tc.ratio)
		tp := areaTaps(len(src), m, tc.start, tc.ratio)
		for i := 0; i < m; i++ {
			lo, hi := tc.start+float64(i)*tc.ratio, tc.start+float64(i+1)*tc.ratio
			var want float64
			for j := range src {
				ov := math.Min(hi, float64(j+1)) - math.Max(lo, float64(j))
				if ov > 0 {
					want += ov * src[j]
				}
			}
			want /= tc.ratio
			var got float64
			for k, w := range tp.w[tp.off[i]:tp.off[i+1]] {
				got += float64(w) * src[tp.start[i]+k]
			}
			if math.Abs(got-want) > 1e-4 {
				t.Errorf("start %v ratio %v: output %d = %v, want %v", tc.start, tc.ratio, i, got, want)
			}
		}
	}
}

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
