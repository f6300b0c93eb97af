package content

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/phash"
)

// TestBurstKeepsEarliestClaim: a photo's first claim is 4 bits of its
// 64-bit hash from a query, and a burst of 100 later copies from ten
// accounts sits at distance 0, more than the pool's nearest places. The
// first claim is still a candidate, from the index kept since start and
// from one reloaded from the store (a restart orders it by claim time).
func TestBurstKeepsEarliestClaim(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	q := phash.Hash{P64: 0x0123_4567_89ab_cdef, P256: [4]uint64{1, 2, 3, 4}}
	firstHash := q
	firstHash.P64 ^= 0b1111 << 60 // another bucket of the store's first band, sorted after the burst's
	first := e.plant(e.newOwner("first@example.com", "First Photographer"), "First Photographer", firstHash)
	for a := range 10 {
		o := e.newOwner(fmt.Sprintf("outlet%d@example.com", a), fmt.Sprintf("Outlet %d", a))
		for i := range 10 {
			e.clk.Advance(time.Second)
			h := q
			h.P256[i%4] ^= 1 << (a + i)
			e.plant(o, fmt.Sprintf("Outlet %d", a), h)
		}
	}
	check := func(name string, s *Service) {
		t.Helper()
		cands, err := s.candidates(ctx, fromFacts(facts.Facts{PHash: q}))
		if err != nil {
			t.Fatal(err)
		}
		owners := map[string]bool{}
		found := false
		for _, c := range cands {
			owners[c.rec.Owner] = true
			found = found || c.rec.ID == first.ID
		}
		if !found {
			t.Errorf("%s: the first claim is not among the %d candidates", name, len(cands))
		}
		if len(owners) < 8 {
			t.Errorf("%s: candidates from %d accounts, want the slots shared", name, len(owners))
		}
	}
	check("index kept since start", e.svc)
	near, err := LoadNear(t.Context(), e.st, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := near.Len(); m != 101 {
		t.Fatalf("reloaded index holds %d hashes, want 101", m)
	}
	cfg := e.cfg
	cfg.Near.Index = near
	check("index reloaded from the store", e.service(cfg))
}
