package watermark

import (
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
	"golang.org/x/image/draw"
)

// TestV2SurvivesCombinedGeometry checks exact recovery after edits that
// combine: a flip or a quarter turn with a crop (the orientation and the
// scale both move), a rotation that keeps the canvas with black corners,
// and a picture shown small inside a busy frame (a phone screenshot). Each
// was lost before the search covered the combination.
func TestV2SurvivesCombinedGeometry(t *testing.T) {
	crop := func(m image.Image, fx, fy, f float64) image.Image {
		b := m.Bounds()
		w, h := float64(b.Dx()), float64(b.Dy())
		r := image.Rect(int(fx*w), int(fy*h), int((fx+f)*w), int((fy+f)*h)).Add(b.Min)
		return toGray(m).SubImage(r)
	}
	edits := []struct {
		name string
		fn   func(image.Image) image.Image
	}{
		{"mirror+crop98", func(m image.Image) image.Image { return crop(turnGray(toGray(m), true, 0), 0.02, 0.02, 0.98) }},
		{"rot90+crop98", func(m image.Image) image.Image { return crop(turnGray(toGray(m), false, 1), 0.02, 0.02, 0.98) }},
		{"rot270+crop90", func(m image.Image) image.Image { return crop(turnGray(toGray(m), false, 3), 0.03, 0.07, 0.9) }},
		{"rotate-5-canvas", func(m image.Image) image.Image { return rotateCanvas(toGray(m), -5) }},
		{"phone-screenshot", func(m image.Image) image.Image { return phoneFrame(m, 0.45) }},
	}
	for _, name := range []string{"meadow.jpg", "water.jpg"} {
		p := Payload(0xc0ffee0000000000 | uint64(len(name)))
		_, marked := markedTestPhoto(t, name, p)
		for _, e := range edits {
			t.Run(name+"/"+e.name, func(t *testing.T) {
				got, d, err := Extract(imagex.ToLuma(e.fn(marked)))
				if err != nil {
					t.Fatalf("Extract: %v", err)
				}
				if !d.Found || got != p {
					t.Errorf("Extract = %v %+v, want %v", got, d, p)
				}
			})
		}
	}
}

func toGray(m image.Image) *image.Gray {
	b := m.Bounds()
	g := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(g, g.Bounds(), m, b.Min, draw.Src)
	return g
}

// turnGray mirrors g (first) and turns it q quarter turns clockwise.
func turnGray(g *image.Gray, mirror bool, q int) *image.Gray {
	d := dihedral(q & 3)
	if mirror {
		d |= 4
	}
	pix, w, h := applyDihedral(d, g.Pix, g.Rect.Dx(), g.Rect.Dy())
	return &image.Gray{Pix: pix, Stride: w, Rect: image.Rect(0, 0, w, h)}
}

// rotateCanvas rotates g by deg about its centre (bilinear) on a canvas of
// the same size, black where the picture no longer reaches.
func rotateCanvas(g *image.Gray, deg float64) *image.Gray {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	out := image.NewGray(g.Rect)
	s, c := math.Sincos(deg * math.Pi / 180)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			dx, dy := float64(x)+0.5-float64(w)/2, float64(y)+0.5-float64(h)/2
			sx, sy := c*dx-s*dy+float64(w)/2-0.5, s*dx+c*dy+float64(h)/2-0.5
			if sx < 0 || sy < 0 || sx > float64(w-1) || sy > float64(h-1) {
				continue
			}
			x0, y0 := min(int(sx), w-2), min(int(sy), h-2)
			fx, fy := sx-float64(x0), sy-float64(y0)
			p := func(xx, yy int) float64 { return float64(g.Pix[yy*g.Stride+xx]) }
			v := (1-fy)*((1-fx)*p(x0, y0)+fx*p(x0+1, y0)) + fy*((1-fx)*p(x0, y0+1)+fx*p(x0+1, y0+1))
			out.Pix[y*out.Stride+x] = uint8(math.Round(v))
		}
	}
	return out
}

// phoneFrame scales m by f across a tall white canvas with dark text-like
// lines above and below it.
func phoneFrame(m image.Image, f float64) image.Image {
	b := m.Bounds()
	pw, ph := int(float64(b.Dx())*f), int(float64(b.Dy())*f)
	cw, ch := pw*100/92, pw*100/92*2
	out := image.NewGray(image.Rect(0, 0, cw, ch))
	draw.Draw(out, out.Bounds(), image.NewUniform(color.Gray{255}), image.Point{}, draw.Src)
	u := max(cw/60, 2)
	for l := 0; l < 4; l++ {
		for _, y := range []int{2*u + 3*u*l, 20*u + ph + 3*u*l} {
			for x := 2 * u; x < cw-2*u; x += 4 * u {
				draw.Draw(out, image.Rect(x, y, x+3*u, y+u*3/2), image.NewUniform(color.Gray{40}), image.Point{}, draw.Src)
			}
		}
	}
	x0, y0 := (cw-pw)/2, 16*u
	draw.CatmullRom.Scale(out, image.Rect(x0, y0, x0+pw, y0+ph), m, b, draw.Src, nil)
	return out
}

// TestBusyFrameAlignment checks that a picture found inside a busy frame
// is placed on the signed picture's grid: a point of the frame's working
// plane maps, by Scale and the offsets, to where that point of the
// picture lies on the signed plane (modulo the tile), within a working
// pixel.
func TestBusyFrameAlignment(t *testing.T) {
	p := Payload(0xfeed)
	src := loadTestImage(t, "meadow.jpg")
	marked, err := Embed(src, p)
	if err != nil {
		t.Fatal(err)
	}
	const f = 0.45
	shot := phoneFrame(marked, f)
	got, d, err := Extract(imagex.ToLuma(shot))
	if err != nil || !d.Found || got != p {
		t.Fatalf("Extract = %v %+v %v, want %v", got, d, err, p)
	}
	// Where phoneFrame put the picture, in the screenshot's pixels.
	b := marked.Bounds()
	pw := int(float64(b.Dx()) * f)
	cw := pw * 100 / 92
	u := max(cw/60, 2)
	x0, y0 := float64((cw-pw)/2), float64(16*u)
	sb := shot.Bounds()
	s := schemes()[0]
	sw, _ := s.workDims(b.Dx(), b.Dy())
	for _, pt := range [][2]float64{{60, 150}, {120, 200}} {
		// Frame plane → screenshot pixels → signed picture pixels → the
		// signed working plane.
		X, Y := pt[0]*float64(sb.Dx())/float64(d.WorkWidth), pt[1]*float64(sb.Dy())/float64(d.WorkHeight)
		k := float64(sw) / float64(b.Dx())
		wantX, wantY := (X-x0)/f*k, (Y-y0)/f*k
		checkSignedPoint(t, d, pt, wantX, wantY)
	}
}

// checkSignedPoint fails unless the working-plane point pt maps, by d's
// Scale and offsets, to within a working pixel of (wantX, wantY) on the
// signed working plane, modulo the 64-pixel tile.
func checkSignedPoint(t *testing.T, d Detection, pt [2]float64, wantX, wantY float64) {
	t.Helper()
	gotX, gotY := pt[0]/d.Scale+d.OffsetX, pt[1]/d.Scale+d.OffsetY
	for _, e := range []float64{gotX - wantX, gotY - wantY} {
		e = math.Mod(math.Mod(e, 64)+96, 64) - 32
		if math.Abs(e) > 1 {
			t.Errorf("point %v: signed plane (%.2f, %.2f), want (%.2f, %.2f) mod 64", pt, gotX, gotY, wantX, wantY)
			return
		}
	}
}

// TestFlipCropAlignment checks the alignment reported for a mirrored and
// cropped picture: after Orient, a point of the working plane maps, by
// Scale and the offsets, to where it lies on the signed plane (modulo the
// tile), within a working pixel.
func TestFlipCropAlignment(t *testing.T) {
	p := Payload(0xbeef)
	_, marked := markedTestPhoto(t, "meadow.jpg", p)
	g := turnGray(toGray(marked), true, 0)
	W, H := g.Rect.Dx(), g.Rect.Dy()
	cx, cy := W*3/100, H*2/100
	cut := g.SubImage(image.Rect(cx, cy, W, H))
	l := imagex.ToLuma(cut)
	got, d, err := Extract(l)
	if err != nil || !d.Found || got != p || !d.Flipped || d.Quarter != 0 {
		t.Fatalf("Extract = %v %+v %v, want %v flipped", got, d, err, p)
	}
	o := Orient(l, d)
	Wc := o.Width
	s := schemes()[0]
	sw, _ := s.workDims(W, H)
	k := float64(sw) / float64(W)
	for _, pt := range [][2]float64{{40, 100}, {200, 30}} {
		// Oriented plane → oriented pixels → signed pixels (the mirror
		// then the crop's left cut became a cut on the right) → the
		// signed working plane.
		Xo, Yo := pt[0]*float64(Wc)/float64(d.WorkWidth), pt[1]*float64(o.Height)/float64(d.WorkHeight)
		wantX, wantY := (Xo+float64(W-cx-Wc))*k, (Yo+float64(cy))*k
		checkSignedPoint(t, d, pt, wantX, wantY)
	}
}

// browserFrame shows m scaled by f in a desktop browser page, as the
// robustness bench's desktop screenshots: a tab strip and an address bar,
// a page header, the picture in a content column (the page at least
// 1440 px wide) beside a sidebar of text lines and above a caption and
// paragraphs. It returns the frame and where the picture is in it.
func browserFrame(m image.Image, f float64) (*image.Gray, image.Rectangle) {
	b := m.Bounds()
	pw, ph := int(math.Round(float64(b.Dx())*f)), int(math.Round(float64(b.Dy())*f))
	cw := max(int(float64(pw)/0.62), 1440)
	u := max(cw/160, 2)
	top := 16 * u
	ch := max(cw*10/16, top+ph+16*u)
	out := image.NewGray(image.Rect(0, 0, cw, ch))
	fill := func(r image.Rectangle, v uint8) {
		draw.Draw(out, r, image.NewUniform(color.Gray{v}), image.Point{}, draw.Src)
	}
	fill(out.Bounds(), 255)
	text := func(x0, y0, x1, y1 int, v uint8) {
		for l, y := 0, y0; y+u*3/2 <= y1; l, y = l+1, y+5*u/2 {
			for x := x0; x < x1; {
				n := (3 + (x*7+l*13)%6) * u
				fill(image.Rect(x, y, min(x+n, x1), y+u*3/2), v)
				x += n + u
			}
		}
	}
	fill(image.Rect(0, 0, cw, 7*u), 224)
	for i := 0; i < 3; i++ {
		x0 := 2*u + i*22*u
		fill(image.Rect(x0, u/2, x0+20*u, 3*u), 246)
		text(x0+2*u, u, x0+16*u, 3*u, 99)
	}
	fill(image.Rect(8*u, 7*u/2, cw-8*u, 6*u), 255)
	text(10*u, 4*u, 40*u, 6*u, 99)
	text(6*u, 9*u, cw/3, 11*u, 33)
	text(cw/2, 9*u, cw-6*u, 11*u, 99)
	x0 := 6 * u
	pic := image.Rect(x0, top, x0+pw, top+ph)
	draw.CatmullRom.Scale(out, pic, m, b, draw.Src, nil)
	text(x0+pw+4*u, top, cw-4*u, ch-2*u, 33)
	text(x0, top+ph+2*u, x0+pw, ch-2*u, 99)
	return out, pic
}

// TestScreenshotRegion checks that a marked photo on a flat frame, shown in a desktop
// browser page (0.2–0.6 of its size, beside a sidebar of text) and in a
// phone screenshot (0.25–0.35) is found, and that Region places the
// picture in the screenshot to within four working pixels per edge; an
// unframed picture's Region is the whole picture.
func TestScreenshotRegion(t *testing.T) {
	p := Payload(0xfeed)
	small := loadTestImage(t, "meadow.jpg")
	src := image.NewRGBA(image.Rect(0, 0, 2400, 1920))
	draw.CatmullRom.Scale(src, src.Bounds(), small, small.Bounds(), draw.Src, nil)
	marked, err := Embed(src, p)
	if err != nil {
		t.Fatal(err)
	}
	if _, d, _ := Extract(imagex.ToLuma(marked)); !d.Found || d.Region != src.Bounds() {
		t.Fatalf("unframed: Found %v Region %v, want %v", d.Found, d.Region, src.Bounds())
	}
	type shot struct {
		name string
		f    float64
		make func(image.Image, float64) (image.Image, image.Rectangle)
	}
	browser := func(m image.Image, f float64) (image.Image, image.Rectangle) { return browserFrame(m, f) }
	phone := func(m image.Image, f float64) (image.Image, image.Rectangle) {
		b := m.Bounds()
		pw, ph := int(float64(b.Dx())*f), int(float64(b.Dy())*f)
		cw := pw * 100 / 92
		u := max(cw/60, 2)
		x0, y0 := (cw-pw)/2, 16*u
		return phoneFrame(m, f), image.Rect(x0, y0, x0+pw, y0+ph)
	}
	flat := func(m image.Image, f float64) (image.Image, image.Rectangle) {
		b := m.Bounds()
		out := image.NewGray(b)
		draw.Draw(out, b, image.NewUniform(color.Gray{242}), image.Point{}, draw.Src)
		pw, ph := int(float64(b.Dx())*f), int(float64(b.Dy())*f)
		pic := image.Rect(b.Dx()/5, b.Dy()/3, b.Dx()/5+pw, b.Dy()/3+ph)
		draw.CatmullRom.Scale(out, pic, m, b, draw.Src, nil)
		return out, pic
	}
	for _, c := range []shot{{"flat frame", 0.5, flat}, {"browser", 0.2, browser}, {"browser", 0.4, browser}, {"browser", 0.6, browser}, {"phone", 0.25, phone}, {"phone", 0.35, phone}} {
		frame, pic := c.make(marked, c.f)
		l := imagex.ToLuma(frame)
		got, d, err := Extract(l)
		if err != nil || !d.Found || got != p {
			t.Errorf("%s %.2f: Extract = %v %+v %v, want %v", c.name, c.f, got, d, err, p)
			continue
		}
		ww, _ := schemes()[0].workDims(l.Width, l.Height)
		tol := 4 * float64(l.Width) / float64(ww)
		r := d.Region
		for i, e := range []int{r.Min.X - pic.Min.X, r.Min.Y - pic.Min.Y, r.Max.X - pic.Max.X, r.Max.Y - pic.Max.Y} {
			if math.Abs(float64(e)) > tol {
				t.Errorf("%s %.2f: Region %v, picture at %v (edge %d off by %d px, tolerance %.0f)", c.name, c.f, r, pic, i, e, tol)
				break
			}
		}
	}
}
