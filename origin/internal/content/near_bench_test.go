package content

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/cputime"
	"github.com/provenant/provenant/internal/hamming"
	"github.com/provenant/provenant/internal/hamming/hammingtest"
	"github.com/provenant/provenant/origin/internal/content/nearindex"
	"github.com/provenant/provenant/origin/internal/content/phindex"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/store/pgstore/pgtest"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
)

// BenchmarkLoadNear measures an origin's start with the in-memory index:
// LoadNear reads the perceptual index's first band and the time index and
// sorts the entries by claim, on a store filled with CONTENT_NEAR_N
// (default 100,000) generated records (every band of the bucket index and
// the time keys; no geometric or video hashes). Then it runs 20,000
// lookups, one at a time, on the loaded index (half a stored hash with
// 0–8 bits flipped, half 9–14) and reports their wall-clock percentiles
// and the recall of the ≤ 8-bit copies.
//
//	CONTENT_NEAR_N=1000000 go test ./origin/internal/content -run '^$' -bench LoadNear -benchtime 1x
//	CONTENT_NEAR_STORE=postgres …   # a throwaway cluster (pgtest): initdb, pg_ctl
//	CONTENT_NEAR_DIR=/var/tmp/near10m …  # Badger: keep the filled store there and reuse it
//	CONTENT_NEAR_GEO=8 …  # also 8 geometric hashes per record; then a verify-only load (none) is measured too
//
// It reports the load's wall time and the process's CPU time during it
// (which other work on the machine does not inflate).
func BenchmarkLoadNear(b *testing.B) {
	n := 100_000
	if v := os.Getenv("CONTENT_NEAR_N"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n <= 0 {
			b.Fatalf("CONTENT_NEAR_N: %q", v)
		}
	}
	ctx := context.Background()
	var st store.Store
	kind := os.Getenv("CONTENT_NEAR_STORE")
	switch kind {
	case "", "badger":
		kind = "badger"
		dir := os.Getenv("CONTENT_NEAR_DIR")
		if dir == "" {
			dir = b.TempDir()
		}
		bs, err := store.Open(store.Config{Dir: dir})
		if err != nil {
			b.Fatal(err)
		}
		defer bs.Close()
		st = bs
	case "postgres":
		st = pgtest.Open(b, pgtest.Start(b).NewDatabase())
	default:
		b.Fatalf("CONTENT_NEAR_STORE: unknown store %q", kind)
	}
	geo := 0
	if v := os.Getenv("CONTENT_NEAR_GEO"); v != "" {
		var err error
		if geo, err = strconv.Atoi(v); err != nil || geo < 0 {
			b.Fatalf("CONTENT_NEAR_GEO: %q", v)
		}
	}
	g := hammingtest.Generate(n, 3, false)
	ids := make([][16]byte, n)
	hs := make([]phash.Hash, n)
	for i := range ids {
		ids[i], hs[i] = hammingtest.ID(i), phash.Hash{P64: g.P64[i]}
	}
	fill := time.Now()
	filled := false
	err := st.View(ctx, func(tx store.Txn) error {
		v, err := tx.Get([]byte(benchFilledKey))
		if filled = err == nil; filled && (len(v) != 1 || int(v[0]) != geo) {
			return fmt.Errorf("the kept store was filled with %v geometric hashes per record, not %d", v, geo)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	if !filled {
		fillNear(b, st, ids, hs, geo)
	}
	hs = nil
	fmt.Fprintf(os.Stderr, "LoadNear %s: filled %d records in %v (kept from an earlier run: %v)\n", kind, n, time.Since(fill).Round(time.Second), filled)
	b.ResetTimer()
	for range b.N {
		runtime.GC()
		cpu0 := cputime.Process()
		start := time.Now()
		near, err := LoadNear(ctx, st, nil)
		if err != nil {
			b.Fatal(err)
		}
		took, cpu := time.Since(start), cputime.Process()-cpu0
		if m, _ := near.Len(); m != n {
			b.Fatalf("loaded %d, want %d", m, n)
		}
		// Claim order: the first record's exact hash is found at Seq 0.
		ms := near.Main().Lookup(g.P64[0], 0)
		if len(ms) == 0 || ms[0].Seq != 0 || ms[0].ID != ids[0] {
			b.Fatalf("record 0 is not first in claim order: %+v", ms)
		}
		b.ReportMetric(took.Seconds(), "load-s")
		b.ReportMetric(float64(n)/took.Seconds(), "records/s")
		b.ReportMetric(cpu.Seconds(), "load-cpu-s")
		if geo > 0 {
			if _, gn := near.Len(); gn != n*geo {
				b.Fatalf("loaded %d geometric hashes, want %d", gn, n*geo)
			}
			full := near.Bytes()
			near = nil
			runtime.GC()
			cpu0, start := cputime.Process(), time.Now()
			vo := StartNear(ctx, st, nil, nearindex.Options{WithoutGeometric: true})
			<-vo.Done()
			fmt.Fprintf(os.Stderr, "LoadNear %s: with %d geometric hashes per record: %v (process CPU %v), %.0f B/record; verify-only (none): %v (process CPU %v), %.0f B/record\n",
				kind, geo, took.Round(time.Millisecond), cpu.Round(time.Millisecond), float64(full)/float64(n),
				time.Since(start).Round(time.Millisecond), (cputime.Process() - cpu0).Round(time.Millisecond), float64(vo.Bytes())/float64(n))
			near = vo
		}
		fmt.Fprintf(os.Stderr, "LoadNear %s: %d records in %v (process CPU %v), index %.1f B/record\n", kind, n, took.Round(time.Millisecond), cpu.Round(time.Millisecond), float64(near.Main().Bytes())/float64(n))

		r := rand.New(rand.NewPCG(3, 5))
		const queries = 20_000
		lat := make([]time.Duration, 0, queries)
		exact, found := 0, 0
		for q := range queries {
			k := r.IntN(n)
			d := r.IntN(hamming.DefaultExactRadius + 1)
			if q%2 == 1 {
				d = hamming.DefaultExactRadius + 1 + r.IntN(phash.CandidateDistance64-hamming.DefaultExactRadius)
			}
			h := hammingtest.FlipExact(r, g.P64[k], d)
			s := time.Now()
			got := near.Main().Lookup(h, phash.CandidateDistance64)
			lat = append(lat, time.Since(s))
			if d <= hamming.DefaultExactRadius {
				exact++
				for _, x := range got {
					if x.ID == ids[k] {
						found++
						break
					}
				}
			}
		}
		slices.Sort(lat)
		pct := func(p float64) time.Duration { return lat[int(p*float64(len(lat)-1))] }
		b.ReportMetric(float64(pct(0.5).Microseconds()), "lookup-p50-µs")
		b.ReportMetric(float64(pct(0.99).Microseconds()), "lookup-p99-µs")
		b.ReportMetric(100*float64(found)/float64(exact), "recall≤8-%")
		fmt.Fprintf(os.Stderr, "LoadNear %s: %d lookups, wall p50 %v p90 %v p99 %v p99.9 %v; ≤ 8 bits found %d of %d\n",
			kind, queries, pct(0.5), pct(0.9), pct(0.99), pct(0.999), found, exact)
	}
}

// benchFilledKey marks a store BenchmarkLoadNear filled completely, so
// that a kept CONTENT_NEAR_DIR is measured again without refilling.
const benchFilledKey = "bench/near-filled"

// fillNear writes the bucket index of ids/hs, geo geometric hashes per
// record (its hash with 4–12 bits flipped, as crops and small rotations
// move it) and their time keys.
func fillNear(b *testing.B, st store.Store, ids [][16]byte, hs []phash.Hash, geo int) {
	ctx := context.Background()
	if err := (phindex.Index{Prefix: []byte(pfxPHash)}).BulkLoad(ctx, st, ids, hs); err != nil {
		b.Fatal(err)
	}
	if geo > 0 {
		r := rand.New(rand.NewPCG(3, 8))
		gids, ghs := make([][16]byte, 0, geo*len(ids)), make([]phash.Hash, 0, geo*len(ids))
		for i, id := range ids {
			for range geo {
				gids = append(gids, id)
				ghs = append(ghs, phash.Hash{P64: hammingtest.FlipExact(r, hs[i].P64, 4+r.IntN(9))})
			}
		}
		if err := (phindex.Index{Prefix: []byte(pfxGeoIndex)}).BulkLoad(ctx, st, gids, ghs); err != nil {
			b.Fatal(err)
		}
	}
	t0 := time.Unix(1_700_000_000, 0)
	n := len(ids)
	for i := 0; i < n; i += 20_000 {
		err := st.Update(ctx, func(tx store.Txn) error {
			for j := i; j < min(i+20_000, n); j++ {
				k := pfxTime + timeSuffix(t0.Add(time.Duration(j)*time.Second), record.ID(ids[j]).String())
				if err := tx.Set([]byte(k), nil); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := st.Update(ctx, func(tx store.Txn) error { return tx.Set([]byte(benchFilledKey), []byte{byte(geo)}) }); err != nil {
		b.Fatal(err)
	}
}
