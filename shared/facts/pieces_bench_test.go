package facts

import (
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/internal/benchphoto"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/watermark"
)

// BenchmarkAnalyzePieces times each step of Analyze on its own, one
// thread, on the meadow photo (or $PROVENANT_BENCH_IMAGE, an absolute
// path) resized to 1, 4 and 12 MP at q90: the reduced luma decode, the area
// average to the hash's 256×256, the perceptual hash, the watermark
// extraction, the SHA-256, and Analyze whole. Built for wasip1 and run in
// wazero, the same benchmark times the same code inside a WebAssembly
// module, so the ratio of each step says where the module's time goes:
//
//	GOMAXPROCS=1 go test ./shared/facts -tags noc2pa -run '^$' -bench AnalyzePieces -benchtime 5x -count 3
//	GOOS=wasip1 GOARCH=wasm go test -c -tags noc2pa -o /tmp/facts.wasm ./shared/facts
//	wazero run -mount "$PWD:$PWD:ro" -env PROVENANT_BENCH_IMAGE="$PWD/shared/watermark/testdata/meadow.jpg" \
//	  /tmp/facts.wasm -test.run '^$' -test.bench AnalyzePieces -test.benchtime 5x -test.count 3
func BenchmarkAnalyzePieces(b *testing.B) {
	photos := benchphoto.Load(b, filepath.Dir(meadowJPEG), filepath.Base(meadowJPEG))
	if len(photos) == 0 {
		b.Fatalf("no photo: %s or $%s", meadowJPEG, benchphoto.EnvImage)
	}
	photo := photos[0]
	lim := limits.Default()
	for _, mp := range []float64{1, 4, 12} {
		file := resizedJPEG(b, photo, mp, 90)
		img, err := imagex.DecodeLuma(file, lim, VerifyShortSide)
		if err != nil {
			b.Fatal(err)
		}
		hashPlane := img.DownscaleAs(phash.Side256, phash.Side256)
		for _, p := range []struct {
			name string
			run  func() error
		}{
			{"decode-luma", func() error { _, err := imagex.DecodeLuma(file, lim, VerifyShortSide); return err }},
			{"downscale", func() error { img.DownscaleAs(phash.Side256, phash.Side256); return nil }},
			{"phash", func() error { _, err := phash.Compute(hashPlane); return err }},
			{"watermark", func() error { _, _, err := watermark.Extract(img.Luma); return err }},
			{"sha256", func() error { sha256.Sum256(file); return nil }},
			{"analyze", func() error { _, err := Analyze(file, lim, time.Now()); return err }},
		} {
			b.Run(fmt.Sprintf("%gMP/%s", mp, p.name), func(b *testing.B) {
				for b.Loop() {
					if err := p.run(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
