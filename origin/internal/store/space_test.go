package store_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/store"
)

// TestFreeSpaceMargin: under the free-space margin Update is refused with
// ErrNoSpace before anything is written, Open refuses to start, and writes
// resume once space is back (the reading is trusted for a second).
func TestFreeSpaceMargin(t *testing.T) {
	dir := t.TempDir()
	var free atomic.Int64
	free.Store(10 << 30)
	cfg := store.Config{Dir: dir, MinFreeBytes: 256 << 20, FreeSpace: func(string) (int64, error) { return free.Load(), nil }}
	b, err := store.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	set := func(k string) error {
		return b.Update(ctx, func(tx store.Txn) error { return tx.Set([]byte(k), []byte("v")) })
	}
	if err := set("a"); err != nil {
		t.Fatal(err)
	}
	free.Store(100 << 20)
	time.Sleep(1100 * time.Millisecond) // past the cached reading
	if err := set("b"); !errors.Is(err, store.ErrNoSpace) {
		t.Fatalf("write with 100 MiB free: %v, want ErrNoSpace", err)
	}
	if err := b.CheckSpace(); !errors.Is(err, store.ErrNoSpace) {
		t.Fatalf("CheckSpace: %v, want ErrNoSpace", err)
	}
	err = b.View(ctx, func(tx store.Txn) error {
		if _, err := tx.Get([]byte("a")); err != nil {
			return err
		}
		if _, err := tx.Get([]byte("b")); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("the refused write left b: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reads under the margin: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Open(cfg); !errors.Is(err, store.ErrNoSpace) {
		t.Fatalf("open with 100 MiB free: %v, want ErrNoSpace", err)
	}
	free.Store(10 << 30)
	b, err = store.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := set("b"); err != nil {
		t.Fatalf("write once space is back: %v", err)
	}
	if _, err := store.FreeSpace(dir); err != nil {
		t.Fatalf("statfs of a real directory: %v", err)
	}
}
