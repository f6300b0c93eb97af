package watermark

import (
	"bytes"
	"image"
	"image/jpeg"
	"testing"

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
	data, mp := benchJPEG(b)
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Embed(img, 0x1234); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N)/mp, "ms/MP")
}

func BenchmarkExtract(b *testing.B) {
	data, mp := benchJPEG(b)
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	marked, err := Embed(img, 0x1234)
	if err != nil {
		b.Fatal(err)
	}
	l := imagex.ToLuma(marked)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, d, _ := Extract(l); !d.Found {
			b.Fatal("watermark not found")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N)/mp, "ms/MP")
}

// BenchmarkExtractUnmarked measures the worst case: no watermark, so the
// whole bounded search (scales, then rotations) runs for every format.
func BenchmarkExtractUnmarked(b *testing.B) {
	data, mp := benchJPEG(b)
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	l := imagex.ToLuma(img)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, d, _ := Extract(l); d.Found {
			b.Fatal("watermark found in unmarked image")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N)/mp, "ms/MP")
}
