package facts

import (
	"os"
	"testing"

	"github.com/provenant/provenant/shared/limits"
)

func BenchmarkTmpAnalyzeOnly(b *testing.B) {
	photos := benchPhotos(b)
	f := resizedJPEG(b, photos[1], 12, 90)
	lim := limits.Default()
	os.WriteFile("/tmp/dq/v12.jpg", f, 0o644)
	os.WriteFile("/tmp/dq/v4.jpg", resizedJPEG(b, photos[1], 4, 90), 0o644)
	os.WriteFile("/tmp/dq/v1.jpg", resizedJPEG(b, photos[1], 1, 90), 0o644)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Analyze(f, lim); err != nil {
			b.Fatal(err)
		}
	}
}
