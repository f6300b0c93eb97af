package imagex

import (
	"bytes"
	"image/jpeg"
	"os"
	"testing"
)

func BenchmarkQuickLuma(b *testing.B) {
	f := os.Getenv("LUMA_FILE")
	if f == "" {
		b.Skip()
	}
	data, _ := os.ReadFile(f)
	b.Run("jpeg", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			jpeg.Decode(bytes.NewReader(data))
		}
	})
	for _, s := range []int{1, 2, 4, 8} {
		b.Run(string(rune('0'+s)), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := decodeJPEGLuma(data, s, 1<<30); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
