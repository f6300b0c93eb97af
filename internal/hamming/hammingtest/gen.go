// Package hammingtest generates registries of perceptual hashes shaped
// like real ones, for tests and benchmarks of near-duplicate search.
package hammingtest

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// Registry is a generated registry: record i has the 64-bit hash P64[i],
// the 256-bit hash P256[i] (nil when not asked for) and shows photo
// Photo[i]. Records are in claim order (record i was signed before i+1).
type Registry struct {
	P64   []uint64
	P256  [][4]uint64
	Photo []int32
	// First[p] is the first record of photo p (its earliest claim).
	First []int32
}

// ID is record i's 16-byte id.
func ID(i int) (id [16]byte) {
	id[12], id[13], id[14], id[15] = byte(i>>24), byte(i>>16), byte(i>>8), byte(i)
	id[0] = 0x80 | byte(i>>32)
	return id
}

// FlipExact returns h with exactly d distinct bits flipped.
func FlipExact(r *rand.Rand, h uint64, d int) uint64 {
	var mask uint64
	for bits.OnesCount64(mask) < d {
		mask |= 1 << r.IntN(64)
	}
	return h ^ mask
}

// Flip256 flips exactly d distinct bits of a 256-bit hash.
func Flip256(r *rand.Rand, h [4]uint64, d int) [4]uint64 {
	seen := map[int]bool{}
	for len(seen) < d {
		b := r.IntN(256)
		if !seen[b] {
			seen[b] = true
			h[b/64] ^= 1 << (b % 64)
		}
	}
	return h
}

// Distance256 is the Hamming distance of two 256-bit hashes.
func Distance256(a, b [4]uint64) int {
	return bits.OnesCount64(a[0]^b[0]) + bits.OnesCount64(a[1]^b[1]) + bits.OnesCount64(a[2]^b[2]) + bits.OnesCount64(a[3]^b[3])
}

// Generate makes n records. Most photos are signed once; a share of them
// come in bursts, the same picture signed by many sources (agencies,
// re-posts, crops by several outlets): burst sizes follow a Pareto law
// (shape 1.2, capped at 2,000), so a few photos have hundreds of records,
// as real registries see for news events. A burst's records are its
// photo's hashes re-encoded: 0..6 bits of the 64-bit hash flipped (what
// re-encodes and resizes do to the development photos, bench/README.md)
// and 4 bits of the 256-bit hash per 64-bit bit plus 0..8. Base hashes are
// uniform. with256 also keeps the 256-bit hashes (32 bytes a record).
func Generate(n int, seed uint64, with256 bool) *Registry {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	g := &Registry{P64: make([]uint64, 0, n), Photo: make([]int32, 0, n)}
	if with256 {
		g.P256 = make([][4]uint64, 0, n)
	}
	for len(g.P64) < n {
		base64 := r.Uint64()
		var base256 [4]uint64
		if with256 {
			base256 = [4]uint64{r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()}
		}
		k := 1
		if r.Float64() < 0.2 { // one photo in five is a burst
			k = 1 + int(math.Min(2000, math.Floor(math.Pow(1-r.Float64(), -1/1.2))))
		}
		photo := int32(len(g.First))
		g.First = append(g.First, int32(len(g.P64)))
		for c := 0; c < k && len(g.P64) < n; c++ {
			h, d := base64, 0
			if c > 0 {
				d = r.IntN(7)
				h = FlipExact(r, base64, d)
			}
			g.P64 = append(g.P64, h)
			g.Photo = append(g.Photo, photo)
			if with256 {
				h256 := base256
				if c > 0 {
					h256 = Flip256(r, base256, 4*d+r.IntN(9))
				}
				g.P256 = append(g.P256, h256)
			}
		}
	}
	return g
}
