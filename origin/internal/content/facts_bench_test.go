package content

import (
	"os"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/testkit"
	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/watermark"
)

// BenchmarkComputeFacts breaks down what verify computes from a file:
// the decode alone (the floor), the perceptual hashes, the watermark
// extraction, and all of it (facts.Analyze, where hash and extraction run
// concurrently), on RECORDS_BENCH_IMAGE (skipped when unset).
//
//	RECORDS_BENCH_IMAGE=path/to/photo.jpg go test ./origin/internal/content -run '^$' -bench ComputeFacts -benchtime 20x -count 5
func BenchmarkComputeFacts(b *testing.B) {
	path := os.Getenv("RECORDS_BENCH_IMAGE")
	if path == "" {
		b.Skip("RECORDS_BENCH_IMAGE not set")
	}
	data := testkit.ReadFile(b, path)
	b.Run("decode", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := imagex.Decode(data, limits.Default()); err != nil {
				b.Fatal(err)
			}
		}
	})
	l := facts.Luma(testkit.Decode(b, data).Image)
	b.Run("phash", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := phash.Compute(l); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("extract", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, _, err := watermark.Extract(l); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("facts", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := facts.Analyze(data, limits.Default(), time.Now()); err != nil {
				b.Fatal(err)
			}
		}
	})
}
