package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
)

func openTest(t *testing.T, dir string) *Badger {
	t.Helper()
	st, err := Open(Config{Dir: dir})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return st
}

// setKeys stores "v"+k under each key k, in one transaction, or ends the
// test.
func setKeys(t *testing.T, st Store, keys ...string) {
	t.Helper()
	err := st.Update(context.Background(), func(tx Txn) error {
		for _, k := range keys {
			if err := tx.Set([]byte(k), []byte("v"+k)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func TestGetSetDeleteScan(t *testing.T) {
	st := openTest(t, t.TempDir())
	defer st.Close()
	ctx := context.Background()
	setKeys(t, st, "a/1", "a/2", "a/3", "b/1")
	err := st.View(ctx, func(tx Txn) error {
		v, err := tx.Get([]byte("a/2"))
		if err != nil || string(v) != "va/2" {
			t.Errorf("Get(a/2) = %q, %v; want va/2", v, err)
		}
		if _, err := tx.Get([]byte("zz")); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(zz) err = %v, want ErrNotFound", err)
		}
		var got []string
		if err := tx.Scan([]byte("a/"), nil, func(k, _ []byte) error { got = append(got, string(k)); return nil }); err != nil {
			return err
		}
		if fmt.Sprint(got) != "[a/1 a/2 a/3]" {
			t.Errorf("Scan(a/) = %v, want [a/1 a/2 a/3]", got)
		}
		got = nil
		if err := tx.Scan([]byte("a/"), []byte("a/2"), func(k, _ []byte) error {
			got = append(got, string(k))
			return ErrStopIteration
		}); err != nil {
			t.Errorf("Scan with stop = %v, want nil", err)
		}
		if fmt.Sprint(got) != "[a/2]" {
			t.Errorf("Scan(a/, start a/2, stop) = %v, want [a/2]", got)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("View: %v", err)
	}
	if err := st.Update(ctx, func(tx Txn) error { return tx.Delete([]byte("a/2")) }); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	_ = st.View(ctx, func(tx Txn) error {
		if _, err := tx.Get([]byte("a/2")); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get after Delete err = %v, want ErrNotFound", err)
		}
		return nil
	})
}

func TestUpdateErrorRollsBack(t *testing.T) {
	st := openTest(t, t.TempDir())
	defer st.Close()
	sentinel := errors.New("domain says no")
	err := st.Update(context.Background(), func(tx Txn) error {
		if err := tx.Set([]byte("k"), []byte("v")); err != nil {
			return err
		}
		return sentinel
	})
	if !errors.Is(err, sentinel) {
		t.Fatalf("Update err = %v, want the callback's sentinel", err)
	}
	_ = st.View(context.Background(), func(tx Txn) error {
		if _, err := tx.Get([]byte("k")); !errors.Is(err, ErrNotFound) {
			t.Errorf("write of a failed Update is visible (err %v)", err)
		}
		return nil
	})
}

func TestReopenKeepsData(t *testing.T) {
	dir := t.TempDir()
	st := openTest(t, dir)
	if err := st.Update(context.Background(), func(tx Txn) error { return tx.Set([]byte("p"), []byte("persisted")) }); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	st = openTest(t, dir)
	defer st.Close()
	_ = st.View(context.Background(), func(tx Txn) error {
		v, err := tx.Get([]byte("p"))
		if err != nil || !bytes.Equal(v, []byte("persisted")) {
			t.Errorf("after reopen Get = %q, %v; want persisted", v, err)
		}
		return nil
	})
}

func TestScanPage(t *testing.T) {
	st := openTest(t, t.TempDir())
	defer st.Close()
	ctx := context.Background()
	_ = st.Update(ctx, func(tx Txn) error {
		for i := range 7 {
			_ = tx.Set([]byte(fmt.Sprintf("p/%02d", i)), nil)
		}
		return tx.Set([]byte("q/00"), nil)
	})
	var all []string
	cursor := ""
	for range 10 {
		var page []string
		err := st.View(ctx, func(tx Txn) error {
			next, err := ScanPage(tx, []byte("p/"), cursor, 3, func(k, _ []byte) error { page = append(page, string(k)); return nil })
			cursor = next
			return err
		})
		if err != nil {
			t.Fatalf("ScanPage: %v", err)
		}
		if len(page) > 3 {
			t.Fatalf("page of %d, limit 3", len(page))
		}
		all = append(all, page...)
		if cursor == "" {
			break
		}
	}
	if fmt.Sprint(all) != "[p/00 p/01 p/02 p/03 p/04 p/05 p/06]" {
		t.Errorf("pages = %v", all)
	}
	err := st.View(ctx, func(tx Txn) error {
		_, err := ScanPage(tx, []byte("p/"), "!!", 3, func(_, _ []byte) error { return nil })
		return err
	})
	if !errors.Is(err, ErrBadCursor) {
		t.Errorf("bad cursor err = %v, want ErrBadCursor", err)
	}
}

func TestCanceledContext(t *testing.T) {
	st := openTest(t, t.TempDir())
	defer st.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	called := false
	err := st.Update(ctx, func(Txn) error { called = true; return nil })
	if !errors.Is(err, context.Canceled) || called {
		t.Errorf("Update on canceled ctx = %v (fn called %v), want context.Canceled without calling fn", err, called)
	}
}
