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
		marked, err := Embed(loadTestImage(t, name), p)
		if err != nil {
			t.Fatalf("Embed(%s): %v", name, err)
		}
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
		gotX, gotY := pt[0]/d.Scale+d.OffsetX, pt[1]/d.Scale+d.OffsetY
		for _, e := range []float64{gotX - wantX, gotY - wantY} {
			e = math.Mod(math.Mod(e, 64)+96, 64) - 32
			if math.Abs(e) > 1 {
				t.Errorf("point %v: signed plane (%.2f, %.2f), want (%.2f, %.2f) mod 64", pt, gotX, gotY, wantX, wantY)
				break
			}
		}
	}
}
