package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"
)

// vlogBytes sums the value-log files on disk (Badger's own Size figure is
// refreshed only once a minute).
func vlogBytes(t *testing.T, dir string) int64 {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".vlog") {
			fi, err := e.Info()
			if errors.Is(err, fs.ErrNotExist) {
				continue // GC deleted it since ReadDir
			}
			if err != nil {
				t.Fatal(err)
			}
			n += fi.Size()
		}
	}
	return n
}

func TestRunGCReclaimsDeletedValues(t *testing.T) {
	dir := t.TempDir()
	st, err := Open(Config{Dir: dir, ValueLogFileSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { st.Close() }()
	ctx := context.Background()
	val := bytes.Repeat([]byte("x"), 64<<10) // over the value threshold: lands in the value log
	const n = 160                            // 10 MiB: about ten 1 MiB files
	for i := range n {
		if err := st.Update(ctx, func(tx Txn) error { return tx.Set(fmt.Appendf(nil, "gc/%04d", i), val) }); err != nil {
			t.Fatal(err)
		}
	}
	// Keep one key alive so that the test also shows live data survives.
	for i := 1; i < n; i++ {
		if err := st.Update(ctx, func(tx Txn) error { return tx.Delete(fmt.Appendf(nil, "gc/%04d", i)) }); err != nil {
			t.Fatal(err)
		}
	}
	// Let compaction see the deletes, as it does over time in production
	// as memtables fill: each close flushes the memtable to a level-0
	// table, and past five of them Flatten compacts level 0 down, which
	// is when Badger counts the deleted values as garbage.
	for range 6 {
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		if st, err = Open(Config{Dir: dir, ValueLogFileSize: 1 << 20}); err != nil {
			t.Fatal(err)
		}
		if err := st.Update(ctx, func(tx Txn) error { return tx.Set([]byte("tick"), []byte("x")) }); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.db.Flatten(1); err != nil {
		t.Fatal(err)
	}
	before := vlogBytes(t, dir)
	gcCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); st.RunGC(gcCtx, 20*time.Millisecond, nil) }()
	deadline := time.Now().Add(20 * time.Second)
	after := vlogBytes(t, dir)
	for after > before/2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		after = vlogBytes(t, dir)
	}
	stop()
	<-done
	t.Logf("value log %d -> %d bytes", before, after)
	if after > before/2 {
		t.Errorf("value log %d -> %d bytes after the GC ticker ran; want at least half reclaimed", before, after)
	}
	err = st.View(ctx, func(tx Txn) error {
		v, err := tx.Get([]byte("gc/0000"))
		if err != nil || !bytes.Equal(v, val) {
			return fmt.Errorf("surviving key: %v (len %d)", err, len(v))
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}
