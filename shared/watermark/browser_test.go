package watermark

import (
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
	"golang.org/x/image/draw"
)

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
