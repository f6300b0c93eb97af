package watermark

import (
	"bytes"
	"image"
	"image/jpeg"
	"math"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/cputime"
	"github.com/provenant/provenant/shared/imagex"
	"golang.org/x/image/draw"
)

// benchJPEG returns a 4 MP JPEG (q90) built from a test photo, and its
// megapixels, so embed, extract and decode are measured on the same file.
func benchJPEG(b *testing.B) ([]byte, float64) {
	src := loadTestImage(b, "meadow.jpg")
	big := image.NewRGBA(image.Rect(0, 0, 2448, 1632))
	draw.CatmullRom.Scale(big, big.Bounds(), src, src.Bounds(), draw.Src, nil)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, big, &jpeg.Options{Quality: 90}); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes(), 2448 * 1632 / 1e6
}

// benchImage is benchJPEG decoded.
func benchImage(b *testing.B) (image.Image, float64) {
	data, mp := benchJPEG(b)
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	return img, mp
}

func BenchmarkJPEGDecode(b *testing.B) {
	data, mp := benchJPEG(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := jpeg.Decode(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N)/mp, "ms/MP")
}

func BenchmarkEmbed(b *testing.B) {
	img, mp := benchImage(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Embed(img, 0x1234); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N)/mp, "ms/MP")
}

func BenchmarkExtract(b *testing.B) {
	benchmarkExtractEdited(b, func(l *imagex.Luma) *imagex.Luma { return l })
}

// BenchmarkExtractUnmarked measures the worst case: no watermark, so the
// whole bounded search (scales, then rotations) runs for every format.
func BenchmarkExtractUnmarked(b *testing.B) {
	img, mp := benchImage(b)
	l := imagex.ToLuma(img)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, d, _ := Extract(l); d.Found {
			b.Fatal("watermark found in unmarked image")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N)/mp, "ms/MP")
}

// rotateCropLuma rotates l by deg about its centre (bilinear) and keeps the
// largest same-aspect rectangle inside, as the robustness bench's rotation.
func rotateCropLuma(l *imagex.Luma, deg float64) *imagex.Luma {
	w, h := float64(l.Width), float64(l.Height)
	c, s := math.Cos(deg*math.Pi/180), math.Sin(deg*math.Pi/180)
	k := 1 / (c + math.Abs(s)*math.Max(w/h, h/w))
	ow, oh := int(w*k), int(h*k)
	out := &imagex.Luma{Width: ow, Height: oh, Stride: ow, Pix: make([]uint8, ow*oh)}
	for y := 0; y < oh; y++ {
		for x := 0; x < ow; x++ {
			dx, dy := float64(x)+0.5-float64(ow)/2, float64(y)+0.5-float64(oh)/2
			sx, sy := c*dx-s*dy+w/2-0.5, s*dx+c*dy+h/2-0.5
			x0, y0 := int(math.Floor(sx)), int(math.Floor(sy))
			fx, fy := sx-float64(x0), sy-float64(y0)
			x0, y0 = min(max(x0, 0), l.Width-2), min(max(y0, 0), l.Height-2)
			p := func(xx, yy int) float64 { return float64(l.Pix[yy*l.Stride+xx]) }
			v := (1-fy)*((1-fx)*p(x0, y0)+fx*p(x0+1, y0)) + fy*((1-fx)*p(x0, y0+1)+fx*p(x0+1, y0+1))
			out.Pix[y*ow+x] = uint8(math.Round(v))
		}
	}
	return out
}

// benchmarkExtractEdited measures extraction from an edited copy of the
// marked 4 MP photo, per megapixel of the copy.
func benchmarkExtractEdited(b *testing.B, edit func(*imagex.Luma) *imagex.Luma) {
	img, _ := benchImage(b)
	marked, err := Embed(img, 0x1234)
	if err != nil {
		b.Fatal(err)
	}
	l := edit(imagex.ToLuma(marked))
	mp := float64(l.Width*l.Height) / 1e6
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, d, _ := Extract(l); !d.Found {
			b.Fatal("watermark not found")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N)/mp, "ms/MP")
}

// BenchmarkExtractCrop75 is a marked image cropped to its central 75 %: the
// scale search, the fine scale and the re-gridding run.
func BenchmarkExtractCrop75(b *testing.B) {
	benchmarkExtractEdited(b, func(l *imagex.Luma) *imagex.Luma {
		x0, y0 := l.Width/8, l.Height/8
		return &imagex.Luma{Width: l.Width * 3 / 4, Height: l.Height * 3 / 4, Stride: l.Stride, Pix: l.Pix[y0*l.Stride+x0:]}
	})
}

// BenchmarkExtractRotate1 is a marked image rotated by 1° with the corners
// cropped: the scale search fails and the rotation search finds it.
func BenchmarkExtractRotate1(b *testing.B) {
	benchmarkExtractEdited(b, func(l *imagex.Luma) *imagex.Luma { return rotateCropLuma(l, 1) })
}

// BenchmarkExtractUnmarked12MP measures the cost bound the service holds:
// extracting from an unmarked 12 MP photo (4000×3000, JPEG q90 built from a
// test photo with noise added so it has a camera's grain) against decoding
// that JPEG with the standard library, both timed in every iteration in
// the CPU time of the thread that ran them. "x-decode" is the ratio of the
// two totals.
func BenchmarkExtractUnmarked12MP(b *testing.B) {
	benchmarkExtractUnmarkedVsDecode(b, 4000, 3000)
}

// BenchmarkExtractUnmarked2MP is the same measurement at 1800×1200, the
// size of most development photos, where the search's fixed cost weighs
// more against the decode than at 12 MP.
func BenchmarkExtractUnmarked2MP(b *testing.B) {
	benchmarkExtractUnmarkedVsDecode(b, 1800, 1200)
}

func benchmarkExtractUnmarkedVsDecode(b *testing.B, w, h int) {
	src := loadTestImage(b, "meadow.jpg")
	big := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(big, big.Bounds(), src, src.Bounds(), draw.Src, nil)
	seed := uint32(1)
	for i := range big.Pix {
		if i%4 == 3 {
			continue
		}
		seed = seed*1664525 + 1013904223
		big.Pix[i] = uint8(min(max(int(big.Pix[i])+int(seed>>29)-4, 0), 255))
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, big, &jpeg.Options{Quality: 90}); err != nil {
		b.Fatal(err)
	}
	var dec, ext time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var img image.Image
		var err error
		dec += cputime.Thread(func() { img, err = jpeg.Decode(bytes.NewReader(buf.Bytes())) })
		if err != nil {
			b.Fatal(err)
		}
		l := imagex.ToLuma(img)
		var found bool
		ext += cputime.Thread(func() { _, d, _ := Extract(l); found = d.Found })
		if found {
			b.Fatal("watermark found in unmarked image")
		}
	}
	b.ReportMetric(float64(dec.Milliseconds())/float64(b.N), "decode-cpu-ms")
	b.ReportMetric(float64(ext.Milliseconds())/float64(b.N), "extract-cpu-ms")
	b.ReportMetric(float64(ext)/float64(dec), "x-decode")
}
