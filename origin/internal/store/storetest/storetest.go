// Package storetest is the conformance suite of store.Store: one set of
// tests every backend runs (Badger and PostgreSQL today), so that a domain
// package sees the same contract whichever backend the origin opens; and
// Badger, the throwaway store a domain package's tests run on. It is
// imported by tests only.
package storetest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/store"
)

// Backend tells the suite how to make stores of one implementation.
type Backend struct {
	// New prepares an empty location (a directory, a database URL) for a
	// store and returns it.
	New func(t *testing.T) string
	// Open opens the store at a location returned by New, in the test's
	// process or in the writer child of the durability test.
	Open func(loc string) (store.Store, error)
	// Crash, when set, crashes whatever holds the data apart from the
	// store's own process (the database server, with SIGKILL) and brings
	// it back; the durability test calls it after killing its writer.
	Crash func(t *testing.T)
}

// Badger opens a Badger store in a new temporary directory and closes it
// when the test ends; a store that does not open fails the test.
func Badger(tb testing.TB) *store.Badger {
	tb.Helper()
	st, err := store.Open(store.Config{Dir: tb.TempDir()})
	if err != nil {
		tb.Fatalf("storetest: open Badger: %v", err)
	}
	tb.Cleanup(func() { _ = st.Close() })
	return st
}

// Gated wraps a store so that its reads after the first Free wait until
// Open is closed, or until their context ends: whatever loads from it
// (a near-duplicate index at start) takes as long as a test wants. Views
// counts the reads begun, the waiting ones included.
type Gated struct {
	store.Store
	Open  chan struct{}
	Free  int32
	Views atomic.Int32
}

// View waits at the gate, then reads from the wrapped store.
func (g *Gated) View(ctx context.Context, fn func(store.Txn) error) error {
	if g.Views.Add(1) > g.Free {
		select {
		case <-g.Open:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return g.Store.View(ctx, fn)
}

// childEnv carries the location to a writer child; see ChildMain.
const childEnv = "PROVENANT_STORETEST_WRITER"

// ChildMain must be called first thing in the TestMain of every package
// that calls Run: in the writer child of the durability test it writes
// until it is killed and never returns; otherwise it returns at once.
func ChildMain(open func(loc string) (store.Store, error)) {
	loc, ok := os.LookupEnv(childEnv)
	if !ok {
		return
	}
	st, err := open(loc)
	if err != nil {
		fmt.Fprintln(os.Stderr, "storetest writer:", err)
		os.Exit(2)
	}
	val := bytes.Repeat([]byte("d"), 2048) // above Badger's value-log threshold
	for i := 0; ; i++ {
		err := st.Update(context.Background(), func(tx store.Txn) error {
			if err := tx.Set(durKey(i, "a"), val); err != nil {
				return err
			}
			return tx.Set(durKey(i, "b"), []byte(strconv.Itoa(i)))
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "storetest writer:", err)
			os.Exit(2)
		}
		// Acknowledged only after Update returned nil: from here on the
		// contract says the pair survives a crash.
		fmt.Fprintf(os.Stdout, "%d\n", i)
	}
}

func durKey(i int, half string) []byte { return fmt.Appendf(nil, "dur/%08d/%s", i, half) }

// Run runs the conformance suite against b.
func Run(t *testing.T, b Backend) {
	tests := []struct {
		name string
		fn   func(*testing.T, Backend)
	}{
		{"GetSetDelete", testGetSetDelete},
		{"Ordering", testOrdering},
		{"ScanStart", testScanStart},
		{"ScanPages", testScanPages},
		{"ReadYourWrites", testReadYourWrites},
		{"GetMany", testGetMany},
		{"ErrorRollsBack", testErrorRollsBack},
		{"ViewSnapshot", testViewSnapshot},
		{"ConcurrentIncrements", testConcurrentIncrements},
		{"NoWriteSkew", testNoWriteSkew},
		{"ConflictRetried", testConflictRetried},
		{"LargeTransaction", testLargeTransaction},
		{"CanceledContext", testCanceledContext},
		{"DurableAcrossKill", testDurableAcrossKill},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, b) })
	}
}

func open(t *testing.T, b Backend) store.Store {
	t.Helper()
	st, err := b.Open(b.New(t))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func update(t *testing.T, st store.Store, fn func(store.Txn) error) {
	t.Helper()
	if err := st.Update(context.Background(), fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func setAll(t *testing.T, st store.Store, keys ...string) {
	t.Helper()
	update(t, st, func(tx store.Txn) error {
		for _, k := range keys {
			if err := tx.Set([]byte(k), []byte("v:"+k)); err != nil {
				return err
			}
		}
		return nil
	})
}

func scanKeys(t *testing.T, st store.Store, prefix, start string) []string {
	t.Helper()
	var got []string
	err := st.View(context.Background(), func(tx store.Txn) error {
		var s []byte
		if start != "" {
			s = []byte(start)
		}
		return tx.Scan([]byte(prefix), s, func(k, v []byte) error {
			if string(v) != "v:"+string(k) {
				return fmt.Errorf("value of %q = %q", k, v)
			}
			got = append(got, string(k))
			return nil
		})
	})
	if err != nil {
		t.Fatalf("Scan(%q): %v", prefix, err)
	}
	return got
}

func testGetSetDelete(t *testing.T, b Backend) {
	st := open(t, b)
	update(t, st, func(tx store.Txn) error {
		if err := tx.Set([]byte("k"), []byte("v1")); err != nil {
			return err
		}
		if err := tx.Set([]byte("empty"), nil); err != nil {
			return err
		}
		return tx.Set([]byte("k"), []byte("v2")) // overwrite in the same txn
	})
	err := st.View(context.Background(), func(tx store.Txn) error {
		if v, err := tx.Get([]byte("k")); err != nil || string(v) != "v2" {
			t.Errorf("Get(k) = %q, %v; want v2", v, err)
		}
		if v, err := tx.Get([]byte("empty")); err != nil || len(v) != 0 {
			t.Errorf("Get(empty) = %q, %v; want an empty value", v, err)
		}
		if _, err := tx.Get([]byte("missing")); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Get(missing) err = %v, want ErrNotFound", err)
		}
		if err := tx.Set([]byte("x"), []byte("y")); err == nil {
			t.Error("Set in View succeeded, want an error")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	update(t, st, func(tx store.Txn) error {
		if err := tx.Delete([]byte("k")); err != nil {
			return err
		}
		return tx.Delete([]byte("never-there"))
	})
	_ = st.View(context.Background(), func(tx store.Txn) error {
		if _, err := tx.Get([]byte("k")); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Get after Delete err = %v, want ErrNotFound", err)
		}
		return nil
	})
}

// testOrdering writes keys with bytes across the whole range in random
// order and checks scans return them in unsigned byte order, bounded
// exactly by the prefix (neighbours just below and above stay out).
func testOrdering(t *testing.T, b Backend) {
	st := open(t, b)
	in := []string{"a", "a.", "a/", "a/\x00", "a/\x00\x00", "a/\x01", "a/1", "a/10", "a/2", "a/\x7f", "a/\x80", "a/\xfe", "a/\xff", "a/\xff\xff", "a0", "b", "\xff", "\xff\x00", "\xff\xff"}
	shuffled := slices.Clone(in)
	rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	setAll(t, st, shuffled...)
	cases := []struct {
		prefix string
		want   []string
	}{
		{"a/", in[2:14]},
		{"a/\xff", []string{"a/\xff", "a/\xff\xff"}},
		{"a", in[:15]},
		{"\xff", []string{"\xff", "\xff\x00", "\xff\xff"}},
		{"\xff\xff", []string{"\xff\xff"}},
		{"", in},
		{"c", nil},
	}
	for _, c := range cases {
		if got := scanKeys(t, st, c.prefix, ""); !slices.Equal(got, c.want) {
			t.Errorf("Scan(%q) = %q, want %q", c.prefix, got, c.want)
		}
	}
}

func testScanStart(t *testing.T, b Backend) {
	st := open(t, b)
	setAll(t, st, "p/1", "p/2", "p/3", "q/1")
	cases := []struct{ start, want string }{
		{"", "[p/1 p/2 p/3]"},
		{"p/2", "[p/2 p/3]"},
		{"p/25", "[p/3]"},
		{"p/9", "[]"},
		{"a", "[p/1 p/2 p/3]"}, // not under the prefix: from the beginning
	}
	for _, c := range cases {
		if got := fmt.Sprint(scanKeys(t, st, "p/", c.start)); got != c.want {
			t.Errorf("Scan(p/, start %q) = %s, want %s", c.start, got, c.want)
		}
	}
	var got []string
	_ = st.View(context.Background(), func(tx store.Txn) error {
		err := tx.Scan([]byte("p/"), nil, func(k, _ []byte) error {
			got = append(got, string(k))
			if len(got) == 2 {
				return store.ErrStopIteration
			}
			return nil
		})
		if err != nil {
			t.Errorf("Scan stopped with ErrStopIteration = %v, want nil", err)
		}
		boom := errors.New("boom")
		if err := tx.Scan([]byte("p/"), nil, func(_, _ []byte) error { return boom }); !errors.Is(err, boom) {
			t.Errorf("Scan with failing fn = %v, want its error", err)
		}
		return nil
	})
	if fmt.Sprint(got) != "[p/1 p/2]" {
		t.Errorf("stopped scan saw %v", got)
	}
}

// testScanPages scans far more keys than any backend reads per page, with
// the callback using the transaction mid-scan as index walks do, and
// pages through them with store.ScanPage.
func testScanPages(t *testing.T, b Backend) {
	st := open(t, b)
	const n = 1000
	var keys []string
	for i := range n {
		keys = append(keys, fmt.Sprintf("idx/%05d", i))
	}
	setAll(t, st, append(keys, "idw", "idx", "idy/0")...)
	setAll(t, st, "target")
	var got []string
	err := st.View(context.Background(), func(tx store.Txn) error {
		return tx.Scan([]byte("idx/"), nil, func(k, _ []byte) error {
			if _, err := tx.Get([]byte("target")); err != nil {
				return fmt.Errorf("Get inside Scan: %w", err)
			}
			got = append(got, string(k))
			return nil
		})
	})
	if err != nil || !slices.Equal(got, keys) {
		t.Fatalf("Scan over %d keys: %d keys, err %v (first %q)", n, len(got), err, got[:min(3, len(got))])
	}
	got = got[:0]
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > n {
			t.Fatal("ScanPage does not end")
		}
		err := st.View(context.Background(), func(tx store.Txn) (err error) {
			cursor, err = store.ScanPage(tx, []byte("idx/"), cursor, 7, func(k, _ []byte) error {
				got = append(got, string(k))
				return nil
			})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if cursor == "" {
			break
		}
	}
	if !slices.Equal(got, keys) {
		t.Fatalf("ScanPage walk returned %d keys, want %d in order", len(got), n)
	}
}

func testReadYourWrites(t *testing.T, b Backend) {
	st := open(t, b)
	setAll(t, st, "r/1", "r/3")
	update(t, st, func(tx store.Txn) error {
		if err := tx.Set([]byte("r/2"), []byte("v:r/2")); err != nil {
			return err
		}
		if err := tx.Delete([]byte("r/1")); err != nil {
			return err
		}
		if v, err := tx.Get([]byte("r/2")); err != nil || string(v) != "v:r/2" {
			t.Errorf("Get of own write = %q, %v", v, err)
		}
		if _, err := tx.Get([]byte("r/1")); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Get of own delete err = %v, want ErrNotFound", err)
		}
		var got []string
		err := tx.Scan([]byte("r/"), nil, func(k, _ []byte) error { got = append(got, string(k)); return nil })
		if err != nil || fmt.Sprint(got) != "[r/2 r/3]" {
			t.Errorf("Scan in the writing txn = %v, %v; want [r/2 r/3]", got, err)
		}
		return nil
	})
}

// testGetMany: store.GetMany answers in the order asked, nil for missing
// keys, empty for an empty value, a repeated key twice, and sees the
// transaction's own writes and deletes, in Update and in View.
func testGetMany(t *testing.T, b Backend) {
	st := open(t, b)
	setAll(t, st, "m/1", "m/3")
	update(t, st, func(tx store.Txn) error { return tx.Set([]byte("m/e"), []byte{}) })
	keys := [][]byte{[]byte("m/1"), []byte("m/2"), []byte("m/3"), []byte("m/x"), []byte("m/e"), []byte("m/1")}
	check := func(what string, got [][]byte, want []string) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d values for %d keys", what, len(got), len(want))
		}
		for i, w := range want {
			switch {
			case w == "<nil>" && got[i] != nil:
				t.Errorf("%s: key %s = %q, want missing (nil)", what, keys[i], got[i])
			case w != "<nil>" && (got[i] == nil || string(got[i]) != w):
				t.Errorf("%s: key %s = %q (nil %v), want %q", what, keys[i], got[i], got[i] == nil, w)
			}
		}
	}
	update(t, st, func(tx store.Txn) error {
		if err := tx.Set([]byte("m/2"), []byte("v:m/2")); err != nil {
			return err
		}
		if err := tx.Delete([]byte("m/3")); err != nil {
			return err
		}
		got, err := store.GetMany(tx, keys)
		if err != nil {
			return err
		}
		check("Update", got, []string{"v:m/1", "v:m/2", "<nil>", "<nil>", "", "v:m/1"})
		return nil
	})
	err := st.View(context.Background(), func(tx store.Txn) error {
		got, err := store.GetMany(tx, keys)
		if err != nil {
			return err
		}
		check("View", got, []string{"v:m/1", "v:m/2", "<nil>", "<nil>", "", "v:m/1"})
		got, err = store.GetMany(tx, nil)
		if err != nil || len(got) != 0 {
			t.Errorf("GetMany of no keys = %q, %v", got, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func testErrorRollsBack(t *testing.T, b Backend) {
	st := open(t, b)
	sentinel := errors.New("domain says no")
	err := st.Update(context.Background(), func(tx store.Txn) error {
		if err := tx.Set([]byte("k"), []byte("v")); err != nil {
			return err
		}
		return sentinel
	})
	if err != sentinel { //nolint:errorlint // the contract: returned unchanged
		t.Fatalf("Update err = %v, want the callback's error unchanged", err)
	}
	if got := scanKeys(t, st, "", ""); len(got) != 0 {
		t.Errorf("writes of a failed Update are visible: %v", got)
	}
}

// testViewSnapshot commits a write while a View is open: the View keeps
// reading the state it started with.
func testViewSnapshot(t *testing.T, b Backend) {
	st := open(t, b)
	update(t, st, func(tx store.Txn) error { return tx.Set([]byte("s"), []byte("old")) })
	err := st.View(context.Background(), func(tx store.Txn) error {
		if v, err := tx.Get([]byte("s")); err != nil || string(v) != "old" {
			return fmt.Errorf("first read = %q, %v", v, err)
		}
		if err := st.Update(context.Background(), func(w store.Txn) error {
			if err := w.Set([]byte("s"), []byte("new")); err != nil {
				return err
			}
			return w.Set([]byte("s2"), []byte("new"))
		}); err != nil {
			return fmt.Errorf("concurrent Update: %w", err)
		}
		if v, err := tx.Get([]byte("s")); err != nil || string(v) != "old" {
			t.Errorf("read after a concurrent commit = %q, %v; want the snapshot's old", v, err)
		}
		if _, err := tx.Get([]byte("s2")); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("key committed after the snapshot is visible (err %v)", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func readInt(tx store.Txn, key string) (int, error) {
	v, err := tx.Get([]byte(key))
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(string(v))
}

// testConcurrentIncrements runs read-modify-write increments from several
// goroutines: without conflict detection and retry some would be lost.
// Backends should allow enough retries for six writers on one key.
func testConcurrentIncrements(t *testing.T, b Backend) {
	st := open(t, b)
	const workers, each = 6, 15
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for range workers {
		wg.Go(func() {
			for range each {
				errs <- st.Update(context.Background(), func(tx store.Txn) error {
					n, err := readInt(tx, "counter")
					if err != nil {
						return err
					}
					return tx.Set([]byte("counter"), []byte(strconv.Itoa(n+1)))
				})
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Update: %v", err)
		}
	}
	_ = st.View(context.Background(), func(tx store.Txn) error {
		if n, err := readInt(tx, "counter"); n != workers*each {
			t.Errorf("counter = %d (%v), want %d: updates lost", n, err, workers*each)
		}
		return nil
	})
}

// testNoWriteSkew checks the isolation is serializable for the keys a
// transaction reads: two transactions each read both slots and claim one
// only when both are free. Under snapshot isolation without read
// conflicts both would claim; the contract allows exactly one.
func testNoWriteSkew(t *testing.T, b Backend) {
	st := open(t, b)
	for round := range 20 {
		x, y := fmt.Appendf(nil, "skew/%d/x", round), fmt.Appendf(nil, "skew/%d/y", round)
		start := make(chan struct{})
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, mine := range [][]byte{x, y} {
			wg.Go(func() {
				<-start
				errs[i] = st.Update(context.Background(), func(tx store.Txn) error {
					for _, k := range [][]byte{x, y} {
						if _, err := tx.Get(k); err == nil {
							return nil // taken
						} else if !errors.Is(err, store.ErrNotFound) {
							return err
						}
					}
					return tx.Set(mine, []byte("claimed"))
				})
			})
		}
		close(start)
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatalf("round %d: Update: %v", round, err)
			}
		}
		claimed := 0
		_ = st.View(context.Background(), func(tx store.Txn) error {
			for _, k := range [][]byte{x, y} {
				if _, err := tx.Get(k); err == nil {
					claimed++
				}
			}
			return nil
		})
		if claimed != 1 {
			t.Fatalf("round %d: %d slots claimed, want exactly 1 (write skew)", round, claimed)
		}
	}
}

// testConflictRetried forces a conflict deterministically: the first run
// of fn reads a key, another transaction overwrites it and commits, then
// fn writes it. The store must run fn again and commit on a fresh read,
// also when fn swallows the error a failed statement returned.
func testConflictRetried(t *testing.T, b Backend) {
	for _, swallow := range []bool{false, true} {
		t.Run(fmt.Sprintf("swallow=%v", swallow), func(t *testing.T) {
			st := open(t, b)
			update(t, st, func(tx store.Txn) error { return tx.Set([]byte("c"), []byte("1")) })
			runs := 0
			err := st.Update(context.Background(), func(tx store.Txn) error {
				runs++
				n, err := readInt(tx, "c")
				if err != nil && !swallow {
					return err
				}
				if runs == 1 {
					if err := st.Update(context.Background(), func(w store.Txn) error {
						return w.Set([]byte("c"), []byte("10"))
					}); err != nil {
						return fmt.Errorf("interfering Update: %w", err)
					}
				}
				if err := tx.Set([]byte("c"), []byte(strconv.Itoa(n+1))); err != nil && !swallow {
					return err
				}
				return nil
			})
			if err != nil {
				t.Fatalf("Update: %v", err)
			}
			if runs < 2 {
				t.Errorf("fn ran %d times, want a retry after the conflict", runs)
			}
			_ = st.View(context.Background(), func(tx store.Txn) error {
				if n, _ := readInt(tx, "c"); n != 11 {
					t.Errorf("c = %d, want 11 (the retry must read the interfering write)", n)
				}
				return nil
			})
		})
	}
}

// testLargeTransaction commits the shape of a full anchoring batch in one
// transaction: 4,096 queued records read and deleted, a leaf and an
// anchored record written for each.
func testLargeTransaction(t *testing.T, b Backend) {
	st := open(t, b)
	const n = 4096
	rec := bytes.Repeat([]byte("r"), 400)
	update(t, st, func(tx store.Txn) error {
		for i := range n {
			if err := tx.Set(fmt.Appendf(nil, "queue/%05d", i), rec); err != nil {
				return err
			}
		}
		return nil
	})
	update(t, st, func(tx store.Txn) error {
		var queued [][]byte
		if err := tx.Scan([]byte("queue/"), nil, func(k, _ []byte) error { queued = append(queued, k); return nil }); err != nil {
			return err
		}
		if len(queued) != n {
			return fmt.Errorf("queue holds %d, want %d", len(queued), n)
		}
		for i, k := range queued {
			if err := tx.Delete(k); err != nil {
				return err
			}
			if err := tx.Set(fmt.Appendf(nil, "leaf/%05d", i), bytes.Repeat([]byte{byte(i)}, 32)); err != nil {
				return err
			}
			if err := tx.Set(fmt.Appendf(nil, "rec/%05d", i), rec); err != nil {
				return err
			}
		}
		return nil
	})
	err := st.View(context.Background(), func(tx store.Txn) error {
		count := func(p string) (c int) {
			_ = tx.Scan([]byte(p), nil, func(_, _ []byte) error { c++; return nil })
			return c
		}
		if q, l, r := count("queue/"), count("leaf/"), count("rec/"); q != 0 || l != n || r != n {
			t.Errorf("after the batch: queue %d, leaves %d, records %d; want 0, %d, %d", q, l, r, n, n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func testCanceledContext(t *testing.T, b Backend) {
	st := open(t, b)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	called := false
	if err := st.Update(ctx, func(store.Txn) error { called = true; return nil }); !errors.Is(err, context.Canceled) || called {
		t.Errorf("Update on a canceled ctx = %v (fn called %v), want context.Canceled without fn", err, called)
	}
	if err := st.View(ctx, func(store.Txn) error { called = true; return nil }); !errors.Is(err, context.Canceled) || called {
		t.Errorf("View on a canceled ctx = %v (fn called %v), want context.Canceled without fn", err, called)
	}
}

// testDurableAcrossKill runs a writer process that commits pairs of keys
// and acknowledges each commit, SIGKILLs it mid-stream (and crashes the
// database server too, when the backend has one), reopens the store and
// checks every acknowledged pair is there and no pair is half written.
func testDurableAcrossKill(t *testing.T, b Backend) {
	loc := b.New(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+loc)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := -1
	sc := bufio.NewScanner(out)
	killed := false
	deadline := time.Now().Add(2 * time.Minute)
	for sc.Scan() {
		n, err := strconv.Atoi(sc.Text())
		if err != nil || n != acked+1 {
			t.Fatalf("writer printed %q after %d", sc.Text(), acked)
		}
		acked = n
		if !killed && (acked >= 40 || time.Now().After(deadline)) {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			killed = true // acks already in the pipe are still read
		}
	}
	_ = cmd.Wait()
	if !killed {
		t.Fatalf("writer exited by itself after %d acks: %s", acked, stderr.String())
	}
	if acked < 0 {
		t.Fatal("writer acknowledged nothing")
	}
	if b.Crash != nil {
		b.Crash(t)
	}
	st, err := b.Open(loc)
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer st.Close()
	err = st.View(context.Background(), func(tx store.Txn) error {
		halves := map[string]int{}
		if err := tx.Scan([]byte("dur/"), nil, func(k, _ []byte) error {
			halves[string(k[:len("dur/00000000")])]++
			return nil
		}); err != nil {
			return err
		}
		for i := 0; i <= acked; i++ {
			if halves[string(durKey(i, "")[:len("dur/00000000")])] != 2 {
				t.Errorf("acknowledged commit %d lost after the kill", i)
			}
		}
		for k, c := range halves {
			if c != 2 {
				t.Errorf("commit %s half written (%d of 2 keys)", k, c)
			}
		}
		if len(halves) < acked+1 {
			t.Errorf("%d commits found, %d acknowledged", len(halves), acked+1)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
