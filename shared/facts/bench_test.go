package facts

import (
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/image/draw"

	"github.com/provenant/provenant/internal/cputime"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/internal/benchphoto"
	"github.com/provenant/provenant/shared/internal/phototest"
	"github.com/provenant/provenant/shared/limits"
)

// benchPhotos returns the photos the verify benchmark resizes:
// $PROVENANT_BENCH_IMAGE, or three development photos (bench/fetch-images.sh)
// when present, or a synthetic textured image.
func benchPhotos(b *testing.B) []image.Image {
	b.Helper()
	out := benchphoto.Load(b, filepath.Join("..", "..", "bench", "images"),
		"bg__mate_nature_LadyBird.jpg", "plasma__Volna__5120x2880.jpg", "bg__mate_abstract_Elephants_5640x3172.jpg")
	if len(out) == 0 {
		r := rand.New(rand.NewPCG(1, 2))
		m := image.NewRGBA(image.Rect(0, 0, 4000, 3000))
		for i := range m.Pix {
			x := (i / 4) % 4000
			m.Pix[i] = uint8(x/16+r.IntN(40)) + uint8(i%4)*40
		}
		out = append(out, m)
		b.Log("bench photos: synthetic")
	}
	return out
}

// resizedJPEG is m resized to mp megapixels (bilinear, as bench verify's
// -mp) and encoded at quality q.
func resizedJPEG(b *testing.B, m image.Image, mp float64, q int) []byte {
	bd := m.Bounds()
	s := math.Sqrt(mp * 1e6 / float64(bd.Dx()*bd.Dy()))
	dst := image.NewRGBA(image.Rect(0, 0, int(float64(bd.Dx())*s), int(float64(bd.Dy())*s)))
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), m, bd, draw.Src, nil)
	return phototest.JPEG(b, dst, q)
}

func median(d []time.Duration) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return float64(s[n/2])
	}
	return float64(s[n/2-1]+s[n/2]) / 2
}

// BenchmarkAnalyze measures verification's per-file work against the
// full-resolution decode it used to start with, in the same iterations:
// each iteration decodes a file with imagex.Decode (the floor: today's
// full pure-Go decode), runs Analyze on it (the reduced luminance decode,
// pHash, watermark extraction), and the previous Analyze (full decode,
// then the same checks). Metrics are medians over the iterations:
// decode-ms, analyze-ms, full-analyze-ms, and analyze/decode-x, the
// verify throughput as a multiple of the full-decode ceiling (above 1:
// verification is faster than the decode alone used to be); on Linux the
// same from the process's CPU time (decode-cpu-ms, analyze-cpu-ms,
// cpu:analyze/decode-x), steadier on a shared machine.
//
// Corpora as in bench verify: unknown photos (no mark: the whole
// watermark search runs) and signed copies (marked, then re-encoded at
// q80), resized to 1, 4 and 12 MP and stored at q90.
//
//	go test ./shared/facts -run '^$' -bench Analyze -benchtime 12x -count 3
func BenchmarkAnalyze(b *testing.B) {
	photos := benchPhotos(b)
	lim := limits.Default()
	for _, mp := range []float64{1, 4, 12} {
		for _, corpus := range []string{"unknown", "signed-q80"} {
			b.Run(fmt.Sprintf("%gMP/%s", mp, corpus), func(b *testing.B) {
				var files [][]byte
				for _, p := range photos {
					f := resizedJPEG(b, p, mp, 90)
					if corpus == "signed-q80" {
						f = phototest.JPEG(b, markedPicture(b, f, 0, 0, 0x0123456789abcdef), 80)
					}
					files = append(files, f)
				}
				var dec, ana, full []time.Duration
				var cdec, cana, cfull []time.Duration
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					f := files[i%len(files)]
					c0 := cputime.Process()
					t0 := time.Now()
					if _, err := imagex.Decode(f, lim); err != nil {
						b.Fatal(err)
					}
					t1 := time.Now()
					c1 := cputime.Process()
					fa, err := Analyze(f, lim, time.Now())
					if err != nil {
						b.Fatal(err)
					}
					t2 := time.Now()
					c2 := cputime.Process()
					ff := fullFacts(b, f, lim)
					t3 := time.Now()
					c3 := cputime.Process()
					if corpus == "signed-q80" && (!fa.Watermark.Found || !ff.Watermark.Found) {
						b.Fatalf("watermark not found: reduced %v, full %v", fa.Watermark.Found, ff.Watermark.Found)
					}
					dec, ana, full = append(dec, t1.Sub(t0)), append(ana, t2.Sub(t1)), append(full, t3.Sub(t2))
					cdec, cana, cfull = append(cdec, c1-c0), append(cana, c2-c1), append(cfull, c3-c2)
				}
				b.StopTimer()
				md, ma, mf := median(dec), median(ana), median(full)
				b.ReportMetric(md/1e6, "decode-ms")
				b.ReportMetric(ma/1e6, "analyze-ms")
				b.ReportMetric(mf/1e6, "full-analyze-ms")
				b.ReportMetric(md/ma, "analyze/decode-x")
				b.ReportMetric(md/mf, "full-analyze/decode-x")
				if cd, ca, cf := median(cdec), median(cana), median(cfull); cd > 0 && ca > 0 && cf > 0 {
					// CPU time is steadier than wall time on a shared machine.
					b.ReportMetric(cd/1e6, "decode-cpu-ms")
					b.ReportMetric(ca/1e6, "analyze-cpu-ms")
					b.ReportMetric(cd/ca, "cpu:analyze/decode-x")
					b.ReportMetric(cd/cf, "cpu:full-analyze/decode-x")
				}
			})
		}
	}
}
