package localsig_test

import (
	"bytes"
	"image"
	"image/jpeg"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/localsig"
	"github.com/provenant/provenant/shared/watermark"
)

// benchFixture is a signed 2048×1280 photo (the development photo
// upscaled), re-encoded at JPEG 85, with its grid and the decoder's
// alignment.
func benchFixture(b *testing.B) ([]byte, *localsig.Grid, localsig.Alignment) {
	b.Helper()
	m, err := watermark.Embed(resize(load(b, "../testdata/images/photo.jpg"), 2048, 1280), 7)
	if err != nil {
		b.Fatal(err)
	}
	g := localsig.Compute(imagex.ToLuma(m))
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: 85}); err != nil {
		b.Fatal(err)
	}
	dec, _ := jpeg.Decode(bytes.NewReader(buf.Bytes()))
	_, d, err := watermark.Extract(imagex.ToLuma(dec))
	if err != nil || !d.Found {
		b.Fatal("watermark not found")
	}
	return buf.Bytes(), g, localsig.Alignment{Scale: d.Scale, Angle: d.Angle, OffsetX: d.OffsetX, OffsetY: d.OffsetY,
		WorkWidth: d.WorkWidth, WorkHeight: d.WorkHeight, Period: d.Period}
}

// BenchmarkJPEGDecode is the reference the added verify cost is quoted
// against (bench/README.md).
func BenchmarkJPEGDecode(b *testing.B) {
	file, _, _ := benchFixture(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := jpeg.Decode(bytes.NewReader(file)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyAdded is what verify adds per file with a watermark
// found: the probe (one downscale pass) and the comparison with one grid.
func BenchmarkVerifyAdded(b *testing.B) {
	file, g, a := benchFixture(b)
	m, _ := jpeg.Decode(bytes.NewReader(file))
	l := &imagex.Luma{Width: m.Bounds().Dx(), Height: m.Bounds().Dy(), Stride: m.(*image.YCbCr).YStride, Pix: m.(*image.YCbCr).Y}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := localsig.Compare(g, localsig.NewProbe(l, a)); r.Outcome != localsig.Same {
			b.Fatalf("outcome %v", r.Outcome)
		}
	}
}

// BenchmarkCompute is the sign-time cost of the grid.
func BenchmarkCompute(b *testing.B) {
	file, _, _ := benchFixture(b)
	m, _ := jpeg.Decode(bytes.NewReader(file))
	l := imagex.ToLuma(m)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		localsig.Compute(l)
	}
}

// BenchmarkVerifyAddedColour is BenchmarkVerifyAdded for a colour grid:
// the probe with the file's chroma (the JPEG's chroma planes, as the
// verify decode gives their block means) and the comparison.
func BenchmarkVerifyAddedColour(b *testing.B) {
	file, _, a := benchFixture(b)
	m, _ := jpeg.Decode(bytes.NewReader(file))
	yc := m.(*image.YCbCr)
	l := &imagex.Luma{Width: m.Bounds().Dx(), Height: m.Bounds().Dy(), Stride: yc.YStride, Pix: yc.Y}
	cb, cr := imagex.Chroma(m)
	g := localsig.ComputeColour(imagex.ToLuma(m), cb, cr)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := localsig.Compare(g, localsig.NewProbe(l, a).WithChroma(cb, cr)); r.Outcome != localsig.Same {
			b.Fatalf("outcome %v", r.Outcome)
		}
	}
}
