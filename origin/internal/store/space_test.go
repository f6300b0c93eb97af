package store_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/store"
)

// TestFreeSpaceMargin: under the free-space margin Update is refused with
// ErrNoSpace before anything is written, and writes resume once space is
// back (the reading is trusted for a second). Open under the margin opens
// read-only (TestOpenReadOnlyUnderMargin).
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

// TestOpenReadOnlyUnderMargin: an existing database opened under the
// free-space margin opens read-only: reads answer, writes fail with
// ErrNoSpace (nothing written), CheckSpace says read-only; once space is
// back the store reopens itself read-write and writes go through. A new
// database cannot be created under the margin.
func TestOpenReadOnlyUnderMargin(t *testing.T) {
	dir := t.TempDir()
	var free atomic.Int64
	free.Store(10 << 30)
	cfg := store.Config{Dir: dir, MinFreeBytes: 256 << 20, ReadOnlyRecheck: 20 * time.Millisecond,
		FreeSpace: func(string) (int64, error) { return free.Load(), nil }}
	b, err := store.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	set := func(b *store.Badger, k string) error {
		return b.Update(ctx, func(tx store.Txn) error { return tx.Set([]byte(k), []byte("v")) })
	}
	get := func(b *store.Badger, k string) error {
		return b.View(ctx, func(tx store.Txn) error { _, err := tx.Get([]byte(k)); return err })
	}
	if err := set(b, "a"); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}

	free.Store(100 << 20)
	b, err = store.Open(cfg)
	if err != nil {
		t.Fatalf("open under the margin: %v, want a read-only store", err)
	}
	defer b.Close()
	if !b.ReadOnly() {
		t.Fatal("opened under the margin but not read-only")
	}
	if err := get(b, "a"); err != nil {
		t.Fatalf("read while read-only: %v", err)
	}
	if err := set(b, "b"); !errors.Is(err, store.ErrNoSpace) {
		t.Fatalf("write while read-only: %v, want ErrNoSpace", err)
	}
	if err := b.CheckSpace(); !errors.Is(err, store.ErrNoSpace) || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("CheckSpace while read-only: %v, want ErrNoSpace saying read-only", err)
	}
	time.Sleep(100 * time.Millisecond)
	if !b.ReadOnly() {
		t.Fatal("left read-only while the space is still under the margin")
	}

	free.Store(10 << 30)
	deadline := time.Now().Add(10 * time.Second)
	for b.ReadOnly() {
		if time.Now().After(deadline) {
			t.Fatal("still read-only 10 s after the space came back")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := set(b, "b"); err != nil {
		t.Fatalf("write once read-write again: %v", err)
	}
	if err := get(b, "a"); err != nil {
		t.Fatalf("read once read-write again: %v", err)
	}
	if err := b.CheckSpace(); err != nil {
		t.Fatalf("CheckSpace once read-write again: %v", err)
	}

	free.Store(100 << 20)
	if _, err := store.Open(store.Config{Dir: t.TempDir() + "/new", MinFreeBytes: 256 << 20,
		FreeSpace: func(string) (int64, error) { return free.Load(), nil }}); !errors.Is(err, store.ErrNoSpace) {
		t.Fatalf("create a database under the margin: %v, want ErrNoSpace", err)
	}
}
