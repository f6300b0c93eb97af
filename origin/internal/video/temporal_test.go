package video

import (
	"math"
	"math/rand/v2"
	"testing"
)

// texture fills a w×h plane with a smooth random picture plus noise.
func texture(r *rand.Rand, w, h int) []uint8 {
	pix := make([]uint8, w*h)
	for y := range h {
		for x := range w {
			v := 128 + 60*sinf(float64(x)/37+float64(y)/53) + 30*sinf(float64(x*y)/9000) + r.NormFloat64()*8
			pix[y*w+x] = uint8(min(max(v, 0), 255))
		}
	}
	return pix
}

func TestConvCodeRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		p := r.Uint64()
		cw := convEncode(messageBits(p))
		if len(cw) != codedBits {
			t.Fatalf("codeword of %d bits, want %d", len(cw), codedBits)
		}
		soft := make([]float64, len(cw))
		for i, b := range cw {
			soft[i] = 1 - 2*float64(b) + r.NormFloat64()*0.6
		}
		got, ok := parseMessage(viterbi(soft))
		if !ok || got != p {
			t.Fatalf("decoded %x (crc %v), want %x", got, ok, p)
		}
	}
}

func sinf(x float64) float64 { return math.Sin(x) }

func BenchmarkTemporalMark1080p(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	pix := texture(r, 1920, 1080)
	e := newTemporalEmbedder(1920, 1080, 42)
	b.ResetTimer()
	for range b.N {
		e.mark(pix)
	}
}
