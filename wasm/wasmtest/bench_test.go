package wasmtest_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"os"
	"runtime"
	"testing"
	"time"

	"golang.org/x/image/draw"

	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/wasm/internal/abi"
)

// benchJPEG returns a JPEG (quality 90) of about mp megapixels at 3:2:
// PROVENANT_BENCH_IMAGE resized, or the watermark test photo upscaled.
func benchJPEG(b *testing.B, mp float64) []byte {
	b.Helper()
	path := os.Getenv("PROVENANT_BENCH_IMAGE")
	if path == "" {
		path = "../../shared/watermark/testdata/meadow.jpg"
	}
	src, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	img, _, err := image.Decode(bytes.NewReader(src))
	if err != nil {
		b.Fatal(err)
	}
	h := 1
	for float64(3*h/2*h) < mp*1e6 {
		h++
	}
	dst := image.NewRGBA(image.Rect(0, 0, 3*h/2, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, img.Bounds(), draw.Src, nil)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 90}); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkAnalyze times the full pure-Go decode (imagex.Decode, the
// floor), facts.Analyze natively and the module's analyze export in
// wazero (copy in, analyze, copy out) on the same JPEG, and reports ms per
// megapixel. Native runs the perceptual hash and the watermark extraction
// on two goroutines in parallel; the module has one thread.
//
//	go test -run '^$' -bench Analyze -count 6 ./wasm/wasmtest
func BenchmarkAnalyze(b *testing.B) {
	ctx := context.Background()
	m := load(b)
	for _, mp := range []float64{1, 4, 12} {
		file := benchJPEG(b, mp)
		cfg, _ := jpeg.DecodeConfig(bytes.NewReader(file))
		pixels := float64(cfg.Width*cfg.Height) / 1e6
		b.Run(fmt.Sprintf("%.0fMP/native-full-decode", mp), func(b *testing.B) {
			for b.Loop() {
				if _, err := imagex.Decode(file, limits.Default()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N)/pixels, "ms/MP")
		})
		b.Run(fmt.Sprintf("%.0fMP/native", mp), func(b *testing.B) {
			for b.Loop() {
				if _, err := facts.Analyze(file, limits.Default(), time.Now()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N)/pixels, "ms/MP")
		})
		b.Run(fmt.Sprintf("%.0fMP/wazero", mp), func(b *testing.B) {
			for b.Loop() {
				out, err := m.Call(ctx, "analyze", file)
				if err != nil || !bytes.HasPrefix(out, []byte(`{"ok":true`)) {
					b.Fatalf("analyze: %s %v", out, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N)/pixels, "ms/MP")
		})
	}
}

// BenchmarkAnalyzeParts splits analyze between the decode and the rest,
// in wazero and natively, through the same ABI code (wasm/internal/abi
// runs natively here): "file" is analyze of the JPEG (decode, hashes,
// watermark), "pixels" is analyze_pixels of its full-size Y plane, as the
// browser's decoder hands it over (area average to the plane, hashes,
// watermark, local signatures). Native runs once with GOMAXPROCS=1 (the
// module has one thread) and once as configured (the perceptual hash and
// the watermark on two goroutines). Each sub-benchmark reports ms per
// call; the ratios of the same part are what to compare.
//
//	go test -run '^$' -bench AnalyzeParts -count 3 ./wasm/wasmtest
func BenchmarkAnalyzeParts(b *testing.B) {
	ctx := context.Background()
	m := load(b)
	lim := limits.Default()
	for _, mp := range []float64{1, 4, 12} {
		file := benchJPEG(b, mp)
		f, err := facts.Analyze(file, lim, time.Now())
		if err != nil {
			b.Fatal(err)
		}
		pixels := lumaInput(b, file, f)
		for _, part := range []struct {
			name   string
			in     []byte
			export string
			native func([]byte) []byte
		}{
			{"file", file, "analyze", func(in []byte) []byte { return abi.Analyze(in, lim, time.Now()) }},
			{"pixels", pixels, "analyze_pixels", func(in []byte) []byte { return abi.AnalyzePixels(in, lim) }},
		} {
			check := func(b *testing.B, out []byte) {
				if !bytes.HasPrefix(out, []byte(`{"ok":true`)) {
					b.Fatalf("%s: %.300s", part.export, out)
				}
			}
			b.Run(fmt.Sprintf("%.0fMP/%s/native-1thread", mp, part.name), func(b *testing.B) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
				for b.Loop() {
					check(b, part.native(part.in))
				}
			})
			b.Run(fmt.Sprintf("%.0fMP/%s/native", mp, part.name), func(b *testing.B) {
				for b.Loop() {
					check(b, part.native(part.in))
				}
			})
			b.Run(fmt.Sprintf("%.0fMP/%s/wazero", mp, part.name), func(b *testing.B) {
				for b.Loop() {
					out, err := m.Call(ctx, part.export, part.in)
					if err != nil {
						b.Fatal(err)
					}
					check(b, out)
				}
			})
		}
	}
}
