package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
)

// TestIndexPage pages through an index of six ids whose targets are
// missing for "c" and "e": those are left out, and each page still covers
// exactly limit index entries, so no id is skipped or repeated.
func TestIndexPage(t *testing.T) {
	st := openTest(t, t.TempDir())
	ctx := context.Background()
	prefix := []byte("idx/owner/")
	err := st.Update(ctx, func(tx Txn) error {
		for _, id := range []string{"a", "b", "c", "d", "e", "f"} {
			if err := tx.Set(append(slices.Clone(prefix), id...), nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	get := func(id string) (string, bool, error) { return "v" + id, id != "c" && id != "e", nil }
	want := [][]string{{"va", "vb"}, {"vd"}, {"vf"}}
	cursor := ""
	for i, w := range want {
		var p Page[string]
		err := st.View(ctx, func(tx Txn) (err error) {
			p, err = IndexPage(tx, prefix, cursor, 2, get)
			return err
		})
		if err != nil || !slices.Equal(p.Items, w) {
			t.Fatalf("page %d = %v, %v; want %v", i, p.Items, err, w)
		}
		if last := i == len(want)-1; last != (p.Next == "") {
			t.Fatalf("page %d: Next = %q, want a cursor on every page but the last", i, p.Next)
		}
		cursor = p.Next
	}

	boom := fmt.Errorf("boom")
	err = st.View(ctx, func(tx Txn) error {
		_, err := IndexPage(tx, prefix, "", 10, func(string) (string, bool, error) { return "", false, boom })
		return err
	})
	if !errors.Is(err, boom) {
		t.Errorf("IndexPage with a failing get = %v, want the get error", err)
	}
}
