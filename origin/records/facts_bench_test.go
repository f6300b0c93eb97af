package records

import (
	"os"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
)

// BenchmarkComputeFacts compares what verify computes from a file with the
// decode alone (the floor), on RECORDS_BENCH_IMAGE (a JPEG; skipped when
// unset).
func BenchmarkComputeFacts(b *testing.B) {
	path := os.Getenv("RECORDS_BENCH_IMAGE")
	if path == "" {
		b.Skip("RECORDS_BENCH_IMAGE not set")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("decode", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := imagex.Decode(data, limits.Default()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("facts", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := ComputeFacts(data, nil, limits.Default()); err != nil {
				b.Fatal(err)
			}
		}
	})
}
