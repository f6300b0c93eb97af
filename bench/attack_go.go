package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/image/draw"
	"golang.org/x/image/webp"
)

// attack transforms a marked image the way a platform or a user would.
type attack struct {
	name string
	// group is the target class the attack is reported under.
	group string
	fn    func(img image.Image, tmp string) (image.Image, error)
}

// attacksNamed returns the attacks named in the comma-separated list, in
// the list's order; an empty list names them all. A name the table does not
// have is an error, so a typo cannot shrink a run unnoticed.
func attacksNamed(list string) ([]attack, error) {
	return pickAttacks(attacks(), list)
}

// pickAttacks returns the attacks of from named in the comma-separated
// list, in the list's order; an empty list returns from.
func pickAttacks(from []attack, list string) ([]attack, error) {
	if list == "" {
		return from, nil
	}
	var out []attack
	for _, name := range strings.Split(list, ",") {
		i := slices.IndexFunc(from, func(a attack) bool { return a.name == name })
		if i < 0 {
			return nil, fmt.Errorf("unknown attack %q", name)
		}
		out = append(out, from[i])
	}
	return out, nil
}

func attacks() []attack {
	list := []attack{
		{"none", "png", func(m image.Image, _ string) (image.Image, error) { return m, nil }},
		{"png-resave", "png", pngResave},
		{"jpeg50", "jpeg", jpegQ(50)},
		{"jpeg70", "jpeg", jpegQ(70)},
		{"jpeg90", "jpeg", jpegQ(90)},
		{"webp80", "webp", cwebp(80)},
		{"resize0.5", "resize", resizeBy(0.5)},
		{"resize0.75", "resize", resizeBy(0.75)},
		{"resize1.5", "resize", resizeBy(1.5)},
		{"long1080", "resize", longSide(1080)},
		{"social1080q70", "social", chain(longSide(1080), jpegQ(70))},
		{"crop90", "crop", cropFrac(0.05, 0.05, 0.90, 0.90)},
		{"crop75", "crop75", cropFrac(0.125, 0.125, 0.75, 0.75)},
		{"crop-offcenter", "crop", cropFrac(0.17, 0.03, 0.80, 0.80)},
		{"bright+20", "colour", perPixel(func(v float64) float64 { return v * 1.2 })},
		{"bright-20", "colour", perPixel(func(v float64) float64 { return v * 0.8 })},
		{"contrast1.3", "colour", perPixel(func(v float64) float64 { return 128 + 1.3*(v-128) })},
		{"gamma0.8", "colour", perPixel(func(v float64) float64 { return 255 * math.Pow(v/255, 0.8) })},
		{"grayscale", "colour", grayscale},
		{"blur1", "filter", blur},
		{"noise4", "filter", noise(4)},
		{"rotate1", "rotate", rotateCrop(1)},
		{"rotate2", "rotate", rotateCrop(2)},
		{"im-resize50-q75", "imagemagick", magick("-resize", "50%", "-quality", "75")},
		{"im-1080-q70-strip", "imagemagick", magick("-resize", "1080x1080>", "-strip", "-quality", "70")},
		{"djpeg-cjpeg-q60", "libjpeg", libjpeg(60)},
		// The edits that move the picture inside its frame, and the
		// harsher re-encodes and filters of apps and platforms.
		{"mirror", "dihedral", dihedral(true, 0)},
		{"rot90", "dihedral", dihedral(false, 1)},
		{"rot180", "dihedral", dihedral(false, 2)},
		{"rot270", "dihedral", dihedral(false, 3)},
		{"pad-square", "frame", padSquare},
		{"border5", "frame", border(0.05, color.RGBA{255, 255, 255, 255})},
		{"screenshot0.8", "frame", screenshot(0.8)},
		{"screenshot0.5", "frame", screenshot(0.5)},
		// A caption band with a line of text above the picture, as apps
		// and news sites add one.
		{"caption6-q90", "frame", chain(captionAbove(0.06), jpegQ(90))},
		// A taller band, whose flat rows beyond the text give a frame
		// that takes the text in.
		{"caption20-q90", "frame", chain(captionAbove(0.20), jpegQ(90))},
		{"rotate5", "rotate", rotateCrop(5)},
		{"rotate-5", "rotate", rotateCrop(-5)},
		{"crop50", "crop50", cropFrac(0.25, 0.25, 0.5, 0.5)},
		{"crop50-offcenter", "crop50", cropFrac(0.45, 0.08, 0.5, 0.5)},
		{"aspect1.15", "aspect", aspect(1.15)},
		{"aspect0.9", "aspect", aspect(0.9)},
		{"aspect1.2", "aspect", aspect(1.2)},
		{"aspect0.8", "aspect", aspect(0.8)},
		{"overlay15", "overlay", captionBar(0.15)},
		{"social2x", "social", chain(longSide(1080), jpegQ(70), longSide(720), jpegQ(60))},
		{"jpeg30", "jpeg", jpegQ(30)},
		{"saturation1.5", "colour", saturate(1.5)},
		{"sharpen1", "filter", sharpen(1)},
		// Edits combined: a flip or a quarter turn with a small crop (the
		// crop moves the tile grid and the scale together), a rotation that
		// keeps the canvas with black corners, and phone screenshots.
		{"mirror-crop98", "combined", chain(dihedral(true, 0), cropFrac(0.02, 0.02, 0.98, 0.98))},
		{"rot90-crop98", "combined", chain(dihedral(false, 1), cropFrac(0.02, 0.02, 0.98, 0.98))},
		{"rot270-crop90", "combined", chain(dihedral(false, 3), cropFrac(0.03, 0.07, 0.90, 0.90))},
		{"rotate3-canvas", "combined", rotateKeep(3)},
		{"rotate-5-canvas", "combined", rotateKeep(-5)},
		{"rotate8-canvas", "combined", rotateKeep(8)},
		{"rotate-10", "rotate", rotateCrop(-10)},
		{"crop40", "crop50", cropFrac(0.3, 0.3, 0.4, 0.4)},
		{"crop40-offcenter", "crop50", cropFrac(0.05, 0.5, 0.4, 0.4)},
		{"phone0.3", "phone", phoneShot(0.3)},
		{"phone0.2", "phone", phoneShot(0.2)},
		{"phone0.25", "phone", phoneShot(0.25)},
		{"phone0.35", "phone", phoneShot(0.35)},
		// A photo shown in a desktop browser page, saved as PNG.
		{"desktop0.2", "desktop", browserShot(0.2)},
		{"desktop0.4", "desktop", browserShot(0.4)},
		{"desktop0.6", "desktop", browserShot(0.6)},
		// A print photographed from below its centre (keystone), then
		// saved as JPEG.
		{"keystone3", "print", chain(keystone(0.03), jpegQ(85))},
		{"keystone6", "print", chain(keystone(0.06), jpegQ(85))},
		// Harsher re-encodes: JPEG 20, and three successive re-shares (the
		// last one enlarges back to a 1080 long side).
		{"jpeg20", "jpeg", jpegQ(20)},
		{"social3x", "social", chain(longSide(1080), jpegQ(70), longSide(720), jpegQ(60), toLongSide(1080), jpegQ(75))},
	}
	return append(append(list, toneAttacks()...), perspectiveAttacks()...)
}

func chain(fs ...func(image.Image, string) (image.Image, error)) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, tmp string) (image.Image, error) {
		var err error
		for _, f := range fs {
			if m, err = f(m, tmp); err != nil {
				return nil, err
			}
		}
		return m, nil
	}
}

func jpegQ(q int) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, _ string) (image.Image, error) {
		var b bytes.Buffer
		if err := jpeg.Encode(&b, m, &jpeg.Options{Quality: q}); err != nil {
			return nil, err
		}
		return jpeg.Decode(&b)
	}
}

// pngResave renders to 8-bit RGB (as a screenshot would) and re-encodes PNG.
func pngResave(m image.Image, _ string) (image.Image, error) {
	rgba := toRGBA(m)
	var b bytes.Buffer
	if err := png.Encode(&b, rgba); err != nil {
		return nil, err
	}
	return png.Decode(&b)
}

func toRGBA(m image.Image) *image.RGBA {
	b := m.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Bounds(), m, b.Min, draw.Src)
	for i := 3; i < len(out.Pix); i += 4 {
		out.Pix[i] = 255
	}
	return out
}

func writePNG(path string, m image.Image) error {
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&b, m); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func cwebp(q int) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, tmp string) (image.Image, error) {
		in, out := filepath.Join(tmp, "in.png"), filepath.Join(tmp, "out.webp")
		if err := writePNG(in, m); err != nil {
			return nil, err
		}
		if o, err := exec.Command("cwebp", "-quiet", "-q", fmt.Sprint(q), in, "-o", out).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("cwebp: %w: %s", err, o)
		}
		f, err := os.Open(out)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return webp.Decode(f)
	}
}

func magick(args ...string) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, tmp string) (image.Image, error) {
		in, out := filepath.Join(tmp, "in.png"), filepath.Join(tmp, "out.jpg")
		if err := writePNG(in, m); err != nil {
			return nil, err
		}
		a := append([]string{in}, args...)
		a = append(a, out)
		if o, err := exec.Command("convert", a...).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("convert: %w: %s", err, o)
		}
		return decodeFile(out)
	}
}

// libjpeg re-encodes with libjpeg-turbo: cjpeg from a PPM of the image.
func libjpeg(q int) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, tmp string) (image.Image, error) {
		in, out := filepath.Join(tmp, "in.png"), filepath.Join(tmp, "out.jpg")
		if err := writePNG(in, m); err != nil {
			return nil, err
		}
		ppm := filepath.Join(tmp, "in.ppm")
		if o, err := exec.Command("convert", in, ppm).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("convert: %w: %s", err, o)
		}
		if o, err := exec.Command("cjpeg", "-quality", fmt.Sprint(q), "-outfile", out, ppm).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("cjpeg: %w: %s", err, o)
		}
		return decodeFile(out)
	}
}

func resizeTo(m image.Image, w, h int) image.Image {
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(out, out.Bounds(), m, m.Bounds(), draw.Src, nil)
	return out
}

func resizeBy(f float64) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, _ string) (image.Image, error) {
		b := m.Bounds()
		return resizeTo(m, int(math.Round(float64(b.Dx())*f)), int(math.Round(float64(b.Dy())*f))), nil
	}
}

func longSide(n int) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, _ string) (image.Image, error) {
		b := m.Bounds()
		w, h := b.Dx(), b.Dy()
		f := float64(n) / float64(max(w, h))
		if f >= 1 {
			return m, nil
		}
		return resizeTo(m, int(math.Round(float64(w)*f)), int(math.Round(float64(h)*f))), nil
	}
}

// toLongSide rescales m so its long side is n, enlarging as well.
func toLongSide(n int) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, _ string) (image.Image, error) {
		b := m.Bounds()
		w, h := b.Dx(), b.Dy()
		f := float64(n) / float64(max(w, h))
		return resizeTo(m, int(math.Round(float64(w)*f)), int(math.Round(float64(h)*f))), nil
	}
}

type subImager interface {
	SubImage(r image.Rectangle) image.Image
}

func cropFrac(fx, fy, fw, fh float64) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, _ string) (image.Image, error) {
		b := m.Bounds()
		w, h := float64(b.Dx()), float64(b.Dy())
		r := image.Rect(int(fx*w), int(fy*h), int((fx+fw)*w), int((fy+fh)*h)).Add(b.Min)
		return m.(subImager).SubImage(r), nil
	}
}

func perPixel(f func(float64) float64) func(image.Image, string) (image.Image, error) {
	var lut [256]uint8
	for i := range lut {
		lut[i] = uint8(math.Max(0, math.Min(255, math.Round(f(float64(i))))))
	}
	return func(m image.Image, _ string) (image.Image, error) {
		out := toRGBA(m)
		for i := 0; i < len(out.Pix); i += 4 {
			out.Pix[i], out.Pix[i+1], out.Pix[i+2] = lut[out.Pix[i]], lut[out.Pix[i+1]], lut[out.Pix[i+2]]
		}
		return out, nil
	}
}

func grayscale(m image.Image, _ string) (image.Image, error) {
	b := m.Bounds()
	out := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Bounds(), m, b.Min, draw.Src)
	return out, nil
}

// blur is a Gaussian blur with sigma 1 px on R, G, B.
func blur(m image.Image, _ string) (image.Image, error) {
	src := toRGBA(m)
	k := []float64{0.0545, 0.2442, 0.4026, 0.2442, 0.0545}
	w, h := src.Bounds().Dx(), src.Bounds().Dy()
	tmp := make([]float64, len(src.Pix))
	out := image.NewRGBA(src.Bounds())
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			for c := 0; c < 3; c++ {
				var s float64
				for i, kv := range k {
					xx := min(max(x+i-2, 0), w-1)
					s += kv * float64(src.Pix[y*src.Stride+4*xx+c])
				}
				tmp[y*src.Stride+4*x+c] = s
			}
		}
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			for c := 0; c < 3; c++ {
				var s float64
				for i, kv := range k {
					yy := min(max(y+i-2, 0), h-1)
					s += kv * tmp[yy*src.Stride+4*x+c]
				}
				out.Pix[y*out.Stride+4*x+c] = uint8(math.Max(0, math.Min(255, math.Round(s))))
			}
			out.Pix[y*out.Stride+4*x+3] = 255
		}
	}
	return out, nil
}

// noise adds Gaussian noise of the given sigma to each channel (fixed seed).
func noise(sigma float64) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, _ string) (image.Image, error) {
		out := toRGBA(m)
		r := rand.New(rand.NewPCG(1, 2))
		for i := 0; i < len(out.Pix); i += 4 {
			for c := 0; c < 3; c++ {
				v := float64(out.Pix[i+c]) + r.NormFloat64()*sigma
				out.Pix[i+c] = uint8(math.Max(0, math.Min(255, math.Round(v))))
			}
		}
		return out, nil
	}
}

// rotateCrop rotates by deg degrees about the centre (bilinear) and crops
// the largest centred axis-aligned rectangle of the original aspect ratio
// that holds no corner fill.
func rotateCrop(deg float64) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, _ string) (image.Image, error) {
		src := toRGBA(m)
		w, h := float64(src.Bounds().Dx()), float64(src.Bounds().Dy())
		th := deg * math.Pi / 180
		c, s := math.Cos(th), math.Sin(th)
		// Largest rectangle with the same aspect inside the rotated one.
		k := 1 / (c + math.Abs(s)*math.Max(w/h, h/w))
		ow, oh := int(w*k), int(h*k)
		out := image.NewRGBA(image.Rect(0, 0, ow, oh))
		cx, cy := w/2, h/2
		for y := 0; y < oh; y++ {
			for x := 0; x < ow; x++ {
				dx, dy := float64(x)+0.5-float64(ow)/2, float64(y)+0.5-float64(oh)/2
				sx, sy := c*dx-s*dy+cx-0.5, s*dx+c*dy+cy-0.5
				x0, y0 := int(math.Floor(sx)), int(math.Floor(sy))
				fx, fy := sx-float64(x0), sy-float64(y0)
				x0, y0 = min(max(x0, 0), int(w)-2), min(max(y0, 0), int(h)-2)
				for ch := 0; ch < 3; ch++ {
					p := func(xx, yy int) float64 { return float64(src.Pix[yy*src.Stride+4*xx+ch]) }
					v := (1-fy)*((1-fx)*p(x0, y0)+fx*p(x0+1, y0)) + fy*((1-fx)*p(x0, y0+1)+fx*p(x0+1, y0+1))
					out.Pix[y*out.Stride+4*x+ch] = uint8(math.Round(v))
				}
				out.Pix[y*out.Stride+4*x+3] = 255
			}
		}
		return out, nil
	}
}
