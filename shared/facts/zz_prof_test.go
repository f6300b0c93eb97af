package facts

import (
	"bytes"
	"image"
	"image/jpeg"
	"os"
	"testing"
	"time"

	"golang.org/x/image/draw"

	"github.com/provenant/provenant/shared/limits"
)

func BenchmarkZZAnalyze4MP(b *testing.B) {
	src, _ := os.ReadFile("../watermark/testdata/meadow.jpg")
	img, _, _ := image.Decode(bytes.NewReader(src))
	h := 1633
	dst := image.NewRGBA(image.Rect(0, 0, 3*h/2, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, img.Bounds(), draw.Src, nil)
	var buf bytes.Buffer
	jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 90})
	file := buf.Bytes()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Analyze(file, limits.Default(), time.Now()); err != nil {
			b.Fatal(err)
		}
	}
}
