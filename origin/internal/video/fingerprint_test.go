package video

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/provenant/provenant/shared/phash"
)

// randomFingerprint returns n frame hashes drawn from r.
func randomFingerprint(r *rand.Rand, n int) Fingerprint {
	f := Fingerprint{Hashes: make([]phash.Hash, n)}
	for i := range f.Hashes {
		f.Hashes[i].P64 = r.Uint64()
		for k := range 4 {
			f.Hashes[i].P256[k] = r.Uint64()
		}
	}
	return f
}

// flip returns h with the first n bits of its 256-bit hash inverted.
func flip(h phash.Hash, n int) phash.Hash {
	for i := 0; i < n; i++ {
		h.P256[i/64] ^= 1 << (63 - uint(i%64))
	}
	return h
}

func TestMatchFingerprints(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ref := randomFingerprint(r, 20)
	noisy := func(from, to, bits int) Fingerprint {
		q := Fingerprint{}
		for i := from; i < to; i++ {
			q.Hashes = append(q.Hashes, flip(ref.Hashes[i], bits))
		}
		return q
	}
	tests := []struct {
		name       string
		q          Fingerprint
		want       bool
		wantOffset int
	}{
		{"identical", ref, true, 0},
		{"re-encoded", noisy(0, 20, 30), true, 0},
		{"trimmed start", noisy(5, 20, 20), true, 5},
		{"trimmed both ends", noisy(7, 12, 20), true, 7},
		{"too far", noisy(0, 20, phash.NearDistance256+1), false, 0},
		{"unrelated", randomFingerprint(r, 20), false, 0},
		{"empty", Fingerprint{}, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := MatchFingerprints(ref, tt.q)
			if m.Matched != tt.want || (tt.want && m.Offset != tt.wantOffset) {
				t.Fatalf("got %+v, want matched=%v at %d", m, tt.want, tt.wantOffset)
			}
			if tt.want && m.QueryCoverage != 1 {
				t.Fatalf("query coverage %.2f, want 1", m.QueryCoverage)
			}
		})
	}
	t.Run("query longer than reference", func(t *testing.T) {
		long := Fingerprint{Hashes: append(randomFingerprint(r, 4).Hashes, ref.Hashes...)}
		m := MatchFingerprints(ref, long)
		if !m.Matched || m.Offset != -4 || m.ReferenceCoverage != 1 {
			t.Fatalf("got %+v, want the whole reference at offset -4", m)
		}
	})
}

func TestFingerprintBinaryRoundTrip(t *testing.T) {
	f := randomFingerprint(rand.New(rand.NewPCG(3, 4)), 7)
	b, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var g Fingerprint
	if err := g.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if len(g.Hashes) != 7 || g.Hashes[6] != f.Hashes[6] {
		t.Fatalf("round trip changed the fingerprint")
	}
	if err := g.UnmarshalBinary(b[:41]); !errors.Is(err, ErrBadFingerprint) {
		t.Fatalf("got %v for a cut fingerprint, want ErrBadFingerprint", err)
	}
	f.Centre = randomFingerprint(rand.New(rand.NewPCG(5, 6)), 7).Hashes
	if b, err = f.MarshalBinary(); err != nil {
		t.Fatal(err)
	}
	if err := g.UnmarshalBinary(b); err != nil || len(g.Centre) != 7 || g.Centre[3] != f.Centre[3] || g.Hashes[3] != f.Hashes[3] {
		t.Fatalf("round trip with centre hashes: %v", err)
	}
	for _, cut := range []int{len(b) - 40, len(centreMagic)} {
		if err := g.UnmarshalBinary(b[:cut]); !errors.Is(err, ErrBadFingerprint) {
			t.Fatalf("got %v for a fingerprint with centre hashes cut to %d bytes, want ErrBadFingerprint", err, cut)
		}
	}
	f.Centre = f.Centre[:3]
	if _, err := f.MarshalBinary(); !errors.Is(err, ErrBadFingerprint) {
		t.Fatalf("got %v for fewer centre hashes than frames, want ErrBadFingerprint", err)
	}
}

// TestMatchCentreCrop: a clip cropped to the centre hashes like the
// reference's centres, not its whole frames; it matches through them, and
// would not without them.
func TestMatchCentreCrop(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	ref := randomFingerprint(r, 12)
	ref.Centre = randomFingerprint(r, 12).Hashes
	var q Fingerprint
	for i := 2; i < 12; i++ {
		q.Hashes = append(q.Hashes, flip(ref.Centre[i], 25))
	}
	if m := MatchFingerprints(ref, q); !m.Matched || m.Offset != 2 || m.Near != 10 {
		t.Fatalf("centre-cropped clip: %+v, want all 10 frames near at offset 2", m)
	}
	if m := MatchFingerprints(Fingerprint{Hashes: ref.Hashes}, q); m.Matched {
		t.Fatalf("matched %+v without the centre hashes", m)
	}
}
