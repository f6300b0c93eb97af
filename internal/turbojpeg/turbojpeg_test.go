//go:build turbo && cgo

package turbojpeg

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
)

// corpus is the JPEG corpus of the luminance decoder: every subsampling,
// progressive and restart-interval files, grey, RGB, CMYK and arithmetic
// coding (see its README).
const corpus = "../../shared/imagex/testdata/luma"

func corpusFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(corpus, "*.jpg"))
	if err != nil || len(files) < 20 {
		t.Fatalf("corpus %s: %d files, %v", corpus, len(files), err)
	}
	return files
}

// maxDiff returns the largest absolute difference between two planes of
// w×h samples.
func maxDiff(a []uint8, as int, b []uint8, bs, w, h int) int {
	d := 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			d = max(d, abs(int(a[y*as+x])-int(b[y*bs+x])))
		}
	}
	return d
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// TestDecodeMatchesImageJPEG decodes the corpus both ways: the same image
// type, subsampling and size, every sample within ±2 levels (two integer
// IDCTs), and the files TurboJPEG does not decode to planes equal to
// image/jpeg's result because they are image/jpeg's result.
func TestDecodeMatchesImageJPEG(t *testing.T) {
	lim := limits.Default()
	planes := 0
	for _, f := range corpusFiles(t) {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			std, stdErr := imagex.Decode(b, lim)
			got, err := imagex.DecodeWith(b, lim, Codec{})
			info, infoErr := imagex.DecodeConfig(b, lim)
			_, planeErr := decodePlanes(b, info)
			if stdErr != nil {
				// image/jpeg refuses progressive files with restart
				// intervals; TurboJPEG decodes them (checked against their
				// sequential transcodes below).
				if !strings.Contains(name, "prog") || !strings.Contains(name, "rst") || strings.Contains(name, "transcoded") {
					if err == nil || !errors.Is(err, imagex.ErrCorrupt) && !errors.Is(err, imagex.ErrUnsupportedFormat) {
						t.Fatalf("image/jpeg: %v; turbo: %v", stdErr, err)
					}
					return
				}
				if err != nil {
					t.Fatalf("turbo: %v", err)
				}
				ref, err := os.ReadFile(strings.TrimSuffix(f, ".jpg") + "-transcoded.jpg")
				if err != nil {
					t.Fatal(err)
				}
				if std, err = imagex.Decode(ref, lim); err != nil {
					t.Fatal(err)
				}
			} else if err != nil {
				t.Fatalf("turbo: %v (image/jpeg decodes it)", err)
			}
			if infoErr != nil {
				t.Fatal(infoErr)
			}
			if planeErr == nil {
				planes++
			}
			if got.Image.Bounds() != std.Image.Bounds() {
				t.Fatalf("bounds %v, image/jpeg %v", got.Image.Bounds(), std.Image.Bounds())
			}
			w, h := got.Image.Bounds().Dx(), got.Image.Bounds().Dy()
			switch s := std.Image.(type) {
			case *image.YCbCr:
				g, ok := got.Image.(*image.YCbCr)
				if !ok || g.SubsampleRatio != s.SubsampleRatio {
					t.Fatalf("turbo gives %T, image/jpeg %T %v", got.Image, s, s.SubsampleRatio)
				}
				if d := maxDiff(g.Y, g.YStride, s.Y, s.YStride, w, h); d > 2 {
					t.Errorf("luma differs by up to %d levels", d)
				}
				cw, ch := g.CStride, len(g.Cb)/g.CStride
				if d := max(maxDiff(g.Cb, g.CStride, s.Cb, s.CStride, cw, ch), maxDiff(g.Cr, g.CStride, s.Cr, s.CStride, cw, ch)); d > 2 {
					t.Errorf("chroma differs by up to %d levels", d)
				}
			case *image.Gray:
				g, ok := got.Image.(*image.Gray)
				if !ok {
					t.Fatalf("turbo gives %T, image/jpeg %T", got.Image, s)
				}
				if d := maxDiff(g.Pix, g.Stride, s.Pix, s.Stride, w, h); d > 2 {
					t.Errorf("grey differs by up to %d levels", d)
				}
			default:
				if planeErr == nil {
					t.Fatalf("image/jpeg gives %T but TurboJPEG decoded planes", s)
				}
				if !sameImage(got.Image, std.Image) {
					t.Errorf("fallback result differs from image/jpeg's")
				}
			}
		})
	}
	if planes < 20 {
		t.Errorf("only %d files decoded by TurboJPEG itself", planes)
	}
}

func sameImage(a, b image.Image) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if color.RGBAModel.Convert(a.At(x, y)) != color.RGBAModel.Convert(b.At(x, y)) {
				return false
			}
		}
	}
	return true
}

// TestDecodeFallsBack: what TurboJPEG cannot decode to planes, or decodes
// only with a warning, gets image/jpeg's answer.
func TestDecodeFallsBack(t *testing.T) {
	lim := limits.Default()
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(corpus, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	ok := read("mid-q50-420.jpg")
	tests := []struct {
		name string
		file []byte
	}{
		{"rgb", read("mid-rgb.jpg")},
		{"cmyk", read("mid-cmyk.jpg")},
		{"truncated", ok[:len(ok)*2/3]},
		{"corrupt entropy data", func() []byte {
			b := bytes.Clone(ok)
			for i := len(b) / 2; i < len(b)/2+40; i++ {
				b[i] = 0xFF
			}
			return b
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info, err := imagex.DecodeConfig(tt.file, lim)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := decodePlanes(tt.file, info); err == nil {
				t.Fatal("TurboJPEG decoded it to planes without a warning")
			}
			std, stdErr := imagex.Decode(tt.file, lim)
			got, err := imagex.DecodeWith(tt.file, lim, Codec{})
			if (stdErr == nil) != (err == nil) {
				t.Fatalf("image/jpeg: %v; turbo: %v", stdErr, err)
			}
			if err != nil {
				if !errors.Is(err, imagex.ErrCorrupt) {
					t.Fatalf("error %v does not wrap ErrCorrupt", err)
				}
				return
			}
			if !sameImage(got.Image, std.Image) {
				t.Error("result differs from image/jpeg's")
			}
		})
	}
}

// TestDecodeBounded: planes are allocated only within what the header
// check granted, and only for the size it read.
func TestDecodeBounded(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(corpus, "big-q75-420.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	info, err := imagex.DecodeConfig(b, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	small := info
	small.DecodeBytes = int64(info.Width * info.Height) // the Y plane alone
	_, err = Codec{}.DecodeJPEG(b, small)
	var de *imagex.DimensionError
	if !errors.As(err, &de) || !errors.Is(err, imagex.ErrTooManyPixels) || de.NeedBytes <= de.MaxBytes {
		t.Fatalf("planes over the granted memory: got %v", err)
	}
	lied := info
	lied.Width++
	if _, err := decodePlanes(b, lied); !errors.Is(err, errUnsupported) {
		t.Fatalf("header disagreeing with the check: got %v", err)
	}
	lim := limits.Default()
	lim.MaxPixels = int64(info.Width*info.Height) - 1
	if _, err := imagex.DecodeWith(b, lim, Codec{}); !errors.Is(err, imagex.ErrTooManyPixels) {
		t.Fatalf("over the pixel limit: got %v", err)
	}
}

// psnr is the PSNR in dB of b against a over RGB.
func psnr(a, b image.Image) float64 {
	r := a.Bounds()
	var se float64
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			p := color.RGBAModel.Convert(a.At(x, y)).(color.RGBA)
			q := color.RGBAModel.Convert(b.At(x-r.Min.X+b.Bounds().Min.X, y-r.Min.Y+b.Bounds().Min.Y)).(color.RGBA)
			for _, d := range []float64{float64(p.R) - float64(q.R), float64(p.G) - float64(q.G), float64(p.B) - float64(q.B)} {
				se += d * d
			}
		}
	}
	mse := se / float64(3*r.Dx()*r.Dy())
	if mse == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/mse)
}

// dqt returns the quantisation table segments of a JPEG, in order.
func dqt(t *testing.T, b []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for i := 2; i+4 <= len(b) && b[i] == 0xFF && b[i+1] != 0xDA; {
		n := int(b[i+2])<<8 | int(b[i+3])
		if b[i+1] == 0xDB {
			seg := b[i+4 : i+2+n]
			for len(seg) >= 65 {
				out = append(out, seg[:65])
				seg = seg[65:]
			}
		}
		i += 2 + n
	}
	if len(out) == 0 {
		t.Fatal("no DQT segment")
	}
	return out
}

// TestEncode: what image/jpeg writes (its tables at the same quality,
// grey or 4:2:0), and the picture as close to the source as image/jpeg's
// encode of it and at least 42 dB from that encode.
func TestEncode(t *testing.T) {
	src := imagex.Decode
	b, err := os.ReadFile(filepath.Join(corpus, "big-q95-444.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	base, err := src(b, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	ycc := base.Image.(*image.YCbCr)
	w, h := ycc.Bounds().Dx(), ycc.Bounds().Dy()
	gray := image.NewGray(ycc.Bounds())
	copy(gray.Pix, ycc.Y)
	rgba := image.NewRGBA(ycc.Bounds())
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			rgba.Set(x, y, ycc.At(x, y))
		}
	}
	to420 := image.NewYCbCr(ycc.Bounds(), image.YCbCrSubsampleRatio420)
	copy(to420.Y, ycc.Y)
	for y := 0; y < (h+1)/2; y++ {
		for x := 0; x < (w+1)/2; x++ {
			to420.Cb[y*to420.CStride+x] = ycc.Cb[2*y*ycc.CStride+2*x]
			to420.Cr[y*to420.CStride+x] = ycc.Cr[2*y*ycc.CStride+2*x]
		}
	}
	sub := rgba.SubImage(image.Rect(3, 5, w-1, h-2))
	// Odd sides in exact planes: TurboJPEG's padded Y plane is not there.
	odd := image.NewYCbCr(image.Rect(0, 0, w-2, h-2), image.YCbCrSubsampleRatio420)
	if odd.Rect.Dx()%2 == 0 || odd.Rect.Dy()%2 == 0 || odd.YStride != odd.Rect.Dx() {
		t.Fatalf("want odd sides in exact planes, got %v stride %d", odd.Rect, odd.YStride)
	}
	for y := 0; y < h-2; y++ {
		copy(odd.Y[y*odd.YStride:], to420.Y[y*to420.YStride:][:w-2])
	}
	for y := 0; y < (h-1)/2; y++ {
		copy(odd.Cb[y*odd.CStride:], to420.Cb[y*to420.CStride:][:odd.CStride])
		copy(odd.Cr[y*odd.CStride:], to420.Cr[y*to420.CStride:][:odd.CStride])
	}
	tests := []struct {
		name  string
		img   image.Image
		q     int
		ratio image.YCbCrSubsampleRatio
		gray  bool
	}{
		{"ycbcr 444 q90", ycc, 90, image.YCbCrSubsampleRatio420, false},
		{"ycbcr 444 sub-image q90", ycc.SubImage(image.Rect(1, 1, w-2, h-4)), 90, image.YCbCrSubsampleRatio420, false},
		{"ycbcr 420 q75", to420, 75, image.YCbCrSubsampleRatio420, false},
		{"ycbcr 420 odd sides q85", odd, 85, image.YCbCrSubsampleRatio420, false},
		{"ycbcr q100", to420, 100, image.YCbCrSubsampleRatio420, false},
		{"ycbcr q50", to420, 50, image.YCbCrSubsampleRatio420, false},
		{"gray q85", gray, 85, 0, true},
		{"rgba q90", rgba, 90, image.YCbCrSubsampleRatio420, false},
		{"rgba sub-image q80", sub, 80, image.YCbCrSubsampleRatio420, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got, ref bytes.Buffer
			if err := (Codec{}).EncodeJPEG(&got, tt.img, tt.q); err != nil {
				t.Fatal(err)
			}
			if err := jpeg.Encode(&ref, tt.img, &jpeg.Options{Quality: tt.q}); err != nil {
				t.Fatal(err)
			}
			gt, rt := dqt(t, got.Bytes()), dqt(t, ref.Bytes())
			// image/jpeg writes its chroma table into grey files too.
			if len(gt) != len(rt) && !(tt.gray && len(gt) == 1) {
				t.Fatalf("%d tables, image/jpeg %d", len(gt), len(rt))
			}
			for i := range gt {
				if !bytes.Equal(gt[i], rt[i]) {
					t.Fatalf("table %d differs from image/jpeg's:\n% x\n% x", i, gt[i], rt[i])
				}
			}
			dec, err := jpeg.Decode(bytes.NewReader(got.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if dec.Bounds().Size() != tt.img.Bounds().Size() {
				t.Fatalf("size %v, want %v", dec.Bounds().Size(), tt.img.Bounds().Size())
			}
			switch d := dec.(type) {
			case *image.Gray:
				if !tt.gray {
					t.Fatal("colour image encoded grey")
				}
			case *image.YCbCr:
				if tt.gray || d.SubsampleRatio != tt.ratio {
					t.Fatalf("subsampling %v, want %v", d.SubsampleRatio, tt.ratio)
				}
			default:
				t.Fatalf("decodes to %T", dec)
			}
			refDec, err := jpeg.Decode(bytes.NewReader(ref.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			p, pr, pb := psnr(tt.img, dec), psnr(tt.img, refDec), psnr(refDec, dec)
			t.Logf("PSNR turbo %.2f dB, image/jpeg %.2f dB, between them %.2f dB; %d vs %d bytes", p, pr, pb, got.Len(), ref.Len())
			if p < pr-0.5 || pb < 42 {
				t.Errorf("PSNR %.2f dB, image/jpeg's encode %.2f dB, between them %.2f dB", p, pr, pb)
			}
		})
	}
}

// TestGuard: the guard after the planes notices a write past them.
func TestGuard(t *testing.T) {
	for _, n := range []int{0, 1, 250 * 188} {
		b := guarded(n)
		if len(b) != n || !intact(b) {
			t.Fatalf("fresh guard of %d: len %d, intact %v", n, len(b), intact(b))
		}
		b[:n+1][n] = 0
		if intact(b) {
			t.Fatalf("a write one past %d bytes went unnoticed", n)
		}
	}
}
