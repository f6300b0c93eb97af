package pgstore_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/store/pgstore/pgtest"
)

// TestChangesMissesNoCommit checks the change feed's cursor: a write
// committed after the cursor was taken is returned by the next call, even
// when its transaction had begun (and written) before and later
// transactions had committed by then, and keys outside
// the prefix are not returned.
func TestChangesMissesNoCommit(t *testing.T) {
	ctx := context.Background()
	st := pgtest.Open(t, pgtest.Start(t).NewDatabase())
	set := func(k string) {
		t.Helper()
		if err := st.Update(ctx, func(tx store.Txn) error { return tx.Set([]byte(k), []byte("v")) }); err != nil {
			t.Fatal(err)
		}
	}
	changes := func(since []byte) ([]string, []byte) {
		t.Helper()
		var got []string
		next, err := st.Changes(ctx, []byte("p/"), since, func(k, _ []byte) error {
			got = append(got, string(k))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		return got, next
	}
	set("p/before")
	_, cur := changes(nil)
	set("p/a")
	set("q/outside")

	// A transaction that writes, then waits while the feed is read.
	wrote, release, done := make(chan struct{}), make(chan struct{}), make(chan error)
	go func() {
		done <- st.Update(ctx, func(tx store.Txn) error {
			if err := tx.Set([]byte("p/slow"), []byte("v")); err != nil {
				return err
			}
			if _, err := tx.Get([]byte("p/a")); err != nil { // sends the write
				return err
			}
			select {
			case <-wrote:
			default:
				close(wrote)
			}
			<-release
			return nil
		})
	}()
	<-wrote
	set("p/c") // commits while the slow transaction runs
	got, cur := changes(cur)
	if want := []string{"p/a", "p/c"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("changes = %v, want %v", got, want)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	set("p/b")
	got, _ = changes(cur)
	if !slices.Contains(got, "p/slow") || !slices.Contains(got, "p/b") || slices.Contains(got, "p/before") {
		t.Fatalf("changes after the slow commit = %v, want p/slow and p/b, not p/before", got)
	}
}
