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
	p := Payload(0x00c0ffee12345678)
	_, marked := markedTestPhoto(t, "meadow.jpg", p)
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
	plane := func(m image.Image) (planeLines, int, int) {
		l := imagex.ToLuma(m)
		w, h := s.workDims(l.Width, l.Height)
		return linesOf(s.highpass(resampleLuma(l, w, h), w, h), w, h), w, h
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
	p := Payload(0x5eed5eed00000005)
	_, marked := markedTestPhoto(t, "meadow.jpg", p)
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

// captioned puts m below (above false: above) a white band of frac of its
// height carrying a line of dark glyph strokes half the band high, as a
// caption added by an app or a news site. It returns the file and the
// picture's rectangle in it.
func captioned(m image.Image, frac float64, above bool) (*image.RGBA, image.Rectangle) {
	b := m.Bounds()
	bar := int(frac * float64(b.Dy()))
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()+bar))
	draw.Draw(out, out.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	pic, band := image.Rect(0, bar, b.Dx(), b.Dy()+bar), image.Rect(0, 0, b.Dx(), bar)
	if !above {
		pic, band = image.Rect(0, 0, b.Dx(), b.Dy()), image.Rect(0, b.Dy(), b.Dx(), b.Dy()+bar)
	}
	draw.Draw(out, pic, m, b.Min, draw.Src)
	lh := bar / 2
	x0, y0 := b.Dx()/20, band.Min.Y+bar/4
	for y := 0; y < lh; y++ {
		for x := 0; x < b.Dx()*8/10; x++ {
			if glyphInk(x, y, lh) {
				out.SetRGBA(x0+x, y0+y, color.RGBA{20, 20, 20, 255})
			}
		}
	}
	return out, pic
}

// TestExtractCaptioned: a marked photo with a caption band above or below
// (text on a plain band, the file taller than the picture) gives the exact
// payload at the picture's scale, and the picture's box as the region; the
// band's text rows no longer hide the picture's box. One case is checked to
// be out of the frame search's reach, so the caption search is the only
// way to it; at 20 % the frame search finds a box, but one that takes the
// band's text in, and the caption's box inside it is the one that reads.
func TestExtractCaptioned(t *testing.T) {
	p := Payload(0x0ca9710a12345678)
	_, marked := markedTestPhoto(t, "meadow.jpg", p)
	for _, tc := range []struct {
		name  string
		frac  float64
		above bool
		// noFrame: the frame search must find no flat frame here.
		noFrame bool
	}{
		{"above6", 0.06, true, false},
		{"below10", 0.10, false, false},
		// Here the band's text rows are busy enough that the frame search
		// finds no flat frame: only the caption search gives the box.
		{"below12", 0.12, false, true},
		{"below20", 0.20, false, false},
		{"above20", 0.20, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file, pic := captioned(marked, tc.frac, tc.above)
			l := imagex.ToLuma(reencode(t, file, "jpeg", 90))
			if tc.noFrame {
				s := schemes()[0]
				w, h := s.workDims(l.Width, l.Height)
				if _, b, ok := s.frameScales(linesOf(s.highpass(resampleLuma(l, w, h), w, h), w, h), w, h); ok {
					t.Fatalf("frameScales found box %v: the case no longer needs the caption search", b)
				}
			}
			got, d, err := Extract(l)
			if err != nil {
				t.Fatal(err)
			}
			if !d.Found || got != p {
				t.Fatalf("Extract = %v found %v (strength %.1f), want %v", got, d.Found, d.Strength, p)
			}
			want := float64(pic.Dy()) / float64(file.Rect.Dy())
			if d.Scale < want*0.98 || d.Scale > want*1.02 {
				t.Errorf("scale %.4f, want %.4f ± 2 %%", d.Scale, want)
			}
			tol := file.Rect.Dy() / 50
			if abs(d.Region.Min.Y-pic.Min.Y) > tol || abs(d.Region.Max.Y-pic.Max.Y) > tol {
				t.Errorf("region %v, want %v ± %d px", d.Region, pic, tol)
			}
		})
	}
}

// TestCaptionTakenIn: the frame's box of a 20 % caption band takes the
// band's text in and the caption's box replaces it; a plain white border
// (5 % of each side) gives a caption box a row or two inside the frame's,
// which does not, so a bordered picture's search is the frame's alone.
func TestCaptionTakenIn(t *testing.T) {
	s := schemes()[0]
	img := loadTestImage(t, "meadow.jpg")
	b := img.Bounds()
	bordered := framed(img, 1, b.Dx()*11/10, b.Dy()*11/10, b.Dx()/20, b.Dy()/20, color.White)
	captionedFile, _ := captioned(img, 0.20, false)
	for _, tc := range []struct {
		name string
		m    image.Image
		want bool
	}{{"border5", bordered, false}, {"below20", captionedFile, true}} {
		l := imagex.ToLuma(reencode(t, tc.m, "jpeg", 90))
		w, h := s.workDims(l.Width, l.Height)
		hp := s.highpass(resampleLuma(l, w, h), w, h)
		pl := linesOf(hp, w, h)
		_, fb, fok := s.frameScales(pl, w, h)
		_, cb, cok := s.captionScales(l, pl, w, h)
		if !fok || !cok {
			t.Fatalf("%s: frame box %v (%v), caption box %v (%v): want both", tc.name, fb, fok, cb, cok)
		}
		if got := takenIn(cb, fb, w, h); got != tc.want {
			t.Errorf("%s: takenIn(caption %v, frame %v) = %v, want %v", tc.name, cb, fb, got, tc.want)
		}
	}
}

// TestCaptionScales: the caption band gives the picture's box; a photo
// without one, a band wider than captionMaxBand, and a photo under a band
// of texture rather than plain background, give none.
func TestCaptionScales(t *testing.T) {
	s := schemes()[0]
	img := loadTestImage(t, "meadow.jpg")
	scan := func(m image.Image) ([]float64, [4]int, bool) {
		l := imagex.ToLuma(m)
		w, h := s.workDims(l.Width, l.Height)
		return s.captionScales(l, linesOf(s.highpass(resampleLuma(l, w, h), w, h), w, h), w, h)
	}
	if sc, _, ok := scan(img); ok {
		t.Errorf("captionScales(photo) = %v, want none", sc)
	}
	file, pic := captioned(img, 0.08, true)
	sc, box, ok := scan(file)
	want := float64(pic.Dy()) / float64(file.Rect.Dy())
	if !ok || sc[0] > want || sc[len(sc)-1] < want {
		t.Errorf("captionScales(captioned) = %v %v %v, want scales around %.3f", sc, box, ok, want)
	}
	// A band of a third of the file is a page around the picture, not a
	// caption: left to the frame and box searches.
	tall, _ := captioned(img, 0.5, true)
	if sc, b, ok := scan(tall); ok {
		t.Errorf("captionScales(band of a third) = %v %v, want none", sc, b)
	}
	// The same band filled with the photo's own texture is not a caption.
	tex, _ := captioned(img, 0.08, true)
	draw.Draw(tex, image.Rect(0, 0, tex.Rect.Dx(), pic.Min.Y), img, image.Point{}, draw.Src)
	for x := 0; x < tex.Rect.Dx(); x++ {
		tex.SetRGBA(x, pic.Min.Y-1, color.RGBA{255, 255, 255, 255})
		tex.SetRGBA(x, pic.Min.Y-2, color.RGBA{255, 255, 255, 255})
	}
	if sc, b, ok := scan(tex); ok {
		t.Errorf("captionScales(textured band) = %v %v, want none", sc, b)
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// glyphInk reports whether (x, y) is ink in a line of h-pixel glyphs
// (the letters H, E, O and a space, in cells of 0.6·h).
func glyphInk(x, y, h int) bool {
	gw, stroke := max(h*6/10, 3), max(h/7, 1)
	gx, g := x%gw, (x/gw)%7
	if gx > gw-stroke-1 && g != 3 {
		return false
	}
	mid := y > h/2-stroke/2 && y <= h/2+stroke/2+1
	switch g % 4 {
	case 0: // H
		return gx < stroke || (gx >= gw-2*stroke-1 && gx < gw-stroke-1) || mid
	case 1: // E
		return gx < stroke || y < stroke || y >= h-stroke || mid
	case 2: // O
		return gx < stroke || gx >= gw-2*stroke-1 || y < stroke || y >= h-stroke
	default:
		return false
	}
}
