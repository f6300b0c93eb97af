package store

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// rereadStore runs every View twice, as pgstore does after a lost
// connection, over a real Badger.
type rereadStore struct{ *Badger }

func (s rereadStore) View(ctx context.Context, fn func(Txn) error) error {
	if err := s.Badger.View(ctx, fn); err != nil {
		return err
	}
	return s.Badger.View(ctx, fn)
}

// TestCollect: the items come in key order, only from under the prefix,
// once each even when the store reads again; an empty listing is an empty
// slice, not nil; get's error ends the read and comes back unchanged.
func TestCollect(t *testing.T) {
	st := openTest(t, t.TempDir())
	defer st.Close()
	ctx := context.Background()
	setKeys(t, st, "c/2", "c/1", "c/3", "d/1")
	value := func(tx Txn, k []byte) (string, error) {
		v, err := tx.Get(k)
		return string(v), err
	}
	for _, s := range []Store{st, rereadStore{st}} {
		got, err := Collect(ctx, s, []byte("c/"), value)
		if err != nil || !slices.Equal(got, []string{"vc/1", "vc/2", "vc/3"}) {
			t.Errorf("Collect(c/) over %T = %q, %v; want vc/1 vc/2 vc/3 once each", s, got, err)
		}
	}
	if got, err := Collect(ctx, st, []byte("e/"), value); err != nil || got == nil || len(got) != 0 {
		t.Errorf("Collect(e/) = %#v, %v; want an empty, non-nil slice", got, err)
	}
	boom := errors.New("boom")
	calls := 0
	_, err := Collect(ctx, st, []byte("c/"), func(Txn, []byte) (string, error) { calls++; return "", boom })
	if !errors.Is(err, boom) || calls != 1 {
		t.Errorf("Collect with a failing get: %v after %d calls; want boom after 1", err, calls)
	}
}
