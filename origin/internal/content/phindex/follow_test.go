package phindex

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/store/pgstore/pgtest"
	"github.com/provenant/provenant/shared/phash"
)

// TestMemFollowsAnotherOrigin: an index loaded from PostgreSQL, then a
// record committed through another connection (another origin), is found
// by an in-memory lookup after one catch-up, and a lookup never reads the
// store's buckets (it is answered with a nil transaction).
func TestMemFollowsAnotherOrigin(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Start(t).NewDatabase()
	here, there := pgtest.Open(t, url), pgtest.Open(t, url)
	ix := Index{Prefix: []byte("rec/p/")}
	r := rand.New(rand.NewPCG(8, 9))
	hs := make([]phash.Hash, 300)
	ids := make([][16]byte, len(hs))
	for i := range hs {
		hs[i], ids[i] = randHash(r), idOf(i)
	}
	if err := ix.BulkLoad(ctx, here, ids[:200], hs[:200]); err != nil {
		t.Fatal(err)
	}
	m, cursor, err := ix.LoadMem(ctx, here)
	if err != nil {
		t.Fatal(err)
	}
	if m.Len() != 200 {
		t.Fatalf("loaded %d, want 200", m.Len())
	}
	for i := 200; i < 300; i++ {
		if err := there.Update(ctx, func(tx store.Txn) error { return ix.Add(tx, ids[i], hs[i]) }); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ix.CatchUp(ctx, here, m, cursor); err != nil {
		t.Fatal(err)
	}
	if m.Len() != 300 {
		t.Fatalf("after catching up: %d hashes, want 300 (each once)", m.Len())
	}
	mem := ix
	mem.Mem = m
	for i := range hs {
		q := flip(r, hs[i], 8)
		ms, trunc, err := mem.Lookup(nil, q, phash.CandidateDistance64, 16, 1)
		if err != nil || trunc {
			t.Fatalf("lookup: %v, truncated %v", err, trunc)
		}
		found := false
		for _, x := range ms {
			found = found || x.ID == ids[i]
		}
		if !found {
			t.Fatalf("record %d, 8 bits away, not found", i)
		}
	}
}
