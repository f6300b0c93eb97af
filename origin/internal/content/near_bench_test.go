package content

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/hamming/hammingtest"
	"github.com/provenant/provenant/origin/internal/content/phindex"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
)

// BenchmarkLoadNear measures an origin's start with the in-memory index:
// LoadNear reads the perceptual index's first band and the time index and
// sorts the entries by claim, on Badger filled with CONTENT_NEAR_N
// (default 100,000) generated records (index entries and time keys only).
//
//	CONTENT_NEAR_N=1000000 go test ./origin/internal/content -run '^$' -bench LoadNear -benchtime 1x
func BenchmarkLoadNear(b *testing.B) {
	n := 100_000
	if v := os.Getenv("CONTENT_NEAR_N"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n <= 0 {
			b.Fatalf("CONTENT_NEAR_N: %q", v)
		}
	}
	ctx := context.Background()
	st, err := store.Open(store.Config{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	g := hammingtest.Generate(n, 3, false)
	ids := make([][16]byte, n)
	hs := make([]phash.Hash, n)
	for i := range ids {
		ids[i], hs[i] = hammingtest.ID(i), phash.Hash{P64: g.P64[i]}
	}
	if err := (phindex.Index{Prefix: []byte(pfxPHash)}).BulkLoad(ctx, st, ids, hs); err != nil {
		b.Fatal(err)
	}
	t0 := time.Unix(1_700_000_000, 0)
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
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		near, err := LoadNear(ctx, st, nil)
		if err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		if m, _ := near.Len(); m != n {
			b.Fatalf("loaded %d, want %d", m, n)
		}
		// Claim order: the first record's exact hash is found at Seq 0.
		ms := near.main.Lookup(g.P64[0], 0)
		if len(ms) == 0 || ms[0].Seq != 0 || ms[0].ID != ids[0] {
			b.Fatalf("record 0 is not first in claim order: %+v", ms)
		}
		b.ReportMetric(took.Seconds(), "load-s")
		b.ReportMetric(float64(n)/took.Seconds(), "records/s")
		fmt.Fprintf(os.Stderr, "LoadNear: %d records in %v\n", n, took.Round(time.Millisecond))
	}
}
