package watermark

import (
	"fmt"
	"image"
	"image/color"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
	"golang.org/x/image/draw"
)

// framed draws m scaled by f at (x, y) on a w×h canvas of colour bg.
func framed(m image.Image, f float64, w, h, x, y int, bg color.Color) *image.RGBA {
	b := m.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(out, out.Bounds(), image.NewUniform(bg), image.Point{}, draw.Src)
	pw, ph := int(float64(b.Dx())*f), int(float64(b.Dy())*f)
	draw.CatmullRom.Scale(out, image.Rect(x, y, x+pw, y+ph), m, b, draw.Src, nil)
	return out
}

// TestExtractFramed: a marked photo padded to a square, inside a border,
// or scaled into a screenshot (anywhere in a larger canvas) gives the
// exact payload at the scale the picture has in its frame.
func TestExtractFramed(t *testing.T) {
	img := loadTestImage(t, "meadow.jpg")
	p := Payload(0x00c0ffee12345678)
	marked, err := Embed(img, p)
	if err != nil {
		t.Fatal(err)
	}
	b := marked.Bounds()
	w, h := b.Dx(), b.Dy()
	white, grey := color.RGBA{255, 255, 255, 255}, color.RGBA{240, 240, 240, 255}
	side := max(w, h)
	for _, tc := range []struct {
		name      string
		m         image.Image
		wantScale float64
	}{
		{"pad-square", framed(marked, 1, side, side, (side-w)/2, (side-h)/2, white), float64(min(w, h)) / float64(side)},
		{"border", framed(marked, 1, w+w/10, h+w/10, w/20, w/20, white), float64(min(w, h)) / float64(min(w, h)+w/10)},
		{"screenshot0.6", framed(marked, 0.6, w, h, w/3, h/8, grey), 0.6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, d, err := Extract(imagex.ToLuma(reencode(t, tc.m, "jpeg", 85)))
			if err != nil {
				t.Fatal(err)
			}
			if !d.Found || got != p {
				t.Fatalf("Extract = %v found %v (strength %.1f), want %v", got, d.Found, d.Strength, p)
			}
			if d.Scale < tc.wantScale*0.98 || d.Scale > tc.wantScale*1.02 {
				t.Errorf("scale %.4f, want %.4f ± 2 %%", d.Scale, tc.wantScale)
			}
		})
	}
}

// TestFrameScales: the flat frame's box gives the scale; a photo that
// fills its frame gives none, so the search below scale 1 costs nothing.
func TestFrameScales(t *testing.T) {
	s := schemes()[0]
	img := loadTestImage(t, "meadow.jpg")
	plane := func(m image.Image) ([]float32, int, int) {
		l := imagex.ToLuma(m)
		w, h := s.workDims(l.Width, l.Height)
		return s.highpass(resampleLuma(l, w, h), w, h), w, h
	}
	if sc, _, ok := s.frameScales(plane(img)); ok {
		t.Errorf("frameScales(unframed photo) = %v, want none", sc)
	}
	b := img.Bounds()
	for _, f := range []float64{0.5, 0.75, 0.9} {
		t.Run(fmt.Sprint(f), func(t *testing.T) {
			sc, box, ok := s.frameScales(plane(framed(img, f, b.Dx(), b.Dy(), 7, 5, color.Gray{30})))
			if !ok || len(sc) == 0 {
				t.Fatalf("frameScales(photo at %.2f in a dark frame) found no frame", f)
			}
			if lo, hi := sc[0], sc[len(sc)-1]; lo > f || hi < f {
				t.Errorf("scales %.3f … %.3f (box %v), want them around %.2f", lo, hi, box, f)
			}
		})
	}
}

// TestExtractWideEdits: a straightened horizon (±5°, cropped to the
// largest upright rectangle of the same aspect) and crops to half of each
// side, centred or not, give the exact payload.
func TestExtractWideEdits(t *testing.T) {
	img := loadTestImage(t, "meadow.jpg")
	p := Payload(0x5eed5eed00000005)
	marked, err := Embed(img, p)
	if err != nil {
		t.Fatal(err)
	}
	ml := imagex.ToLuma(marked)
	crop := func(fx, fy float64) *imagex.Luma {
		w, h := ml.Width/2, ml.Height/2
		x0, y0 := int(fx*float64(ml.Width)), int(fy*float64(ml.Height))
		return &imagex.Luma{Width: w, Height: h, Stride: ml.Stride, Pix: ml.Pix[y0*ml.Stride+x0:]}
	}
	for _, tc := range []struct {
		name string
		l    *imagex.Luma
	}{
		{"rotate5", rotateCropLuma(ml, 5)},
		{"rotate-4", rotateCropLuma(ml, -4)},
		{"crop50", crop(0.25, 0.25)},
		{"crop50-offcentre", crop(0.45, 0.1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, d, err := Extract(tc.l)
			if err != nil {
				t.Fatal(err)
			}
			if !d.Found || got != p {
				t.Errorf("Extract = %v found %v (strength %.1f), want %v", got, d.Found, d.Strength, p)
			}
		})
	}
}
