package nearindex

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/hamming"
	"github.com/provenant/provenant/internal/hamming/hammingtest"
	"github.com/provenant/provenant/origin/internal/content/phindex"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/store/storetest"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
)

var layout = Layout{Main: "t/p/", Geo: "t/q/", Video: "t/v/", Claims: "t/t/"}

// plant stores record i's hash p64 in the index under prefix and, when
// claimed is not negative, its claim in the time index at that rank.
func plant(t *testing.T, st store.Store, prefix string, i int, p64 uint64, claimed int) {
	t.Helper()
	id := record.ID(hammingtest.ID(i))
	err := st.Update(t.Context(), func(tx store.Txn) error {
		if err := (phindex.Index{Prefix: []byte(prefix)}).Add(tx, id, phash.Hash{P64: p64}); err != nil {
			return err
		}
		if claimed < 0 {
			return nil
		}
		return tx.Set(fmt.Appendf(nil, "%s%016x/%s", layout.Claims, claimed, id), nil)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// order returns the records of the matches of p64 in m, in the order
// they were added (Seq).
func order(m *hamming.Index, p64 uint64) []int {
	ms := m.LookupRadius(p64, 0, 1)
	out := make([]int, len(ms))
	for _, x := range ms {
		for i := range 16 {
			if x.ID == hammingtest.ID(i) {
				out[x.Seq] = i
			}
		}
	}
	return out
}

// TestLoadInClaimOrder: whatever order the index's buckets hold them in,
// the entries of one picture are added oldest claim first, a record
// missing from the time index last; each index is loaded from its own
// prefix.
func TestLoadInClaimOrder(t *testing.T) {
	st := storetest.Badger(t)
	const h = 0x0123_4567_89ab_cdef
	// Record 1 claimed first, then 3, then 0; record 2 has no claim.
	for _, p := range []struct{ i, claimed int }{{0, 30}, {1, 10}, {2, -1}, {3, 20}} {
		plant(t, st, layout.Main, p.i, h, p.claimed)
	}
	plant(t, st, layout.Geo, 5, h, 40)
	plant(t, st, layout.Video, 6, h, 50)
	plant(t, st, layout.Video, 7, h, 45)
	n, err := Load(t.Context(), st, layout, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := order(n.Main(), h), []int{1, 3, 0, 2}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("perceptual index in order %v, want %v", got, want)
	}
	if got := order(n.Geo(), h); fmt.Sprint(got) != "[5]" {
		t.Errorf("geometric index holds %v, want [5]", got)
	}
	if got := order(n.Video(), h); fmt.Sprint(got) != "[7 6]" {
		t.Errorf("video index in order %v, want [7 6]", got)
	}
	if m, g := n.Len(); m != 4 || g != 1 || n.VideoLen() != 2 {
		t.Errorf("Len = %d, %d and VideoLen %d; want 4, 1 and 2", m, g, n.VideoLen())
	}
}

// TestAddWhileLoading: while an Index loads, Ready and Wait say
// ErrLoading (Wait after Options.Wait) and a record added meanwhile is
// kept; once loaded it is in the index after the loaded ones, and a
// later Add is found at once. Without the geometric index, Geo is nil and
// an entry's geometric hashes are dropped.
func TestAddWhileLoading(t *testing.T) {
	st := storetest.Badger(t)
	const h = 0x00ff_00ff_00ff_00ff
	plant(t, st, layout.Main, 0, h, 1)
	open := make(chan struct{})
	// The load reads the three indexes' entries, then waits at the time
	// index for the gate.
	gated := &storetest.Gated{Store: st, Open: open, Free: 2}
	n := Start(t.Context(), gated, layout, nil, Options{WithoutGeometric: true, Wait: 20 * time.Millisecond})
	for gated.Views.Load() < 3 {
		time.Sleep(time.Millisecond)
	}
	if n.Geo() != nil {
		t.Fatal("Geo is held though WithoutGeometric")
	}
	if err := n.Ready(); !errors.Is(err, ErrLoading) {
		t.Fatalf("Ready while loading = %v, want ErrLoading", err)
	}
	begun := time.Now()
	if err := n.Wait(t.Context()); !errors.Is(err, ErrLoading) || time.Since(begun) < 20*time.Millisecond {
		t.Fatalf("Wait while loading = %v after %v, want ErrLoading after the configured wait", err, time.Since(begun))
	}
	if n.Loaded() {
		t.Fatal("Loaded while loading")
	}
	n.Add(Entry{ID: hammingtest.ID(1), Main: h, Geo: []uint64{h}, Video: []uint64{h}})
	close(open)
	<-n.Done()
	if err := n.Ready(); err != nil {
		t.Fatalf("Ready once loaded = %v", err)
	}
	if err := n.Wait(t.Context()); err != nil || !n.Loaded() {
		t.Fatalf("Wait once loaded = %v, Loaded %v", err, n.Loaded())
	}
	if got := order(n.Main(), h); fmt.Sprint(got) != "[0 1]" {
		t.Fatalf("perceptual index once loaded %v, want the loaded record then the added one [0 1]", got)
	}
	n.Add(Entry{ID: hammingtest.ID(2), Main: h})
	if got := order(n.Main(), h); fmt.Sprint(got) != "[0 1 2]" {
		t.Fatalf("perceptual index after a later add %v, want [0 1 2]", got)
	}
	if n.VideoLen() != 1 {
		t.Fatalf("video index holds %d hashes, want the added one", n.VideoLen())
	}
}

// TestNilIndex: a service without an in-memory index reads the store's
// buckets; a nil Index is always loaded and never waits.
func TestNilIndex(t *testing.T) {
	var n *Index
	if err := n.Wait(t.Context()); err != nil || !n.Loaded() {
		t.Fatalf("nil Index: Wait %v, Loaded %v; want nil, true", err, n.Loaded())
	}
}
