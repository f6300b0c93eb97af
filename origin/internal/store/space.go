package store

import (
	"errors"
	"fmt"
	"sync"
	"syscall"
	"time"
)

// ErrNoSpace is returned by Update (and Open) when the database's file
// system has less free space than the configured margin: the write is
// refused before Badger is touched, because Badger writes its memtables
// through memory-mapped files, and a write that finds no room there is a
// SIGBUS that kills the process (and again at the next start), not an
// error.
var ErrNoSpace = errors.New("store: not enough free disk space")

// DefaultMinFreeBytes is Config.MinFreeBytes's default: room for both
// memtables (2 × 32 MiB), a value-log file (16 MiB) and the tables a
// compaction writes before it deletes the ones it replaces.
const DefaultMinFreeBytes = 256 << 20

// spaceRecheck is how long a free-space reading is trusted: one statfs
// per second at most, whatever the write rate.
const spaceRecheck = time.Second

// FreeSpace returns the bytes available to unprivileged writers in the
// file system holding dir.
func FreeSpace(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, fmt.Errorf("store: statfs %s: %w", dir, err)
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}

// spaceGuard caches the free space of a directory for spaceRecheck.
type spaceGuard struct {
	dir  string
	min  int64
	free func(string) (int64, error)

	mu      sync.Mutex
	checked time.Time
	last    int64
	lastErr error
}

// check returns an error wrapping ErrNoSpace when the free space is under
// the margin (a failing statfs is passed through: the write then goes
// ahead, as it would without the guard).
func (g *spaceGuard) check() error {
	if g == nil || g.min <= 0 {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if now := time.Now(); now.Sub(g.checked) >= spaceRecheck {
		g.last, g.lastErr = g.free(g.dir)
		g.checked = now
	}
	if g.lastErr == nil && g.last < g.min {
		return fmt.Errorf("%w: %d MiB free in %s, writes need %d MiB", ErrNoSpace, g.last>>20, g.dir, g.min>>20)
	}
	return nil
}
