package video

import (
	"math/rand/v2"
	"testing"
)

// TestFrameSum: the lane sums give the rounded mean of one by one 32-bit
// sums, for plane lengths that are and are not multiples of eight and
// past the frames a 16-bit lane holds (the carry).
func TestFrameSum(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, tc := range []struct {
		n, frames int
		white     bool // every pixel 255: a lane full after laneFrames
	}{{64, 1, false}, {61, 3, false}, {8 * 37, laneFrames, true}, {83, laneFrames + 1, true}, {8*5 + 3, 3*laneFrames + 7, false}} {
		s := newFrameSum(tc.n)
		want := make([]uint32, tc.n)
		pix := make([]uint8, tc.n)
		for f := range tc.frames {
			for i := range pix {
				if tc.white || f%3 == 0 {
					pix[i] = 255 // the lanes' worst case
				} else {
					pix[i] = uint8(r.IntN(256))
				}
				want[i] += uint32(pix[i])
			}
			s.add(pix)
		}
		got := make([]uint8, tc.n)
		s.mean(got)
		c := uint32(tc.frames)
		for i, w := range want {
			if m := uint8((w + c/2) / c); got[i] != m {
				t.Fatalf("%d pixels, %d frames: pixel %d mean %d, want %d", tc.n, tc.frames, i, got[i], m)
			}
		}
	}
}

// BenchmarkFrameSum is the frame sum's cost per 1080p plane.
func BenchmarkFrameSum(b *testing.B) {
	const n = 1920 * 1080
	pix := make([]uint8, n)
	for i := range pix {
		pix[i] = uint8(i * 7)
	}
	s := newFrameSum(n)
	cpuMetrics(b, func() { s.add(pix) })
}
