package shared

import (
	"bytes"
	"crypto/sha256"
	"image"
	"image/jpeg"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/corona10/goimagehash"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/internal/benchphoto"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/phash"
)

// benchJPEG returns a ~4 MP photographic JPEG (quality 90). It re-encodes
// $PROVENANT_BENCH_IMAGE, or the first of a few development photos if the
// photo set is present, or else a synthetic textured image.
func benchJPEG(b *testing.B) []byte {
	b.Helper()
	var src image.Image
	if ps := benchphoto.Load(b, filepath.Join("..", "bench", "images"), "bg__mate_nature_LadyBird.jpg"); len(ps) > 0 {
		src = ps[0]
		b.Logf("bench image re-encoded at q90")
	}
	if src == nil {
		b.Logf("bench image: synthetic 2560x1600")
		src = synthetic(2560, 1600)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, src, &jpeg.Options{Quality: 90}); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

func synthetic(w, h int) image.Image {
	r := rand.New(rand.NewPCG(1, 2))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := img.PixOffset(x, y)
			n := uint8(r.IntN(48))
			img.Pix[i] = uint8(x*255/w)/2 + n
			img.Pix[i+1] = uint8(y*255/h)/2 + n
			img.Pix[i+2] = uint8((x+y)%256) / 2
			img.Pix[i+3] = 255
		}
	}
	return img
}

// BenchmarkCore measures the per-file work of a verification on one ~4 MP
// JPEG. Compare each sub-benchmark to Decode of the same run.
func BenchmarkCore(b *testing.B) {
	data := benchJPEG(b)
	lim := limits.Default()
	img, err := imagex.Decode(data, lim)
	if err != nil {
		b.Fatal(err)
	}
	mp := float64(img.Width*img.Height) / 1e6
	luma := imagex.ToLuma(img.Image)
	perMP := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6/mp, "ms/MP")
	}
	b.Run("Decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := imagex.Decode(data, lim); err != nil {
				b.Fatal(err)
			}
		}
		perMP(b)
	})
	b.Run("SHA256", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			sha256.Sum256(data)
		}
		perMP(b)
	})
	b.Run("ToLuma", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			imagex.ToLuma(img.Image)
		}
		perMP(b)
	})
	b.Run("PHashFromLuma", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := phash.Compute(luma); err != nil {
				b.Fatal(err)
			}
		}
		perMP(b)
	})
	b.Run("PHashFromImage", func(b *testing.B) { // luma extraction + area averaging + both hashes
		b.ReportAllocs()
		for b.Loop() {
			if _, err := phash.Compute(imagex.ToLuma(img.Image)); err != nil {
				b.Fatal(err)
			}
		}
		perMP(b)
	})
	// Interleaved measures decode, pHash (luma extraction + area averaging +
	// both hashes) and SHA-256 back to back in every iteration, so that the
	// load of a shared machine hits all three alike, and reports the median
	// of each as a percentage of the median decode.
	b.Run("Interleaved", func(b *testing.B) {
		var dec, ph, sh []time.Duration
		for b.Loop() {
			t0 := time.Now()
			im, err := imagex.Decode(data, lim)
			if err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			if _, err := phash.Compute(imagex.ToLuma(im.Image)); err != nil {
				b.Fatal(err)
			}
			t2 := time.Now()
			sha256.Sum256(data)
			t3 := time.Now()
			dec, ph, sh = append(dec, t1.Sub(t0)), append(ph, t2.Sub(t1)), append(sh, t3.Sub(t2))
		}
		md := median(dec)
		b.ReportMetric(float64(md.Microseconds())/1000, "decode-ms")
		b.ReportMetric(100*float64(median(ph))/float64(md), "phash-%decode")
		b.ReportMetric(100*float64(median(sh))/float64(md), "sha256-%decode")
	})
	b.Run("GoimagehashOnImage", func(b *testing.B) { // the library resizing the full image itself, 64-bit only
		b.ReportAllocs()
		for b.Loop() {
			if _, err := goimagehash.PerceptionHash(img.Image); err != nil {
				b.Fatal(err)
			}
		}
		perMP(b)
	})
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
