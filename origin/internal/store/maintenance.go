package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/provenant/provenant/origin/internal/periodic"
)

// DefaultGCDiscardRatio is the share of a value-log file that must be
// garbage (overwritten or deleted values) before GC rewrites it. One half
// means a rewrite copies at most as much as it frees.
const DefaultGCDiscardRatio = 0.5

// Sizes returns the sizes in bytes of the LSM tree (keys and small values)
// and of the value log (values over the 1 KiB threshold) as Badger last
// measured them; Badger refreshes the figures about once a minute.
func (b *Badger) Sizes() (lsm, vlog int64) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.db.Size()
}

// CollectGarbage runs value-log GC until a pass finds no file with at least
// discardRatio garbage (or ctx ends), and returns how many files it
// rewrote. Badger learns which values are garbage from its background
// compactions, so space freed by deletes becomes reclaimable once the
// deletes have been flushed and compacted, not at once.
func (b *Badger) CollectGarbage(ctx context.Context, discardRatio float64) (int, error) {
	if discardRatio <= 0 || discardRatio >= 1 {
		discardRatio = DefaultGCDiscardRatio
	}
	n := 0
	for ctx.Err() == nil {
		b.mu.RLock()
		err := b.db.RunValueLogGC(discardRatio)
		b.mu.RUnlock()
		switch {
		case err == nil:
			n++
		case errors.Is(err, badger.ErrNoRewrite), errors.Is(err, badger.ErrRejected), errors.Is(err, badger.ErrGCInReadOnlyMode):
			return n, nil
		default:
			return n, fmt.Errorf("store: value-log gc: %w", err)
		}
	}
	return n, ctx.Err()
}

// RunGC calls CollectGarbage every interval until ctx ends, logging what it
// reclaimed. It returns when ctx is done. Badger never reclaims value-log
// space by itself, so without this loop deleted and overwritten values
// (webhook deliveries, anchoring queue entries) grow the disk forever.
func (b *Badger) RunGC(ctx context.Context, interval time.Duration, log *slog.Logger) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	periodic.Every(ctx, interval, func() bool {
		n, err := b.CollectGarbage(ctx, DefaultGCDiscardRatio)
		if err != nil && ctx.Err() == nil {
			log.Warn("value-log gc failed", "err", err)
			return false
		}
		if n > 0 {
			lsm, vlog := b.Sizes()
			log.Info("value-log gc", "files_rewritten", n, "lsm_bytes", lsm, "vlog_bytes", vlog)
		}
		return false
	})
}

// Backup writes a consistent snapshot of every live key to w while the
// database keeps serving (Badger's backup stream, read at one timestamp),
// and returns the version it reflects.
func (b *Badger) Backup(w io.Writer) (uint64, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	v, err := b.db.Backup(w, 0)
	if err != nil {
		return 0, fmt.Errorf("store: backup: %w", err)
	}
	return v, nil
}

// Load reads a stream written by Backup into the database. It is meant for
// an empty database (restore); keys already present are overwritten.
func (b *Badger) Load(r io.Reader) error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.readOnly {
		return b.errReadOnly()
	}
	if err := b.db.Load(r, 256); err != nil {
		return fmt.Errorf("store: load backup: %w", err)
	}
	return nil
}
