package imagex

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/cputime"
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
// the full decode (image/jpeg through Decode) of the same file, in the
// same iterations: every iteration runs all five, and the metrics are
// medians of the process CPU time of each (wall time on a shared machine
// is mostly waiting) and their ratios to Decode:
//
//	PROVENANT_BENCH_IMAGE=photo.jpg go test ./shared/imagex -run '^$' -bench DecodeLuma -benchtime 10x
func BenchmarkDecodeLuma(b *testing.B) {
	data := benchLumaFile(b)
	lim := limits.Default()
	scales := []int{1, 2, 4, 8}
	cpu := make([][]time.Duration, 1+len(scales))
	for i := 0; i < b.N; i++ {
		c0 := cputime.Process()
		if _, err := Decode(data, lim); err != nil {
			b.Fatal(err)
		}
		c1 := cputime.Process()
		cpu[0] = append(cpu[0], c1-c0)
		for k, s := range scales {
			c0 := cputime.Process()
			if _, err := decodeJPEGLuma(data, s, lim.MaxDecodeBytes); err != nil {
				b.Fatal(err)
			}
			cpu[k+1] = append(cpu[k+1], cputime.Process()-c0)
		}
	}
	med := func(d []time.Duration) float64 {
		s := slices.Clone(d)
		slices.Sort(s)
		return float64(s[len(s)/2])
	}
	d := med(cpu[0])
	if d == 0 {
		return // no CPU clock on this platform
	}
	b.ReportMetric(d/1e6, "decode-cpu-ms")
	for k, s := range scales {
		m := med(cpu[k+1])
		b.ReportMetric(m/1e6, fmt.Sprintf("luma1of%d-cpu-ms", s))
		b.ReportMetric(d/m, fmt.Sprintf("decode/luma1of%d-x", s))
	}
}
