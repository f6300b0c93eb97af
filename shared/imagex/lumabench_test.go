package imagex

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/provenant/provenant/shared/limits"
)

// benchLumaFile is $PROVENANT_BENCH_IMAGE as is (any JPEG), or a
// synthetic 2560×1600 textured photo-like JPEG at q90.
func benchLumaFile(b *testing.B) []byte {
	if p := os.Getenv("PROVENANT_BENCH_IMAGE"); p != "" {
		raw, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		return raw
	}
	r := rand.New(rand.NewPCG(3, 4))
	m := image.NewRGBA(image.Rect(0, 0, 2560, 1600))
	for y := 0; y < 1600; y++ {
		for x := 0; x < 2560; x++ {
			i := m.PixOffset(x, y)
			n := uint8(r.IntN(24))
			m.Pix[i], m.Pix[i+1], m.Pix[i+2], m.Pix[i+3] = uint8(x/12)+n, uint8(y/7)+n, uint8((x^y)/9)+n, 255
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: 90}); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkDecodeLuma compares the luminance decoder at each scale with
// the full decode (image/jpeg through Decode) of the same file:
//
//	go test ./shared/imagex -run '^$' -bench DecodeLuma -count 6
func BenchmarkDecodeLuma(b *testing.B) {
	data := benchLumaFile(b)
	lim := limits.Default()
	b.Run("Decode", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := Decode(data, lim); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, s := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("Luma1of%d", s), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := decodeJPEGLuma(data, s, lim.MaxDecodeBytes); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
