package phindex

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/store/pgstore/pgtest"
	"github.com/provenant/provenant/origin/internal/store/storetest"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/phash"
)

// countingTxn counts the index entries a lookup reads (chunk bytes / 24;
// chunk 0's 2-byte header rounds away) and its reads: a Get or a GetMany
// is one read (one round trip on PostgreSQL). It passes GetMany through,
// so the store's multi-get is measured, not a fallback.
type countingTxn struct {
	store.Txn
	entries, reads, keys int
}

func (c *countingTxn) Get(k []byte) ([]byte, error) {
	v, err := c.Txn.Get(k)
	c.reads++
	c.keys++
	c.entries += len(v) / entryLen
	return v, err
}

func (c *countingTxn) GetMany(keys [][]byte) ([][]byte, error) {
	vs, err := store.GetMany(c.Txn, keys)
	c.reads++
	c.keys += len(keys)
	for _, v := range vs {
		c.entries += len(v) / entryLen
	}
	return vs, err
}

// BenchmarkLookupScale measures the index as verification uses it
// (Lookup with phash.CandidateDistance64, limit limits.DefaultMaxCandidates
// and the default entry budget) at registry sizes on Badger and on
// PostgreSQL, with synthetic uniformly random hashes loaded through
// BulkLoad. Per lookup it reports the latency p50/p99, the index entries
// read (what the budget bounds), the candidates returned (what the caller
// then loads and confirms with the 256-bit hash), the share of lookups
// the budget truncated, and the recall of near queries (a stored hash
// with 0..6 bits flipped). For the first 200 queries it also runs the
// lookup without limit or budget, to count every chance candidate the
// probes reach. Environment:
//
//	PHINDEX_SCALE_N       comma-separated sizes (default 1000000)
//	PHINDEX_SCALE_STORES  comma-separated: badger, postgres (default both)
//
// Run: nice -n 10 go test ./origin/internal/content/phindex -run '^$' -bench LookupScale -benchtime 2000x -timeout 60m
func BenchmarkLookupScale(b *testing.B) {
	sizes := scaleSizes(b)
	stores := []string{"badger", "postgres"}
	if v := os.Getenv("PHINDEX_SCALE_STORES"); v != "" {
		stores = strings.Split(v, ",")
	}
	var cluster *pgtest.Cluster
	for _, kind := range stores {
		for _, n := range sizes {
			var st store.Store
			switch kind {
			case "badger":
				st = storetest.Badger(b)
			case "postgres":
				if cluster == nil {
					cluster = pgtest.Start(b)
				}
				st = pgtest.Open(b, cluster.NewDatabase())
			default:
				b.Fatalf("PHINDEX_SCALE_STORES: unknown store %q", kind)
			}
			ix := Index{Prefix: []byte("rec/p/")}
			start := time.Now()
			hs := bulkLoad(b, st, ix, n, 7)
			b.Logf("%s: loaded %d records (%d index entries) in %v", kind, n, n*Bands, time.Since(start).Round(time.Second))
			for _, q := range []string{"near", "miss"} {
				b.Run(fmt.Sprintf("store=%s/n=%d/%s", kind, n, q), func(b *testing.B) {
					lookupScale(b, st, ix, hs, q == "near")
				})
			}
			hs = nil
			if kind == "badger" {
				_ = st.Close()
			}
		}
	}
}

func lookupScale(b *testing.B, st store.Store, ix Index, hs []phash.Hash, near bool) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	lat := make([]time.Duration, 0, b.N)
	entries := make([]int, 0, b.N)
	var cands, reads, keys, truncated, found, full, fullEntries int
	maxC := limits.DefaultMaxCandidates
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q, want := randHash(r), -1
		if near {
			want = r.IntN(len(hs))
			q = flip(r, hs[want], r.IntN(7))
		}
		var ms []Match
		var trunc bool
		ct := &countingTxn{}
		t0 := time.Now()
		err := st.View(ctx, func(tx store.Txn) error {
			ct.Txn, ct.entries, ct.reads, ct.keys = tx, 0, 0, 0
			var err error
			ms, trunc, err = ix.Lookup(ct, q, phash.CandidateDistance64, maxC, 0)
			return err
		})
		lat = append(lat, time.Since(t0))
		if err != nil {
			b.Fatal(err)
		}
		entries = append(entries, ct.entries)
		cands += len(ms)
		reads += ct.reads
		keys += ct.keys
		if trunc {
			truncated++
		}
		if want >= 0 && slices.ContainsFunc(ms, func(m Match) bool { return m.ID == idOf(want) }) {
			found++
		}
		if i < 200 {
			b.StopTimer()
			all := &countingTxn{}
			err := st.View(ctx, func(tx store.Txn) error {
				all.Txn = tx
				ms, _, err := ix.Lookup(all, q, phash.CandidateDistance64, 1<<30, 1<<30)
				full += len(ms)
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
			fullEntries += all.entries
			b.StartTimer()
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	slices.Sort(entries)
	n := float64(b.N)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(entries[len(entries)/2]), "entries-p50")
	b.ReportMetric(float64(entries[len(entries)*99/100]), "entries-p99")
	b.ReportMetric(float64(reads)/n, "reads/op")
	b.ReportMetric(float64(keys)/n, "keys/op")
	b.ReportMetric(float64(cands)/n, "cands/op")
	b.ReportMetric(100*float64(truncated)/n, "trunc-%")
	sample := float64(min(b.N, 200))
	b.ReportMetric(float64(full)/sample, "uncapped-cands/op")
	b.ReportMetric(float64(fullEntries)/sample, "uncapped-entries/op")
	if near {
		b.ReportMetric(100*float64(found)/n, "recall-%")
	}
}

// BenchmarkLookBeforeMarkScale measures the index as look-before-mark
// uses it at sign and register time: the upload's hash and its seven
// mirror and turn variants (phash.Hash.Dihedral) each looked up with
// radius 2 (lookRadius in content), candidate distance 14 and limit 64
// (4 × the 16 candidate slots), on Badger with synthetic uniformly random
// hashes loaded through BulkLoad. A near query is a stored hash with 0..10
// bits of its 64-bit hash flipped (mirrored or turned copies cropped 2 %
// land at 2..10, bench/README.md). Per operation (eight lookups) it
// reports latency p50/p99, entries read, candidates (which content then
// confirms on the 256-bit hash), truncated lookups, and the recall of the
// stored record. Environment:
//
//	PHINDEX_SCALE_N           comma-separated sizes (default 1000000)
//	PHINDEX_LOOK_PER_RECORD   index entries per record (default 1; 9 models
//	                          the geometric index of signed pictures, eight
//	                          edited hashes besides the record's own)
//
// Run: nice -n 10 go test ./origin/internal/content/phindex -run '^$' -bench LookBeforeMarkScale -benchtime 1000x -timeout 60m
func BenchmarkLookBeforeMarkScale(b *testing.B) {
	sizes := scaleSizes(b)
	per := 1
	if v := os.Getenv("PHINDEX_LOOK_PER_RECORD"); v != "" {
		var err error
		if per, err = strconv.Atoi(v); err != nil || per < 1 {
			b.Fatalf("PHINDEX_LOOK_PER_RECORD: %q", v)
		}
	}
	for _, n := range sizes {
		st := storetest.Badger(b)
		ix := Index{Prefix: []byte("rec/p/")}
		start := time.Now()
		hs := bulkLoad(b, st, ix, n, 7)
		if per > 1 {
			// The extra entries of every record: random hashes under its id.
			r := rand.New(rand.NewPCG(8, 1))
			ids := make([][16]byte, 0, n*(per-1))
			extra := make([]phash.Hash, 0, n*(per-1))
			for i := 0; i < n; i++ {
				for k := 1; k < per; k++ {
					ids, extra = append(ids, idOf(i)), append(extra, randHash(r))
				}
			}
			if err := ix.BulkLoad(context.Background(), st, ids, extra); err != nil {
				b.Fatal(err)
			}
		}
		b.Logf("loaded %d records × %d entries in %v", n, per, time.Since(start).Round(time.Second))
		for _, radius := range []int{1, 2} {
			ix := Index{Prefix: ix.Prefix, Radius: radius}
			b.Run(fmt.Sprintf("n=%d/per=%d/radius=%d", n, per, radius), func(b *testing.B) {
				ctx := context.Background()
				r := rand.New(rand.NewPCG(5, 6))
				lat := make([]time.Duration, 0, b.N)
				var entries, cands, truncated, found int
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					want := r.IntN(len(hs))
					q := flip(r, hs[want], r.IntN(11))
					ct := &countingTxn{}
					hit := false
					t0 := time.Now()
					err := st.View(ctx, func(tx store.Txn) error {
						ct.Txn = tx
						for _, v := range q.Dihedral() {
							ms, trunc, err := ix.Lookup(ct, v, phash.CandidateDistance64, 4*limits.DefaultMaxCandidates, 0)
							if err != nil {
								return err
							}
							cands += len(ms)
							if trunc {
								truncated++
							}
							hit = hit || slices.ContainsFunc(ms, func(m Match) bool { return m.ID == idOf(want) })
						}
						return nil
					})
					lat = append(lat, time.Since(t0))
					if err != nil {
						b.Fatal(err)
					}
					entries += ct.entries
					if hit {
						found++
					}
				}
				b.StopTimer()
				slices.Sort(lat)
				nf := float64(b.N)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
				b.ReportMetric(float64(entries)/nf, "entries/op")
				b.ReportMetric(float64(cands)/nf, "cands/op")
				b.ReportMetric(100*float64(truncated)/(8*nf), "trunc-%")
				b.ReportMetric(100*float64(found)/nf, "recall-%")
			})
		}
		_ = st.Close()
	}
}

// scaleSizes is PHINDEX_SCALE_N: the index sizes a scale benchmark runs
// at, one million by default.
func scaleSizes(b *testing.B) []int {
	v := os.Getenv("PHINDEX_SCALE_N")
	if v == "" {
		return []int{1_000_000}
	}
	var sizes []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			b.Fatalf("PHINDEX_SCALE_N: %q", f)
		}
		sizes = append(sizes, n)
	}
	return sizes
}
