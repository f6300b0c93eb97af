package phindex

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/store/storetest"
	"github.com/provenant/provenant/shared/phash"
)

func randHash(r *rand.Rand) phash.Hash {
	return phash.Hash{P64: r.Uint64(), P256: [4]uint64{r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()}}
}

// flip returns h with d distinct random bits of the 64-bit hash flipped.
func flip(r *rand.Rand, h phash.Hash, d int) phash.Hash {
	for _, i := range r.Perm(64)[:d] {
		h.P64 ^= 1 << i
	}
	return h
}

func idOf(i int) [16]byte {
	var id [16]byte
	copy(id[:], fmt.Sprintf("%016d", i))
	return id
}

// bulkLoad indexes n random hashes with Index.BulkLoad: a million
// single-record Updates would each pay an fsync and a read-modify-write
// per band.
func bulkLoad(tb testing.TB, st store.Store, ix Index, n int, seed uint64) []phash.Hash {
	tb.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	hs := make([]phash.Hash, n)
	ids := make([][16]byte, n)
	for i := range hs {
		hs[i], ids[i] = randHash(r), idOf(i)
	}
	if err := ix.BulkLoad(context.Background(), st, ids, hs); err != nil {
		tb.Fatal(err)
	}
	return hs
}

func TestProbes(t *testing.T) {
	for _, tt := range []struct{ radius, want int }{{0, 4}, {1, 68}, {2, 548}, {3, 2788}} {
		n := 0
		_ = forEachWithin(0xBEEF, tt.radius, func(x uint16) error {
			if d := bits.OnesCount16(x ^ 0xBEEF); d > tt.radius {
				t.Errorf("radius %d: probe %04x at distance %d", tt.radius, x, d)
			}
			n++
			return nil
		})
		if n*Bands != tt.want {
			t.Errorf("radius %d: %d probes, want %d", tt.radius, n*Bands, tt.want)
		}
		if tt.radius > 0 {
			if got := (Index{Radius: tt.radius}).Probes(); got != tt.want {
				t.Errorf("Probes(radius %d) = %d, want %d", tt.radius, got, tt.want)
			}
		}
	}
}

// TestRecallGuarantee checks the pigeonhole bound: with radius r every
// hash within Bands·(r+1)−1 bits is found.
func TestRecallGuarantee(t *testing.T) {
	st := storetest.Badger(t)
	for _, radius := range []int{1, 2} {
		ix := Index{Prefix: []byte("t" + strconv.Itoa(radius) + "/"), Radius: radius}
		hs := bulkLoad(t, st, ix, 3000, uint64(radius))
		r := rand.New(rand.NewPCG(99, uint64(radius)))
		guarantee := Bands*(radius+1) - 1
		for trial := 0; trial < 300; trial++ {
			i := r.IntN(len(hs))
			d := r.IntN(guarantee + 1)
			q := flip(r, hs[i], d)
			var ms []Match
			err := st.View(context.Background(), func(tx store.Txn) (err error) {
				ms, _, err = ix.Lookup(tx, q, 64, 50, 100000)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(ms, func(m Match) bool { return m.ID == idOf(i) && m.D64 == d }) {
				t.Fatalf("radius %d: hash %d at distance %d not found (got %d matches)", radius, i, d, len(ms))
			}
		}
	}
}

func TestLookupFiltersRanksAndRemoves(t *testing.T) {
	st := storetest.Badger(t)
	ix := Index{Prefix: []byte("x/")}
	base := phash.Hash{P64: 0x0123456789ABCDEF}
	near := base
	near.P64 ^= 1
	far := base
	far.P64 ^= 0xFFFF // 16 bits off: beyond max64
	err := st.Update(context.Background(), func(tx store.Txn) error {
		for i, h := range []phash.Hash{near, base, far} {
			if err := ix.Add(tx, idOf(i), h); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	lookup := func() []Match {
		var ms []Match
		_ = st.View(context.Background(), func(tx store.Txn) (err error) {
			ms, _, err = ix.Lookup(tx, base, phash.CandidateDistance64, 10, 0)
			return err
		})
		return ms
	}
	ms := lookup()
	if len(ms) != 2 || ms[0].ID != idOf(1) || ms[1].ID != idOf(0) || ms[1].D64 != 1 {
		t.Fatalf("Lookup = %+v, want base (id 1) then near (id 0, D64 1), far filtered out", ms)
	}
	_ = st.Update(context.Background(), func(tx store.Txn) error { return ix.Remove(tx, idOf(1), base) })
	if ms := lookup(); len(ms) != 1 || ms[0].ID != idOf(0) {
		t.Fatalf("after Remove, Lookup = %+v, want only id 0", ms)
	}
}

// TestTruncatedLookupReadsExactBandsFirst: when the entry budget stops a
// lookup (a large registry), the buckets holding the query's own band
// values have been read in every band before any neighbour bucket, so a
// record sharing one band with the query exactly (here the last band; 6
// bits away) is found although 160 entries in the first band's neighbour
// buckets exceed the budget of 50.
func TestTruncatedLookupReadsExactBandsFirst(t *testing.T) {
	st := storetest.Badger(t)
	ix := Index{Prefix: []byte("x/")}
	q := phash.Hash{P64: 0}
	// Bands 0..2 two bits off, band 3 identical.
	target := phash.Hash{P64: 0x0003_0003_0003_0000}
	err := st.Update(context.Background(), func(tx store.Txn) error {
		if err := ix.Add(tx, idOf(0), target); err != nil {
			return err
		}
		n := 1
		for i := 0; i < BandBits; i++ {
			for range 10 {
				// One bit off in band 0, far in the others.
				h := phash.Hash{P64: uint64(1)<<(48+i) | 0x0000_FFFF_FFFF_FFFF}
				if err := ix.Add(tx, idOf(n), h); err != nil {
					return err
				}
				n++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var ms []Match
	var truncated bool
	err = st.View(context.Background(), func(tx store.Txn) (err error) {
		ms, truncated, err = ix.Lookup(tx, q, phash.CandidateDistance64, 4, 50)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if !truncated {
		t.Fatal("lookup not truncated: the test's budget does not bind")
	}
	if len(ms) == 0 || ms[0].ID != idOf(0) || ms[0].D64 != 6 {
		t.Fatalf("Lookup = %+v, want the record sharing band 3 (D64 6)", ms)
	}
}

// BenchmarkLookup measures near-duplicate lookups over an index of
// PHINDEX_BENCH_N records (default 1,000,000; 100,000 with -short),
// loaded with bulkLoad, at DefaultRadius (and radius 2 when
// PHINDEX_BENCH_RADIUS2 is set). Reported: ns/op (mean) and p50/p99 in µs.
//
//	go test ./origin/records/phindex -run '^$' -bench Lookup -benchtime 2000x -timeout 30m
func BenchmarkLookup(b *testing.B) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	if v, err := strconv.Atoi(os.Getenv("PHINDEX_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	st := storetest.Badger(b)
	ix := Index{Prefix: []byte("rec/p/")}
	start := time.Now()
	hs := bulkLoad(b, st, ix, n, 7)
	b.Logf("loaded %d records (%d index keys) in %v", n, n*Bands, time.Since(start).Round(time.Millisecond))
	radii := []int{DefaultRadius}
	if os.Getenv("PHINDEX_BENCH_RADIUS2") != "" {
		radii = append(radii, 2)
	}
	for _, radius := range radii {
		for _, kind := range []string{"near", "miss"} {
			b.Run(fmt.Sprintf("n=%d/radius=%d/%s", n, radius, kind), func(b *testing.B) {
				ix := Index{Prefix: ix.Prefix, Radius: radius}
				r := rand.New(rand.NewPCG(3, 4))
				lat := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					q := randHash(r)
					if kind == "near" {
						q = flip(r, hs[r.IntN(len(hs))], r.IntN(7))
					}
					t0 := time.Now()
					err := st.View(context.Background(), func(tx store.Txn) error {
						_, _, err := ix.Lookup(tx, q, phash.CandidateDistance64, 16, 0)
						return err
					})
					lat = append(lat, time.Since(t0))
					if err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
			})
		}
	}
}

// TestChunkedBuckets puts more than two chunks' worth of records in one
// bucket, through Add and BulkLoad, removes one from the first chunk, and
// checks that every other record is still found.
func TestChunkedBuckets(t *testing.T) {
	st := storetest.Badger(t)
	ix := Index{Prefix: []byte("c/")}
	const n = 2*ChunkEntries + 5
	hs := make([]phash.Hash, n)
	ids := make([][16]byte, n)
	for i := range hs {
		hs[i] = phash.Hash{P64: 0xAAAA_0000_0000_0000 | uint64(i), P256: [4]uint64{uint64(i)}}
		ids[i] = idOf(i)
	}
	half := n / 2
	if err := ix.BulkLoad(context.Background(), st, ids[:half], hs[:half]); err != nil {
		t.Fatal(err)
	}
	err := st.Update(context.Background(), func(tx store.Txn) error {
		for i := half; i < n; i++ {
			if err := ix.Add(tx, ids[i], hs[i]); err != nil {
				return err
			}
		}
		return ix.Remove(tx, ids[0], hs[0])
	})
	if err != nil {
		t.Fatal(err)
	}
	var ms []Match
	_ = st.View(context.Background(), func(tx store.Txn) (err error) {
		ms, _, err = ix.Lookup(tx, phash.Hash{P64: 0xAAAA_0000_0000_0000}, 64, 100, 0)
		return err
	})
	if len(ms) != n-1 {
		t.Fatalf("Lookup found %d records, want %d", len(ms), n-1)
	}
	if slices.ContainsFunc(ms, func(m Match) bool { return m.ID == ids[0] }) {
		t.Error("removed record still found")
	}
}
