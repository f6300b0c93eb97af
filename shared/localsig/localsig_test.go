package localsig_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/localsig"
	"github.com/provenant/provenant/shared/watermark"
)

// devImages are the development photographs the tests use.
var devImages = []string{
	"../testdata/images/photo.jpg",
	"../testdata/images/other.jpg",
	"../watermark/testdata/flower.jpg",
	"../watermark/testdata/meadow.jpg",
	"../watermark/testdata/night.jpg",
	"../watermark/testdata/water.jpg",
}

func load(t testing.TB, path string) image.Image {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

func rgba(m image.Image) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, m.Bounds().Dx(), m.Bounds().Dy()))
	draw.Draw(out, out.Bounds(), m, m.Bounds().Min, draw.Src)
	return out
}

func reJPEG(t testing.TB, m image.Image, q int) image.Image {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: q}); err != nil {
		t.Fatal(err)
	}
	out, err := jpeg.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// resize is an area/bilinear-ish box resize good enough for tests.
func resize(m image.Image, w, h int) image.Image {
	src := rgba(m)
	sw, sh := src.Bounds().Dx(), src.Bounds().Dy()
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		y0, y1 := y*sh/h, max((y+1)*sh/h, y*sh/h+1)
		for x := 0; x < w; x++ {
			x0, x1 := x*sw/w, max((x+1)*sw/w, x*sw/w+1)
			var r, g, b, n int
			for yy := y0; yy < y1; yy++ {
				for xx := x0; xx < x1; xx++ {
					p := src.RGBAAt(xx, yy)
					r, g, b, n = r+int(p.R), g+int(p.G), b+int(p.B), n+1
				}
			}
			out.SetRGBA(x, y, color.RGBA{uint8(r / n), uint8(g / n), uint8(b / n), 255})
		}
	}
	return out
}

func crop(m image.Image, fx, fy, fw, fh float64) image.Image {
	b := m.Bounds()
	r := image.Rect(int(fx*float64(b.Dx())), int(fy*float64(b.Dy())), int((fx+fw)*float64(b.Dx())), int((fy+fh)*float64(b.Dy())))
	out := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(out, out.Bounds(), m, r.Min.Add(b.Min), draw.Src)
	return out
}

// signed embeds a payload and returns the marked picture and its grid.
func signed(t testing.TB, path string, p watermark.Payload) (image.Image, *localsig.Grid) {
	t.Helper()
	m, err := watermark.Embed(load(t, path), p)
	if err != nil {
		t.Fatal(err)
	}
	return m, localsig.Compute(imagex.ToLuma(m))
}

// examine extracts the watermark and compares under its alignment.
func examine(t testing.TB, g *localsig.Grid, m image.Image) (localsig.Result, bool) {
	t.Helper()
	l := imagex.ToLuma(m)
	_, d, err := watermark.Extract(l)
	if err != nil || !d.Found {
		return localsig.Result{}, false
	}
	a := localsig.Alignment{Scale: d.Scale, Angle: d.Angle, OffsetX: d.OffsetX, OffsetY: d.OffsetY,
		WorkWidth: d.WorkWidth, WorkHeight: d.WorkHeight, Period: d.Period}
	return localsig.Compare(g, localsig.NewProbe(l, a)), true
}

func TestGenuineCopies(t *testing.T) {
	attacks := []struct {
		name string
		f    func(testing.TB, image.Image) image.Image
		want []localsig.Outcome
	}{
		{"unchanged", func(_ testing.TB, m image.Image) image.Image { return m }, []localsig.Outcome{localsig.Same}},
		{"jpeg90", func(t testing.TB, m image.Image) image.Image { return reJPEG(t, m, 90) }, []localsig.Outcome{localsig.Same}},
		{"jpeg70", func(t testing.TB, m image.Image) image.Image { return reJPEG(t, m, 70) }, []localsig.Outcome{localsig.Same}},
		{"jpeg50", func(t testing.TB, m image.Image) image.Image { return reJPEG(t, m, 50) }, []localsig.Outcome{localsig.Same}},
		{"resize70%+jpeg80", func(t testing.TB, m image.Image) image.Image {
			b := m.Bounds()
			return reJPEG(t, resize(m, b.Dx()*7/10, b.Dy()*7/10), 80)
		}, []localsig.Outcome{localsig.Same}},
		{"brighter+contrast", func(t testing.TB, m image.Image) image.Image { return reJPEG(t, tone(m, 1.1, 8), 85) }, []localsig.Outcome{localsig.Same}},
		{"rotate1deg+crop90%", func(t testing.TB, m image.Image) image.Image {
			return reJPEG(t, crop(rotate(m, 1), 0.05, 0.05, 0.9, 0.9), 85)
		}, []localsig.Outcome{localsig.Crop}},
		{"crop80%centre", func(t testing.TB, m image.Image) image.Image { return crop(m, 0.1, 0.1, 0.8, 0.8) }, []localsig.Outcome{localsig.Crop}},
		// An aspect ratio changed: the decoder reports the working plane
		// with the long axis rescaled, so the blocks still line up.
		{"aspect1.15+jpeg85", func(t testing.TB, m image.Image) image.Image {
			b := m.Bounds()
			return reJPEG(t, resize(m, b.Dx()*115/100, b.Dy()), 85)
		}, []localsig.Outcome{localsig.Same}},
		{"aspect0.85", func(t testing.TB, m image.Image) image.Image {
			b := m.Bounds()
			return resize(m, b.Dx(), b.Dy()*85/100)
		}, []localsig.Outcome{localsig.Same}},
		{"crop70%corner+jpeg75", func(t testing.TB, m image.Image) image.Image { return reJPEG(t, crop(m, 0.3, 0.0, 0.7, 0.7), 75) }, []localsig.Outcome{localsig.Crop}},
	}
	for _, path := range devImages {
		m, g := signed(t, path, 0x0123456789abcdef)
		for _, a := range attacks {
			t.Run(filepath.Base(path)+"/"+a.name, func(t *testing.T) {
				r, ok := examine(t, g, a.f(t, m))
				if !ok {
					t.Skip("watermark not recovered (a watermark robustness question, not this package's)")
				}
				if r.Outcome != a.want[0] {
					t.Errorf("outcome %v (compared %d, changed %d, region %+v), want %v", r.Outcome, r.Compared, r.ChangedCount, r.Region, a.want[0])
				}
			})
		}
	}
}

func TestTransplantIsMismatch(t *testing.T) {
	const p = watermark.Payload(0x00000000deadbeef)
	grids := map[string]*localsig.Grid{}
	for _, path := range devImages {
		_, grids[path] = signed(t, path, p)
	}
	for _, victim := range devImages {
		for _, host := range devImages {
			if victim == host {
				continue
			}
			t.Run(filepath.Base(victim)+"<-"+filepath.Base(host), func(t *testing.T) {
				forged, err := watermark.Embed(load(t, host), p)
				if err != nil {
					t.Fatal(err)
				}
				r, ok := examine(t, grids[victim], reJPEG(t, forged, 85))
				if !ok {
					t.Fatal("transplanted watermark not recovered: the test would prove nothing")
				}
				if r.Outcome != localsig.Mismatch {
					t.Errorf("outcome %v (compared %d, changed %d, structured %d, foreign %d), want mismatch", r.Outcome, r.Compared, r.ChangedCount, r.Structured, r.Foreign)
				}
			})
		}
	}
}

// fillRect, blurRect and pasteRect are the local edits.
func fillRect(m image.Image, r image.Rectangle, c color.Color) image.Image {
	out := rgba(m)
	draw.Draw(out, r, &image.Uniform{c}, image.Point{}, draw.Src)
	return out
}

func blurRect(m image.Image, r image.Rectangle, rad int) image.Image {
	out := rgba(m)
	src := rgba(m)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			var s [3]int
			n := 0
			for dy := -rad; dy <= rad; dy += 2 {
				for dx := -rad; dx <= rad; dx += 2 {
					p := src.RGBAAt(min(max(x+dx, 0), src.Bounds().Dx()-1), min(max(y+dy, 0), src.Bounds().Dy()-1))
					s[0], s[1], s[2], n = s[0]+int(p.R), s[1]+int(p.G), s[2]+int(p.B), n+1
				}
			}
			out.SetRGBA(x, y, color.RGBA{uint8(s[0] / n), uint8(s[1] / n), uint8(s[2] / n), 255})
		}
	}
	return out
}

func pasteRect(m, from image.Image, r image.Rectangle) image.Image {
	out := rgba(m)
	draw.Draw(out, r, from, from.Bounds().Min, draw.Src)
	return out
}

func TestLocalEditsAreFlagged(t *testing.T) {
	other := load(t, "../testdata/images/other.jpg")
	for _, path := range devImages[:1] {
		m, g := signed(t, path, 0x42)
		b := m.Bounds()
		W, H := b.Dx(), b.Dy()
		edits := []struct {
			name string
			img  image.Image
			area image.Rectangle
		}{
			{"caption bar", func() image.Image {
				c := fillRect(m, image.Rect(0, H*85/100, W, H), color.Black)
				// "text": white strokes on the bar
				for x := W / 20; x < W*19/20; x += W / 40 {
					c = fillRect(c, image.Rect(x, H*88/100, x+W/120, H*97/100), color.White)
				}
				return c
			}(), image.Rect(0, H*85/100, W, H)},
			{"pasted object", pasteRect(m, other, image.Rect(W/3, H/3, W/3+W/4, H/3+H/4)), image.Rect(W/3, H/3, W/3+W/4, H/3+H/4)},
			{"blurred region", blurRect(m, image.Rect(W/2, H/5, W/2+W/4, H/5+H/3), max(W/60, 4)), image.Rect(W/2, H/5, W/2+W/4, H/5+H/3)},
		}
		for _, e := range edits {
			t.Run(filepath.Base(path)+"/"+e.name, func(t *testing.T) {
				r, ok := examine(t, g, reJPEG(t, e.img, 85))
				if !ok {
					t.Skip("watermark not recovered after the edit")
				}
				if r.Outcome != localsig.Edited {
					t.Fatalf("outcome %v (compared %d, changed %d), want edited", r.Outcome, r.Compared, r.ChangedCount)
				}
				// Every changed block must touch the edited area (no false
				// flags elsewhere).
				for i, c := range r.Changed {
					if !c {
						continue
					}
					col, row := i%g.Cols, i/g.Cols
					bx0, by0 := col*W/g.Cols, row*H/g.Rows
					bx1, by1 := (col+1)*W/g.Cols, (row+1)*H/g.Rows
					if !image.Rect(bx0, by0, bx1, by1).Overlaps(e.area) {
						t.Errorf("block %d (%d,%d) flagged outside the edit %v", i, col, row, e.area)
					}
				}
			})
		}
	}
}

// tone applies v' = gain·v + off to every channel.
func tone(m image.Image, gain, off float64) image.Image {
	out := rgba(m)
	for i := range out.Pix {
		if i%4 != 3 {
			out.Pix[i] = uint8(min(max(gain*float64(out.Pix[i])+off, 0), 255))
		}
	}
	return out
}

// rotate turns m by deg degrees about its centre (bilinear, same size).
func rotate(m image.Image, deg float64) image.Image {
	src := rgba(m)
	w, h := src.Bounds().Dx(), src.Bounds().Dy()
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	s, c := math.Sincos(deg * math.Pi / 180)
	cx, cy := float64(w)/2, float64(h)/2
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			dx, dy := float64(x)+0.5-cx, float64(y)+0.5-cy
			sx, sy := c*dx-s*dy+cx-0.5, s*dx+c*dy+cy-0.5
			x0, y0 := int(math.Floor(sx)), int(math.Floor(sy))
			fx, fy := sx-float64(x0), sy-float64(y0)
			var px [4]float64
			for k := 0; k < 4; k++ {
				at := func(xx, yy int) float64 {
					xx, yy = min(max(xx, 0), w-1), min(max(yy, 0), h-1)
					return float64(src.Pix[yy*src.Stride+xx*4+k])
				}
				a := at(x0, y0) + fx*(at(x0+1, y0)-at(x0, y0))
				b := at(x0, y0+1) + fx*(at(x0+1, y0+1)-at(x0, y0+1))
				px[k] = a + fy*(b-a)
			}
			i := y*out.Stride + x*4
			out.Pix[i], out.Pix[i+1], out.Pix[i+2], out.Pix[i+3] = uint8(px[0]+0.5), uint8(px[1]+0.5), uint8(px[2]+0.5), 255
		}
	}
	return out
}

// surround puts m at (ox, oy) on a w×h canvas of colour bg and, when lh
// is not zero, writes dark glyph-like strokes lh pixels high on the canvas
// outside the picture (a caption, a page's interface).
func surround(m image.Image, w, h, ox, oy int, bg color.Color, lh int) image.Image {
	b := m.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(out, out.Bounds(), &image.Uniform{bg}, image.Point{}, draw.Src)
	draw.Draw(out, image.Rect(ox, oy, ox+b.Dx(), oy+b.Dy()), m, b.Min, draw.Src)
	if lh == 0 {
		return out
	}
	pic := image.Rect(ox, oy, ox+b.Dx(), oy+b.Dy())
	for y := lh / 4; y+lh <= h; y += lh * 3 / 2 {
		for x := w / 30; x+lh/3 <= w*29/30; x += lh * 2 / 3 {
			r := image.Rect(x, y, x+max(lh/4, 2), y+lh)
			if !r.Overlaps(pic) {
				draw.Draw(out, r, &image.Uniform{color.Black}, image.Point{}, draw.Src)
			}
		}
	}
	return out
}

// TestAddedSurroundingsAreContained: the signed picture inside a larger
// file with added content (a caption bar above, a border with text) is
// Contained, never Same or Crop, with its place in the file; uniform
// padding stays a plain copy; none of these is ever a Mismatch.
func TestAddedSurroundingsAreContained(t *testing.T) {
	for _, path := range devImages[:4] {
		m, g := signed(t, path, 0x0123456789abcdef)
		b := m.Bounds()
		W, H := b.Dx(), b.Dy()
		bar, pad := H*6/100, min(W, H)/10
		cases := []struct {
			name   string
			img    image.Image
			want   localsig.Outcome
			within localsig.Region // expected place, fractions of the file
		}{
			{"caption bar above", surround(m, W, H+bar, 0, bar, color.White, bar*2/3), localsig.Contained,
				localsig.Region{X: 0, Y: float64(bar) / float64(H+bar), W: 1, H: float64(H) / float64(H+bar)}},
			{"border with text", surround(m, W+2*pad, H+2*pad, pad, pad, color.RGBA{240, 240, 240, 255}, pad/3), localsig.Contained,
				localsig.Region{X: float64(pad) / float64(W+2*pad), Y: float64(pad) / float64(H+2*pad), W: float64(W) / float64(W+2*pad), H: float64(H) / float64(H+2*pad)}},
			{"uniform padding", surround(m, W+2*pad, H+2*pad, pad, pad, color.White, 0), localsig.Same, localsig.Region{}},
		}
		for _, c := range cases {
			t.Run(filepath.Base(path)+"/"+c.name, func(t *testing.T) {
				r, ok := examine(t, g, reJPEG(t, c.img, 90))
				if !ok {
					t.Skip("watermark not recovered (a watermark robustness question, not this package's)")
				}
				if r.Outcome != c.want {
					t.Fatalf("outcome %v (compared %d, changed %d, structured %d, foreign %d, surround %.3f, region %+v), want %v",
						r.Outcome, r.Compared, r.ChangedCount, r.Structured, r.Foreign, r.Surround, r.Region, c.want)
				}
				if c.want != localsig.Contained {
					return
				}
				for _, d := range []float64{r.Within.X - c.within.X, r.Within.Y - c.within.Y, r.Within.W - c.within.W, r.Within.H - c.within.H} {
					if math.Abs(d) > 0.02 {
						t.Errorf("within %+v, want %+v (±0.02)", r.Within, c.within)
						break
					}
				}
				if want := 1 - c.within.W*c.within.H; math.Abs(r.Surround-want) > 0.03 {
					t.Errorf("surround %.3f, want %.3f", r.Surround, want)
				}
			})
		}
	}
}

// localTone is an "HDR"-style local tone map: each pixel pushed away from
// the luminance's wide local mean (box of radius r, three passes) by k,
// and shadows lifted.
func localTone(m image.Image, k float64) image.Image {
	src := rgba(m)
	w, h := src.Bounds().Dx(), src.Bounds().Dy()
	lum := make([]float64, w*h)
	for i := range lum {
		p := src.Pix[4*i:]
		lum[i] = 0.299*float64(p[0]) + 0.587*float64(p[1]) + 0.114*float64(p[2])
	}
	r := max(min(w, h)/20, 1)
	tmp := make([]float64, w*h)
	for pass := 0; pass < 3; pass++ {
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				var s float64
				for i := max(x-r, 0); i <= min(x+r, w-1); i++ {
					s += lum[y*w+i]
				}
				tmp[y*w+x] = s / float64(min(x+r, w-1)-max(x-r, 0)+1)
			}
		}
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				var s float64
				for j := max(y-r, 0); j <= min(y+r, h-1); j++ {
					s += tmp[j*w+x]
				}
				lum[y*w+x] = s / float64(min(y+r, h-1)-max(y-r, 0)+1)
			}
		}
	}
	out := image.NewRGBA(src.Bounds())
	for i := range lum {
		for c := 0; c < 3; c++ {
			v := float64(src.Pix[4*i+c])
			out.Pix[4*i+c] = uint8(min(max(math.Round(v+k*(v-lum[i])+0.25*(128-lum[i])), 0), 255))
		}
		out.Pix[4*i+3] = 255
	}
	return out
}

// perChannel applies f to R, G and B.
func perChannel(m image.Image, f func(float64) float64) image.Image {
	out := rgba(m)
	for i := 0; i < len(out.Pix); i += 4 {
		for c := 0; c < 3; c++ {
			out.Pix[i+c] = uint8(min(max(math.Round(f(float64(out.Pix[i+c]))), 0), 255))
		}
	}
	return out
}

// TestGenuineCopiesAreNeverAccused: copies made the way phones and
// platforms make them (global tone curves, saturation, an HDR-style local
// tone map, harsh re-encodes) are never a Mismatch, the only outcome that says "another
// picture"; the tone changes read as the same picture.
func TestGenuineCopiesAreNeverAccused(t *testing.T) {
	copies := []struct {
		name string
		f    func(testing.TB, image.Image) image.Image
		same bool // must read as the same picture
	}{
		{"gamma0.75", func(t testing.TB, m image.Image) image.Image {
			return reJPEG(t, perChannel(m, func(v float64) float64 { return 255 * math.Pow(v/255, 0.75) }), 90)
		}, true},
		{"contrast1.25", func(t testing.TB, m image.Image) image.Image {
			return reJPEG(t, perChannel(m, func(v float64) float64 { return 128 + 1.25*(v-128) }), 90)
		}, true},
		{"hdr-local", func(t testing.TB, m image.Image) image.Image { return reJPEG(t, localTone(m, 0.3), 90) }, false},
		{"jpeg40", func(t testing.TB, m image.Image) image.Image { return reJPEG(t, m, 40) }, false},
	}
	for _, path := range devImages {
		m, g := signed(t, path, 0x0123456789abcdef)
		for _, c := range copies {
			t.Run(filepath.Base(path)+"/"+c.name, func(t *testing.T) {
				r, ok := examine(t, g, c.f(t, m))
				if !ok {
					t.Skip("watermark not recovered (a watermark robustness question, not this package's)")
				}
				if r.Outcome == localsig.Mismatch || (c.same && r.Outcome != localsig.Same) {
					t.Errorf("outcome %v (compared %d, changed %d, structured %d, foreign %d)", r.Outcome, r.Compared, r.ChangedCount, r.Structured, r.Foreign)
				}
			})
		}
	}
}

// signedColour is signed with a colour grid.
func signedColour(t testing.TB, path string, p watermark.Payload) (image.Image, *localsig.Grid) {
	t.Helper()
	m, err := watermark.Embed(load(t, path), p)
	if err != nil {
		t.Fatal(err)
	}
	cb, cr := imagex.Chroma(m)
	return m, localsig.ComputeColour(imagex.ToLuma(m), cb, cr)
}

// examineColour is examine with the examined picture's chroma in the
// probe, as facts gives it.
func examineColour(t testing.TB, g *localsig.Grid, m image.Image) (localsig.Result, bool) {
	t.Helper()
	l := imagex.ToLuma(m)
	_, d, err := watermark.Extract(l)
	if err != nil || !d.Found {
		return localsig.Result{}, false
	}
	a := localsig.Alignment{Scale: d.Scale, Angle: d.Angle, OffsetX: d.OffsetX, OffsetY: d.OffsetY,
		WorkWidth: d.WorkWidth, WorkHeight: d.WorkHeight, Period: d.Period}
	return localsig.Compare(g, localsig.NewProbe(l, a).WithChroma(imagex.Chroma(m))), true
}

// recolourRect turns the hue of r around (180°) keeping each pixel's
// luminance, giving a nearly grey area a colour of its own.
func recolourRect(m image.Image, r image.Rectangle) image.Image {
	out := rgba(m)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			p := out.Pix[y*out.Stride+4*x:]
			R, G, B := float64(p[0]), float64(p[1]), float64(p[2])
			Y := 0.299*R + 0.587*G + 0.114*B
			cb, cr := -(-0.168736*R - 0.331264*G + 0.5*B), -(0.5*R - 0.418688*G - 0.081312*B)
			if math.Hypot(cb, cr) < 24 {
				cb, cr = cb+18, cr-18
			}
			c := func(v float64) uint8 { return uint8(min(max(math.Round(v), 0), 255)) }
			p[0], p[1], p[2] = c(Y+1.402*cr), c(Y-0.344136*cb-0.714136*cr), c(Y+1.772*cb)
		}
	}
	return out
}

// TestColourGrid: a colour grid keeps genuine copies the same picture
// (re-encodes, a resize, saturation and contrast changes) and sees an
// isoluminant recolour of 2 % of the picture that a luminance grid does
// not, naming only blocks that touch it.
func TestColourGrid(t *testing.T) {
	for _, path := range devImages {
		m, g := signedColour(t, path, 0x0123456789abcdef)
		_, g1 := signed(t, path, 0x0123456789abcdef)
		b := m.Bounds()
		W, H := b.Dx(), b.Dy()
		genuine := []struct {
			name string
			img  image.Image
		}{
			{"jpeg70", reJPEG(t, m, 70)},
			{"resize90%+jpeg80", reJPEG(t, resize(m, W*9/10, H*9/10), 80)},
			{"contrast1.2", reJPEG(t, perChannel(m, func(v float64) float64 { return 128 + 1.2*(v-128) }), 90)},
		}
		for _, c := range genuine {
			t.Run(filepath.Base(path)+"/"+c.name, func(t *testing.T) {
				r, ok := examineColour(t, g, c.img)
				if !ok {
					t.Skip("watermark not recovered")
				}
				if !r.Colour || r.Outcome != localsig.Same {
					t.Errorf("colour %v outcome %v (changed %d, why %+v), want same with colour compared", r.Colour, r.Outcome, r.ChangedCount, r.Why)
				}
			})
		}
		t.Run(filepath.Base(path)+"/recolour 2%", func(t *testing.T) {
			side := int(math.Sqrt(0.02 * float64(W*H)))
			rect := image.Rect(W/3, H/3, W/3+side, H/3+side)
			edited := reJPEG(t, recolourRect(m, rect), 90)
			r, ok := examineColour(t, g, edited)
			if !ok {
				t.Skip("watermark not recovered")
			}
			if r.Outcome != localsig.Edited || r.Why.Chroma == 0 {
				t.Fatalf("outcome %v (changed %d, why %+v), want edited by chroma", r.Outcome, r.ChangedCount, r.Why)
			}
			for i, c := range r.Changed {
				if !c {
					continue
				}
				col, row := i%g.Cols, i/g.Cols
				bx0, by0 := float64(col)/float64(g.Cols)*float64(W), float64(row)/float64(g.Rows)*float64(H)
				bx1, by1 := float64(col+1)/float64(g.Cols)*float64(W), float64(row+1)/float64(g.Rows)*float64(H)
				if bx1 < float64(rect.Min.X) || bx0 > float64(rect.Max.X) || by1 < float64(rect.Min.Y) || by0 > float64(rect.Max.Y) {
					t.Errorf("block %d (%d, %d) flagged away from the recoloured area", i, col, row)
				}
			}
			if r1, ok := examine(t, g1, edited); ok && r1.Outcome == localsig.Edited && r1.Why.Chroma != 0 {
				t.Errorf("a luminance grid reported chroma")
			}
		})
	}
}

// transpose turns a landscape picture into a portrait one.
func transpose(m image.Image) image.Image {
	b := m.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dy(), b.Dx()))
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			out.Set(y, x, m.At(b.Min.X+x, b.Min.Y+y))
		}
	}
	return out
}

// TestTransplantOtherOrientation: the victim's payload embedded into a
// portrait photo, which fits neither inside nor around the landscape
// signed picture, is still a Mismatch on the evidence of its overlap.
func TestTransplantOtherOrientation(t *testing.T) {
	const p = watermark.Payload(0x00000000deadbeef)
	for _, victim := range devImages[:3] {
		_, g := signedColour(t, victim, p)
		for _, host := range devImages[3:] {
			t.Run(filepath.Base(victim)+"<-"+filepath.Base(host)+"-portrait", func(t *testing.T) {
				forged, err := watermark.Embed(transpose(load(t, host)), p)
				if err != nil {
					t.Fatal(err)
				}
				r, ok := examineColour(t, g, reJPEG(t, forged, 85))
				if !ok {
					t.Fatal("transplanted watermark not recovered: the test would prove nothing")
				}
				if r.Outcome != localsig.Mismatch {
					t.Errorf("outcome %v (compared %d, changed %d, structured %d, foreign %d), want mismatch", r.Outcome, r.Compared, r.ChangedCount, r.Structured, r.Foreign)
				}
			})
		}
	}
}

// TestColourGridLargest: the largest colour grids (1:2 and panoramas)
// encode, parse back and fit in a record.
func TestColourGridLargest(t *testing.T) {
	for _, sz := range [][2]int{{720, 1440}, {1440, 720}, {4000, 1000}, {256, 256}} {
		l := &imagex.Luma{Width: sz[0], Height: sz[1], Stride: sz[0], Pix: make([]uint8, sz[0]*sz[1])}
		cb := &imagex.Luma{Width: sz[0] / 8, Height: sz[1] / 8, Stride: sz[0] / 8, Pix: make([]uint8, sz[0]*sz[1]/64)}
		g := localsig.ComputeColour(l, cb, cb)
		b, err := g.Encode()
		if err != nil {
			t.Fatalf("%v: %v", sz, err)
		}
		if len(b) > localsig.MaxEncoded {
			t.Errorf("%v: %d bytes > MaxEncoded %d", sz, len(b), localsig.MaxEncoded)
		}
		if _, err := localsig.Parse(b); err != nil {
			t.Errorf("%v: %d×%d blocks, %d bytes: %v", sz, g.Cols, g.Rows, len(b), err)
		}
	}
}

// TestColourGridPaddedAndContained: with a colour grid, whose blocks are
// small, a picture padded to a square stays a plain copy and one placed in
// a larger file with text around it is Contained. The signed picture then
// covers only part of the examined one; the probe grows with it (a probe
// of ProbeShort made every padded landscape photo an edit).
func TestColourGridPaddedAndContained(t *testing.T) {
	for _, path := range devImages {
		m, g := signedColour(t, path, 0x0123456789abcdef)
		b := m.Bounds()
		W, H := b.Dx(), b.Dy()
		S := max(W, H)
		cases := []struct {
			name string
			img  image.Image
			want localsig.Outcome
		}{
			{"pad to square", surround(m, S, S, (S-W)/2, (S-H)/2, color.White, 0), localsig.Same},
			{"page around it", surround(m, W+W/5, H+H/4, W/10, H/6, color.RGBA{250, 250, 250, 255}, H/20), localsig.Contained},
		}
		for _, c := range cases {
			t.Run(filepath.Base(path)+"/"+c.name, func(t *testing.T) {
				r, ok := examineColour(t, g, reJPEG(t, c.img, 90))
				if !ok {
					t.Skip("watermark not recovered (a watermark robustness question, not this package's)")
				}
				if !r.Colour || r.Outcome != c.want {
					t.Errorf("colour %v outcome %v (compared %d, changed %d, why %+v), want %v", r.Colour, r.Outcome, r.Compared, r.ChangedCount, r.Why, c.want)
				}
			})
		}
	}
}

// TestProbeSide: the probe keeps ProbeShort when the signed picture fills
// the examined one, grows by the inverse of the alignment's scale when it
// does not, and is bounded by ProbeMaxShort and by the picture itself.
func TestProbeSide(t *testing.T) {
	for _, c := range []struct {
		short int
		scale float64
		want  int
	}{
		{1000, 1, localsig.ProbeShort},
		{1000, 2.5, localsig.ProbeShort},
		{1000, 0.5, 2 * localsig.ProbeShort},
		{1000, 0.05, localsig.ProbeMaxShort},
		{200, 0.5, 200},
		{100, 0.5, localsig.ProbeShort},
	} {
		if got := localsig.ProbeSide(c.short, localsig.Alignment{Scale: c.scale}); got != c.want {
			t.Errorf("ProbeSide(%d, scale %v) = %d, want %d", c.short, c.scale, got, c.want)
		}
	}
}

// TestColourGridSmallGroups: with a colour grid, global tone changes
// (an HDR-style local tone map, a gamma curve, a contrast change, a
// saturation boost) read as
// the same picture, the few blocks the fit explains least being no
// evidence of an edit; yet a foreign patch of one block, far from its
// prediction, is still an edit.
func TestColourGridSmallGroups(t *testing.T) {
	other := load(t, "../testdata/images/other.jpg")
	for _, path := range devImages {
		m, g := signedColour(t, path, 0x0123456789abcdef)
		b := m.Bounds()
		W, H := b.Dx(), b.Dy()
		for _, c := range []struct {
			name string
			img  image.Image
		}{
			{"hdr-local", localTone(m, 0.3)},
			{"gamma0.8", perChannel(m, func(v float64) float64 { return 255 * math.Pow(v/255, 0.8) })},
			{"contrast1.2", perChannel(m, func(v float64) float64 { return 128 + 1.2*(v-128) })},
			{"saturation1.8", saturate(m, 1.8)},
		} {
			t.Run(filepath.Base(path)+"/"+c.name, func(t *testing.T) {
				r, ok := examineColour(t, g, reJPEG(t, c.img, 90))
				if !ok {
					t.Skip("watermark not recovered")
				}
				if r.Outcome != localsig.Same {
					t.Errorf("outcome %v (changed %d, lone %d, why %+v), want same", r.Outcome, r.ChangedCount, r.Lone, r.Why)
				}
			})
		}
		t.Run(filepath.Base(path)+"/patch of one block", func(t *testing.T) {
			c, row := g.Cols*2/3, g.Rows/2
			rect := image.Rect(c*W/g.Cols, row*H/g.Rows, (c+1)*W/g.Cols, (row+1)*H/g.Rows)
			flat := fillRect(other, other.Bounds(), color.RGBA{250, 30, 200, 255})
			r, ok := examineColour(t, g, reJPEG(t, pasteRect(m, flat, rect), 90))
			if !ok {
				t.Skip("watermark not recovered")
			}
			if r.Outcome != localsig.Edited {
				t.Errorf("outcome %v (changed %d, lone %d, why %+v), want edited", r.Outcome, r.ChangedCount, r.Lone, r.Why)
			}
		})
	}
}

// saturate pushes each pixel's channels away from its luminance by k.
func saturate(m image.Image, k float64) image.Image {
	out := rgba(m)
	for i := 0; i < len(out.Pix); i += 4 {
		p := out.Pix[i:]
		y := 0.299*float64(p[0]) + 0.587*float64(p[1]) + 0.114*float64(p[2])
		for c := 0; c < 3; c++ {
			p[c] = uint8(min(max(math.Round(y+k*(float64(p[c])-y)), 0), 255))
		}
	}
	return out
}

// TestContainedAtScreenshotScales: placed as a desktop page shows it (the
// signed picture 0.25 to 0.6 of the page's short side, text around it,
// saved as PNG) and given the alignment of that placement, a colour grid
// registers and the answer is Contained with the picture's place. The
// alignment is computed from the known geometry: whether the watermark
// decoder finds it at these scales is the watermark's question.
func TestContainedAtScreenshotScales(t *testing.T) {
	for _, path := range devImages[:3] {
		m, g := signedColour(t, path, 0x0123456789abcdef)
		b := m.Bounds()
		w, h := b.Dx()*9/10, b.Dy()*9/10
		shown := resize(m, w, h)
		for _, s := range []float64{0.25, 0.4, 0.6} {
			t.Run(fmt.Sprintf("%s/%.2f", filepath.Base(path), s), func(t *testing.T) {
				ph := int(math.Round(float64(min(w, h)) / s))
				pw := ph * 16 / 9
				if pw < w+40 {
					pw = w + 40
				}
				ox, oy := pw/5, (ph-h)/2
				page := surround(shown, pw, ph, ox, oy, color.RGBA{248, 248, 248, 255}, max(ph/40, 8))
				var buf bytes.Buffer
				if err := png.Encode(&buf, page); err != nil {
					t.Fatal(err)
				}
				e, err := png.Decode(&buf)
				if err != nil {
					t.Fatal(err)
				}
				// A page pixel P shows picture pixel (P − o)/f; working
				// planes scale pixels by ke (page) and ks (picture).
				f := float64(w) / float64(b.Dx())
				ke := float64(localsig.WorkShort) / float64(min(pw, ph))
				ks := float64(localsig.WorkShort) / float64(min(b.Dx(), b.Dy()))
				ww, wh := localsig.WorkDims(pw, ph)
				a := localsig.Alignment{Scale: f * ke / ks, OffsetX: -ks * float64(ox) / f, OffsetY: -ks * float64(oy) / f, WorkWidth: ww, WorkHeight: wh}
				l := imagex.ToLuma(e)
				r := localsig.Compare(g, localsig.NewProbe(l, a).WithChroma(imagex.Chroma(e)))
				if r.Outcome != localsig.Contained || !r.Colour {
					t.Fatalf("outcome %v colour %v (compared %d, changed %d, lone %d, why %+v), want contained", r.Outcome, r.Colour, r.Compared, r.ChangedCount, r.Lone, r.Why)
				}
				want := localsig.Region{X: float64(ox) / float64(pw), Y: float64(oy) / float64(ph), W: float64(w) / float64(pw), H: float64(h) / float64(ph)}
				for _, d := range []float64{r.Within.X - want.X, r.Within.Y - want.Y, r.Within.W - want.W, r.Within.H - want.H} {
					if math.Abs(d) > 0.02 {
						t.Errorf("within %+v, want %+v (±0.02)", r.Within, want)
						break
					}
				}
			})
		}
	}
}
