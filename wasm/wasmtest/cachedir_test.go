package wasmtest_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/provenant/provenant/wasm/wasmtest"
)

// TestCacheDir: the directory is named by the module's content and
// marked as used; siblings of other builds (and wazero's own layout of a
// shared directory) unused for CacheMaxAge are removed, recent ones and
// anything not named like a cache directory are kept.
func TestCacheDir(t *testing.T) {
	parent := t.TempDir()
	old := time.Now().Add(-wasmtest.CacheMaxAge - time.Hour)
	mkdir := func(name string, mtime time.Time) string {
		p := filepath.Join(parent, name)
		if err := os.MkdirAll(filepath.Join(p, "wazero-dev-amd64-linux"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := mkdir("0123456789abcdef", old)
	recent := mkdir("fedcba9876543210", time.Now().Add(-time.Hour))
	legacy := mkdir("wazero-dev-amd64-linux", old)
	other := mkdir("not-a-cache", old)

	dir, err := wasmtest.CacheDir(parent, []byte("module one"))
	if err != nil {
		t.Fatal(err)
	}
	// The first 16 hex digits of sha256("module one").
	if want := filepath.Join(parent, "6150e4ce733e2d6d"); dir != want {
		t.Fatalf("CacheDir = %s, want %s", dir, want)
	}
	for _, p := range []string{stale, legacy} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s unused for over CacheMaxAge: still there (%v)", filepath.Base(p), err)
		}
	}
	for _, p := range []string{recent, other, dir} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v, want kept", filepath.Base(p), err)
		}
	}

	// The same module gives the same directory; another module another.
	// A directory handed out long ago is marked as used again.
	if err := os.Chtimes(dir, old, old); err != nil {
		t.Fatal(err)
	}
	again, err := wasmtest.CacheDir(parent, []byte("module one"))
	if err != nil || again != dir {
		t.Fatalf("CacheDir again = %s, %v, want %s", again, err, dir)
	}
	if info, err := os.Stat(dir); err != nil || time.Since(info.ModTime()) > time.Minute {
		t.Errorf("reused directory not marked as used: %v %v", info, err)
	}
	two, err := wasmtest.CacheDir(parent, []byte("module two"))
	if err != nil || two == dir {
		t.Fatalf("CacheDir(other module) = %s, %v, want a directory other than %s", two, err, dir)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("a directory used a moment ago was removed: %v", err)
	}
}
