// Package benchphoto loads the photographs the core's benchmarks run on,
// so that each benchmark finds them the same way.
package benchphoto

import (
	"image"
	"os"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
)

// EnvImage names the photo a benchmark run uses instead of the set.
const EnvImage = "PROVENANT_BENCH_IMAGE"

// Load decodes $PROVENANT_BENCH_IMAGE when it is set, or else each of
// names under dir (the development photo set, bench/fetch-images.sh).
// Files that are missing are passed over; a file that does not decode
// fails tb. It returns nil when no photo was found, for the caller to
// fall back to a synthetic picture.
func Load(tb testing.TB, dir string, names ...string) []image.Image {
	tb.Helper()
	var paths []string
	if p := os.Getenv(EnvImage); p != "" {
		paths = []string{p}
	} else {
		for _, n := range names {
			paths = append(paths, filepath.Join(dir, n))
		}
	}
	var out []image.Image
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		img, err := imagex.Decode(raw, limits.Default())
		if err != nil {
			tb.Fatalf("decode %s: %v", p, err)
		}
		out = append(out, img.Image)
	}
	return out
}
