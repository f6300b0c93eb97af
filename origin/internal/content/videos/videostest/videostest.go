// Package videostest makes the random perceptual hashes and video
// fingerprints that the tests of content and content/videos store and
// look up. It is imported by tests only.
package videostest

import (
	"math/rand/v2"

	"github.com/provenant/provenant/origin/internal/video"
	"github.com/provenant/provenant/shared/phash"
)

// Hash returns a perceptual hash drawn from r, 64 and 256 bits: two
// draws are far apart on both (about 32 and 128 bits).
func Hash(r *rand.Rand) phash.Hash {
	return phash.Hash{P64: r.Uint64(), P256: [4]uint64{r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()}}
}

// Fingerprint returns the fingerprint of a video of seconds frames drawn
// from r, each with its centre: no two fingerprints it makes share a
// frame, and within one no two frames are near.
func Fingerprint(r *rand.Rand, seconds int) video.Fingerprint {
	var fp video.Fingerprint
	for range seconds {
		fp.Hashes = append(fp.Hashes, Hash(r))
		fp.Centre = append(fp.Centre, Hash(r))
	}
	return fp
}
