package main

import (
	"image"
	"image/color"
	"math"

	"golang.org/x/image/draw"
)

// The edits phones, apps and platforms make that move the picture inside
// its frame: flips, quarter turns, padding, borders, screenshots, small
// rotations, non-uniform rescaling, overlays, and the colour and detail
// filters of photo apps.

// dihedral returns m mirrored and/or turned by quarter turns clockwise
// (the EXIF orientation baked into the pixels).
func dihedral(mirror bool, quarter int) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, _ string) (image.Image, error) {
		src := toRGBA(m)
		w, h := src.Bounds().Dx(), src.Bounds().Dy()
		ow, oh := w, h
		if quarter%2 == 1 {
			ow, oh = h, w
		}
		out := image.NewRGBA(image.Rect(0, 0, ow, oh))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				sx := x
				if mirror {
					sx = w - 1 - x
				}
				var dx, dy int
				switch quarter % 4 {
				case 0:
					dx, dy = x, y
				case 1:
					dx, dy = h-1-y, x
				case 2:
					dx, dy = w-1-x, h-1-y
				case 3:
					dx, dy = y, w-1-x
				}
				copy(out.Pix[dy*out.Stride+4*dx:dy*out.Stride+4*dx+4], src.Pix[y*src.Stride+4*sx:y*src.Stride+4*sx+4])
			}
		}
		return out, nil
	}
}

// place draws m scaled by f (Catmull-Rom) on a cw×ch canvas of colour bg
// with its top left corner at (ox, oy) as fractions of the free space.
func place(m image.Image, f float64, cw, ch int, ox, oy float64, bg color.RGBA) *image.RGBA {
	b := m.Bounds()
	w, h := int(math.Round(float64(b.Dx())*f)), int(math.Round(float64(b.Dy())*f))
	out := image.NewRGBA(image.Rect(0, 0, cw, ch))
	draw.Draw(out, out.Bounds(), image.NewUniform(bg), image.Point{}, draw.Src)
	x0, y0 := int(ox*float64(cw-w)), int(oy*float64(ch-h))
	r := image.Rect(x0, y0, x0+w, y0+h)
	if f == 1 {
		draw.Draw(out, r, m, b.Min, draw.Src)
	} else {
		draw.CatmullRom.Scale(out, r, m, b, draw.Src, nil)
	}
	return out
}

// padSquare centres the picture on a white square (what apps do to post
// a non-square photo).
func padSquare(m image.Image, _ string) (image.Image, error) {
	b := m.Bounds()
	s := max(b.Dx(), b.Dy())
	return place(m, 1, s, s, 0.5, 0.5, color.RGBA{255, 255, 255, 255}), nil
}

// border adds a frame of frac of the short side on every side.
func border(frac float64, bg color.RGBA) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, _ string) (image.Image, error) {
		b := m.Bounds()
		p := int(frac * float64(min(b.Dx(), b.Dy())))
		return place(m, 1, b.Dx()+2*p, b.Dy()+2*p, 0.5, 0.5, bg), nil
	}
}

// screenshot scales the picture by f and puts it at an offset inside a
// light-grey canvas of the original size, as a page capture shows it.
func screenshot(f float64) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, _ string) (image.Image, error) {
		b := m.Bounds()
		return place(m, f, b.Dx(), b.Dy(), 0.3, 0.6, color.RGBA{242, 242, 242, 255}), nil
	}
}

// aspect rescales the width by fx and keeps the height.
func aspect(fx float64) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, _ string) (image.Image, error) {
		b := m.Bounds()
		return resizeTo(m, int(math.Round(float64(b.Dx())*fx)), b.Dy()), nil
	}
}

// captionBar covers the bottom frac of the picture with an opaque dark bar
// carrying light "text" strokes.
func captionBar(frac float64) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, _ string) (image.Image, error) {
		out := toRGBA(m)
		w, h := out.Bounds().Dx(), out.Bounds().Dy()
		y0 := h - int(frac*float64(h))
		for y := y0; y < h; y++ {
			for x := 0; x < w; x++ {
				v := uint8(30)
				if (y-y0)%24 > 8 && (y-y0)%24 < 16 && (x/7)%5 != 0 && x > w/20 && x < w-w/20 {
					v = 235
				}
				i := y*out.Stride + 4*x
				out.Pix[i], out.Pix[i+1], out.Pix[i+2] = v, v, v
			}
		}
		return out, nil
	}
}

// saturate scales the chroma about the BT.601 luma by k.
func saturate(k float64) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, _ string) (image.Image, error) {
		out := toRGBA(m)
		for i := 0; i < len(out.Pix); i += 4 {
			r, g, b := float64(out.Pix[i]), float64(out.Pix[i+1]), float64(out.Pix[i+2])
			y := 0.299*r + 0.587*g + 0.114*b
			out.Pix[i] = clampU8(y + k*(r-y))
			out.Pix[i+1] = clampU8(y + k*(g-y))
			out.Pix[i+2] = clampU8(y + k*(b-y))
		}
		return out, nil
	}
}

// sharpen is an unsharp mask: x + amount·(x − blur_σ1(x)).
func sharpen(amount float64) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, tmp string) (image.Image, error) {
		src := toRGBA(m)
		bl, err := blur(src, tmp)
		if err != nil {
			return nil, err
		}
		b := bl.(*image.RGBA)
		out := image.NewRGBA(src.Bounds())
		for i := 0; i < len(out.Pix); i += 4 {
			for c := 0; c < 3; c++ {
				v := float64(src.Pix[i+c])
				out.Pix[i+c] = clampU8(v + amount*(v-float64(b.Pix[i+c])))
			}
			out.Pix[i+3] = 255
		}
		return out, nil
	}
}

func clampU8(v float64) uint8 { return uint8(math.Max(0, math.Min(255, math.Round(v)))) }

// rotateKeep rotates by deg degrees about the centre (bilinear) and keeps
// the canvas: the corners the picture no longer covers are black (a
// scanner, a tilted screenshot, a rotate button without auto-crop).
func rotateKeep(deg float64) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, _ string) (image.Image, error) {
		src := toRGBA(m)
		w, h := src.Bounds().Dx(), src.Bounds().Dy()
		s, c := math.Sincos(deg * math.Pi / 180)
		out := image.NewRGBA(image.Rect(0, 0, w, h))
		cx, cy := float64(w)/2, float64(h)/2
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				i := y*out.Stride + 4*x
				out.Pix[i+3] = 255
				dx, dy := float64(x)+0.5-cx, float64(y)+0.5-cy
				sx, sy := c*dx-s*dy+cx-0.5, s*dx+c*dy+cy-0.5
				if sx < 0 || sy < 0 || sx > float64(w-1) || sy > float64(h-1) {
					continue
				}
				x0, y0 := min(int(sx), w-2), min(int(sy), h-2)
				fx, fy := sx-float64(x0), sy-float64(y0)
				for ch := 0; ch < 3; ch++ {
					p := func(xx, yy int) float64 { return float64(src.Pix[yy*src.Stride+4*xx+ch]) }
					v := (1-fy)*((1-fx)*p(x0, y0)+fx*p(x0+1, y0)) + fy*((1-fx)*p(x0, y0+1)+fx*p(x0+1, y0+1))
					out.Pix[i+ch] = uint8(math.Round(v))
				}
			}
		}
		return out, nil
	}
}

// phoneShot is a phone screenshot of the picture: scaled by f, shown
// across the width of a portrait screen (19.5:9) with 4 % side margins,
// under a status bar and an app header and above a caption and a tab bar
// that carry text-like strokes and icons, then saved as PNG would (8-bit
// RGB). A 12 MP photo on a phone is shown at about 0.25–0.35.
func phoneShot(f float64) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, _ string) (image.Image, error) {
		b := m.Bounds()
		pw, ph := int(math.Round(float64(b.Dx())*f)), int(math.Round(float64(b.Dy())*f))
		cw := int(float64(pw) / 0.92)
		ch := max(cw*195/90, ph+cw*3/4)
		out := image.NewRGBA(image.Rect(0, 0, cw, ch))
		draw.Draw(out, out.Bounds(), image.NewUniform(color.RGBA{255, 255, 255, 255}), image.Point{}, draw.Src)
		ink := image.NewUniform(color.RGBA{38, 38, 38, 255})
		grey := image.NewUniform(color.RGBA{120, 120, 120, 255})
		u := max(cw/60, 2) // interface unit
		// Text-like lines: strokes of varying length on a baseline.
		text := func(x0, y0, x1, lines int, c image.Image) {
			for l := 0; l < lines; l++ {
				y := y0 + l*3*u
				for x := x0; x < x1; {
					n := (3 + (x*7+l*13)%5) * u / 2
					draw.Draw(out, image.Rect(x, y, min(x+n, x1), y+u*3/2), c, image.Point{}, draw.Src)
					x += n + u
				}
			}
		}
		// Status bar and header.
		text(2*u, u, 12*u, 1, ink)
		text(cw-14*u, u, cw-2*u, 1, ink)
		draw.Draw(out, image.Rect(2*u, 5*u, 6*u, 9*u), grey, image.Point{}, draw.Src)
		text(8*u, 6*u, cw/2, 1, ink)
		top := 11 * u
		x0 := (cw - pw) / 2
		draw.CatmullRom.Scale(out, image.Rect(x0, top, x0+pw, top+ph), m, b, draw.Src, nil)
		// Actions, caption and the tab bar below the picture.
		y := top + ph + u
		for i := 0; i < 4; i++ {
			draw.Draw(out, image.Rect(2*u+i*6*u, y, 5*u+i*6*u, y+3*u), ink, image.Point{}, draw.Src)
		}
		text(2*u, y+5*u, cw-2*u, 3, ink)
		for i := 0; i < 5; i++ {
			xc := cw * (2*i + 1) / 10
			draw.Draw(out, image.Rect(xc-u*3/2, ch-6*u, xc+u*3/2, ch-3*u), grey, image.Point{}, draw.Src)
		}
		return out, nil
	}
}

// browserShot is a desktop browser screenshot of the picture: scaled by f
// and shown in a page's content column, under the browser's tab and
// address bars and a page header, beside a sidebar of text and above a
// caption and paragraphs, then saved as PNG would (8-bit RGB). The page
// is at least 1440 px wide (a laptop's browser window; wider when the
// picture takes more than 62 % of that) and at least 16:10.
func browserShot(f float64) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, _ string) (image.Image, error) {
		b := m.Bounds()
		pw, ph := int(math.Round(float64(b.Dx())*f)), int(math.Round(float64(b.Dy())*f))
		cw := max(int(float64(pw)/0.62), 1440)
		u := max(cw/160, 2) // interface unit
		top := 16 * u       // chrome (7u) and the page header below it
		ch := max(cw*10/16, top+ph+16*u)
		out := image.NewRGBA(image.Rect(0, 0, cw, ch))
		draw.Draw(out, out.Bounds(), image.NewUniform(color.RGBA{255, 255, 255, 255}), image.Point{}, draw.Src)
		ink := image.NewUniform(color.RGBA{32, 33, 36, 255})
		grey := image.NewUniform(color.RGBA{95, 99, 104, 255})
		chrome := image.NewUniform(color.RGBA{222, 225, 230, 255})
		text := func(x0, y0, x1, y1 int, c image.Image) {
			for l, y := 0, y0; y+u*3/2 <= y1; l, y = l+1, y+5*u/2 {
				for x := x0; x < x1; {
					n := (3 + (x*7+l*13)%6) * u
					draw.Draw(out, image.Rect(x, y, min(x+n, x1), y+u*3/2), c, image.Point{}, draw.Src)
					x += n + u
				}
			}
		}
		// Tab strip and address bar.
		draw.Draw(out, image.Rect(0, 0, cw, 7*u), chrome, image.Point{}, draw.Src)
		for i := 0; i < 3; i++ {
			x0 := 2*u + i*22*u
			draw.Draw(out, image.Rect(x0, u/2, x0+20*u, 3*u), image.NewUniform(color.RGBA{245, 246, 247, 255}), image.Point{}, draw.Src)
			text(x0+2*u, u, x0+16*u, 3*u, grey)
		}
		draw.Draw(out, image.Rect(8*u, 7*u/2, cw-8*u, 6*u), image.NewUniform(color.RGBA{255, 255, 255, 255}), image.Point{}, draw.Src)
		text(10*u, 4*u, 40*u, 6*u, grey)
		// Page header: a title line and a menu.
		text(6*u, 9*u, cw/3, 11*u, ink)
		text(cw/2, 9*u, cw-6*u, 11*u, grey)
		// The picture, the sidebar beside it, the caption and text below.
		x0 := 6 * u
		draw.CatmullRom.Scale(out, image.Rect(x0, top, x0+pw, top+ph), m, b, draw.Src, nil)
		text(x0+pw+4*u, top, cw-4*u, ch-2*u, ink)
		text(x0, top+ph+2*u, x0+pw, ch-2*u, grey)
		return out, nil
	}
}

// keystone is the perspective of a print photographed from slightly
// below its centre, straightened to the frame: row y samples the source
// row y across a span narrowed by k·(1 − y/h) about the centre, so the top
// is magnified by up to 1/(1−k) and the bottom is unchanged (bilinear;
// the whole canvas stays covered).
func keystone(k float64) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, _ string) (image.Image, error) {
		src := toRGBA(m)
		w, h := src.Bounds().Dx(), src.Bounds().Dy()
		out := image.NewRGBA(image.Rect(0, 0, w, h))
		cx := float64(w) / 2
		for y := 0; y < h; y++ {
			s := 1 - k*(1-(float64(y)+0.5)/float64(h))
			for x := 0; x < w; x++ {
				sx := cx + (float64(x)+0.5-cx)*s - 0.5
				x0 := min(max(int(math.Floor(sx)), 0), w-2)
				fx := min(max(sx-float64(x0), 0), 1)
				i, j := y*out.Stride+4*x, y*src.Stride+4*x0
				for ch := 0; ch < 3; ch++ {
					out.Pix[i+ch] = uint8(math.Round((1-fx)*float64(src.Pix[j+ch]) + fx*float64(src.Pix[j+4+ch])))
				}
				out.Pix[i+3] = 255
			}
		}
		return out, nil
	}
}
