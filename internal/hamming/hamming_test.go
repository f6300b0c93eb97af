package hamming

import (
	"math/bits"
	"math/rand/v2"
	"sync"
	"testing"
)

// flip returns h with d distinct random bits flipped.
func flip64(r *rand.Rand, h uint64, d int) uint64 {
	for _, i := range r.Perm(64)[:d] {
		h ^= 1 << i
	}
	return h
}

func memID(i int) (id [16]byte) {
	id[0], id[1], id[2], id[3] = byte(i>>24), byte(i>>16), byte(i>>8), byte(i)
	return id
}

// TestIndexFindsEveryHashWithinEightBits checks the pigeonhole guarantee:
// every stored hash within DefaultExactRadius of a query is returned, whether
// it is in the sorted part or the unsorted tail, with adversarial
// placements of the differing bits (all in one substring, spread evenly).
func TestIndexFindsEveryHashWithinEightBits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name    string
		n       int
		freeze  bool
		compact bool
	}{
		{"sorted", 20000, true, false},
		{"sorted compact", 20000, true, true},
		{"unsorted tail", 3000, false, false},
		{"small directory", 50, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New()
			if tc.compact {
				m = NewCompact()
			}
			hs := make([]uint64, tc.n)
			for i := range hs {
				hs[i] = r.Uint64()
				m.Add(memID(i), hs[i])
			}
			if tc.freeze {
				m.Freeze()
			}
			// Patterns of 8 flipped bits: random, 3+3+2 over the three
			// substrings (the worst case), and 8 in one substring.
			patterns := []func(uint64) uint64{
				func(h uint64) uint64 { return flip64(r, h, 1+r.IntN(DefaultExactRadius)) },
				func(h uint64) uint64 { return h ^ 0b111<<42 ^ 0b111<<21 ^ 0b11 },
				func(h uint64) uint64 { return h ^ 0b11<<43 ^ 0b111<<23 ^ 0b111<<3 },
				func(h uint64) uint64 { return h ^ 0xff<<50 },
			}
			for i := 0; i < 2000; i++ {
				k := r.IntN(tc.n)
				q := patterns[i%len(patterns)](hs[k])
				d := bits.OnesCount64(q ^ hs[k])
				found := false
				ms := m.Lookup(q, 14)
				for j, x := range ms {
					if x.ID == memID(k) && x.D64 == d {
						found = true
					}
					if j > 0 && ms[j-1].D64 > x.D64 {
						t.Fatalf("matches not nearest first: %d before %d", ms[j-1].D64, x.D64)
					}
				}
				if !found {
					t.Fatalf("hash %d at distance %d not found (%d matches)", k, d, len(ms))
				}
			}
		})
	}
}

// TestIndexRadiusThreeFindsElevenBits checks ExactRadius(3).
func TestIndexRadiusThreeFindsElevenBits(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	m := New()
	hs := make([]uint64, 5000)
	for i := range hs {
		hs[i] = r.Uint64()
		m.Add(memID(i), hs[i])
	}
	m.Freeze()
	for i := 0; i < 1000; i++ {
		k := r.IntN(len(hs))
		q := hs[k] ^ 0b1111<<42 ^ 0b1111<<21 ^ 0b111 // 11 bits, 4+4+3
		if i%2 == 1 {
			q = flip64(r, hs[k], ExactRadius(3))
		}
		found := false
		for _, x := range m.LookupRadius(q, 14, 3) {
			found = found || x.ID == memID(k)
		}
		if !found {
			t.Fatalf("hash %d at distance 11 not found with radius 3", k)
		}
	}
}

// TestIndexAddIsIdempotent: a pair added twice (write path and change feed)
// is indexed once; the same id under another hash is a second entry.
func TestIndexAddIsIdempotent(t *testing.T) {
	m := New()
	m.Add(memID(1), 42)
	m.Freeze()
	m.Add(memID(1), 42)
	m.Add(memID(2), 42)
	m.Add(memID(2), 42)
	m.Add(memID(1), 43)
	if n := m.Len(); n != 3 {
		t.Fatalf("Len = %d, want 3", n)
	}
	if ms := m.Lookup(42, 0); len(ms) != 2 {
		t.Fatalf("exact lookup found %d, want 2", len(ms))
	}
}

// TestIndexConcurrentAddsAndLookups runs lookups while adds trigger
// background rebuilds (go test -race checks the publication), and checks
// that every hash added before a lookup began is found by it.
func TestIndexConcurrentAddsAndLookups(t *testing.T) {
	m := New()
	m.freezeEvery = 500
	const n = 6000
	hs := make([]uint64, n)
	r := rand.New(rand.NewPCG(5, 6))
	for i := range hs {
		hs[i] = r.Uint64()
	}
	var mu sync.Mutex
	added := 0
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range hs {
			m.Add(memID(i), hs[i])
			mu.Lock()
			added = i + 1
			mu.Unlock()
		}
	}()
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 7))
			for i := 0; i < 3000; i++ {
				mu.Lock()
				a := added
				mu.Unlock()
				if a == 0 {
					continue
				}
				k := r.IntN(a)
				q := flip64(r, hs[k], r.IntN(DefaultExactRadius+1))
				found := false
				for _, x := range m.Lookup(q, DefaultExactRadius) {
					found = found || x.ID == memID(k)
				}
				if !found {
					t.Errorf("hash %d not found during adds", k)
					return
				}
			}
		}(uint64(w))
	}
	wg.Wait()
}

// TestAddManyAdoptsWithoutAliasingLaterAdds: a load into an empty index
// keeps the caller's slices, and a later Add neither writes into their
// spare capacity nor loses the loaded hashes.
func TestAddManyAdoptsWithoutAliasingLaterAdds(t *testing.T) {
	ids := make([][16]byte, 2, 8)
	p64 := make([]uint64, 2, 8)
	ids[0], ids[1] = memID(1), memID(2)
	p64[0], p64[1] = 0xF0, 0x0F
	m := New()
	m.AddMany(ids, p64)
	m.Freeze()
	m.Add(memID(3), 0xFF)
	if spare := p64[:3][2]; spare != 0 {
		t.Errorf("Add wrote %#x into the loaded slice's spare capacity", spare)
	}
	for i, h := range []uint64{0xF0, 0x0F, 0xFF} {
		ms := m.Lookup(h, 0)
		if len(ms) != 1 || ms[0].ID != memID(i+1) {
			t.Errorf("hash %#x: %+v, want record %d", h, ms, i+1)
		}
	}
}
