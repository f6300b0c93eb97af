package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/provenant/provenant/internal/defaults"
)

// DefaultMaxRetries is the number of attempts Update makes when the commit
// conflicts, if Config.MaxRetries is zero.
const DefaultMaxRetries = 8

// Config configures a Badger-backed Store.
type Config struct {
	// Dir is the database directory; it is created if missing. Required.
	Dir string
	// Logger receives Badger's own messages: errors and warnings at their
	// level, info and debug at slog.LevelDebug (so a default Info logger
	// shows no Badger noise). Nil discards them.
	Logger *slog.Logger
	// MaxRetries bounds the attempts Update makes on conflict; zero means
	// DefaultMaxRetries.
	MaxRetries int
	// ValueLogFileSize is the size at which a value-log file is closed and
	// a new one started, the unit value-log GC rewrites and deletes; zero
	// means DefaultValueLogFileSize. Tests use small files.
	ValueLogFileSize int64
	// MinFreeBytes is the free disk space every write needs (checked with
	// statfs, at most once a second): below it Update fails with
	// ErrNoSpace without touching Badger, and Open refuses to start. Zero
	// means DefaultMinFreeBytes; negative disables the check.
	MinFreeBytes int64
	// FreeSpace measures the free space of Dir's file system; nil means
	// FreeSpace (statfs). Tests pass their own.
	FreeSpace func(dir string) (int64, error)
	// ReadOnlyRecheck is how often a store opened read-only (see Open)
	// looks for the free space to come back; zero means
	// DefaultReadOnlyRecheck.
	ReadOnlyRecheck time.Duration
}

// DefaultReadOnlyRecheck is Config.ReadOnlyRecheck's default.
const DefaultReadOnlyRecheck = 5 * time.Second

// DefaultValueLogFileSize is the value-log file size when
// Config.ValueLogFileSize is zero: small enough that GC, which rewrites a
// whole file to reclaim its garbage, stays cheap.
const DefaultValueLogFileSize = 16 << 20

// Badger is the Store implementation on Badger v4.
type Badger struct {
	// mu guards db and readOnly: every call holds it shared for as long
	// as it uses db; leaving read-only mode (reopen) holds it alone.
	mu       sync.RWMutex
	db       *badger.DB
	readOnly bool

	opts       badger.Options
	maxRetries int
	space      *spaceGuard
	recheck    time.Duration
	log        *slog.Logger
	// stop ends the read-only watcher; done says it ended.
	stop, done chan struct{}
}

var _ Store = (*Badger)(nil)

// Open opens (or creates) the Badger database in cfg.Dir with options sized
// for a small service (32 MiB memtables, 16 MiB value-log files, small caches;
// see docs/design.md, "Storage") and SyncWrites on.
//
// Why SyncWrites: accounts, keys, records and the webhook queue are written
// at human or API rates (hundreds per second at most), and a signed record or
// an issued API key that disappears after a power cut would break the
// promises made to the client. Badger's SyncWrites is database-wide; the cost
// (~3 ms per sequential commit on this machine kind) is acceptable at these
// rates, and concurrent commits share fsyncs. Hot paths that need more
// throughput should batch their writes into one Update.
func Open(cfg Config) (*Badger, error) {
	if cfg.Dir == "" {
		return nil, errors.New("store: Config.Dir is required")
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	guard := &spaceGuard{dir: cfg.Dir, min: cfg.MinFreeBytes, free: cfg.FreeSpace}
	if guard.min == 0 {
		guard.min = DefaultMinFreeBytes
	}
	if guard.free == nil {
		guard.free = FreeSpace
	}
	vlogSize := defaults.Positive(cfg.ValueLogFileSize, DefaultValueLogFileSize)
	opts := badger.DefaultOptions(cfg.Dir).
		WithSyncWrites(true).
		WithLogger(slogAdapter{l: cfg.Logger}).
		// The memtable size also bounds one transaction (15% of it):
		// 32 MiB allows ~4.8 MB, room for a full anchoring batch (4,096
		// records, its leaves, queue deletions and the records marked
		// anchored) in the one transaction that must hold it.
		WithMemTableSize(32 << 20).
		WithNumMemtables(2).
		WithValueLogFileSize(vlogSize).
		WithBlockCacheSize(8 << 20).
		WithIndexCacheSize(4 << 20).
		WithNumCompactors(2).
		WithBaseTableSize(2 << 20).
		WithValueThreshold(1 << 10)
	mr := defaults.Positive(cfg.MaxRetries, DefaultMaxRetries)
	b := &Badger{opts: opts, maxRetries: mr, space: guard, recheck: defaults.Positive(cfg.ReadOnlyRecheck, DefaultReadOnlyRecheck), log: cfg.Logger}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	// Opening read-write writes (a fresh memtable file, the manifest,
	// the flush of a memtable left by a crash, compactions): on a full
	// disk it would die of SIGBUS. Under the margin the database opens
	// read-only instead, which writes nothing, and goes read-write once
	// the space is back (watchSpace).
	if spaceErr := guard.check(); spaceErr != nil {
		db, err := badger.Open(opts.WithReadOnly(true))
		if err != nil {
			return nil, fmt.Errorf("store: open badger read-only in %s (%w): %w", cfg.Dir, spaceErr, err)
		}
		b.db, b.readOnly = db, true
		b.stop, b.done = make(chan struct{}), make(chan struct{})
		b.log.Warn("database opened read-only: not enough free disk space; writes answer 507 until space returns", "err", spaceErr)
		go b.watchSpace()
		return b, nil
	}
	db, err := badger.Open(opts)
	if err != nil {
		return nil, fmt.Errorf("store: open badger in %s: %w", cfg.Dir, err)
	}
	b.db = db
	return b, nil
}

// ReadOnly reports whether the database is open read-only (it was opened
// on a disk under the free-space margin and the space has not come back
// yet).
func (b *Badger) ReadOnly() bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.readOnly
}

// watchSpace reopens a read-only database read-write once the free space
// is over the margin again, and then ends.
func (b *Badger) watchSpace() {
	defer close(b.done)
	t := time.NewTicker(b.recheck)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
		}
		if b.space.check() != nil {
			continue
		}
		if b.reopen() {
			return
		}
	}
}

// reopen swaps the read-only database for a read-write one and reports
// whether it did. It takes the lock with TryLock, never Lock: a waiting
// Lock would block new readers, and a caller that opens a transaction
// inside another (nested View) would then wait for itself.
func (b *Badger) reopen() bool {
	deadline := time.Now().Add(b.recheck)
	for !b.mu.TryLock() {
		if time.Now().After(deadline) {
			return false
		}
		select {
		case <-b.stop:
			return false
		case <-time.After(time.Millisecond):
		}
	}
	defer b.mu.Unlock()
	if err := b.db.Close(); err != nil {
		b.log.Error("close read-only database", "err", err)
	}
	db, err := badger.Open(b.opts)
	if err != nil {
		// Serve reads again, read-only, and try later.
		b.log.Error("reopen database read-write", "err", err)
		if ro, rerr := badger.Open(b.opts.WithReadOnly(true)); rerr == nil {
			b.db = ro
		} else {
			b.log.Error("reopen database read-only", "err", rerr)
		}
		return false
	}
	b.db, b.readOnly = db, false
	b.log.Info("free disk space is back: database open read-write")
	return true
}

// CheckSpace returns an error wrapping ErrNoSpace when the database's
// file system is under the free-space margin (what Update checks), for
// the readiness probe.
// While the database is read-only it says so, also once the space is
// back and until the database is open read-write again.
func (b *Badger) CheckSpace() error {
	err := b.space.check()
	if b.ReadOnly() {
		if err == nil {
			err = fmt.Errorf("%w: space is back, reopening the database read-write", ErrNoSpace)
		}
		return fmt.Errorf("database open read-only: %w", err)
	}
	return err
}

// View implements Store.
func (b *Badger) View(ctx context.Context, fn func(Txn) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.db.View(func(t *badger.Txn) error { return fn(txn{t: t}) })
}

// errReadOnly is Update's error while the database is open read-only.
func (b *Badger) errReadOnly() error {
	if err := b.space.check(); err != nil {
		return fmt.Errorf("database open read-only: %w", err)
	}
	return fmt.Errorf("database open read-only: %w: space is back, reopening the database read-write", ErrNoSpace)
}

// Update implements Store.
func (b *Badger) Update(ctx context.Context, fn func(Txn) error) error {
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := b.space.check(); err != nil {
			return err
		}
		b.mu.RLock()
		if b.readOnly {
			b.mu.RUnlock()
			return b.errReadOnly()
		}
		err := b.db.Update(func(t *badger.Txn) error { return fn(txn{t: t}) })
		b.mu.RUnlock()
		if !errors.Is(err, badger.ErrConflict) {
			return err
		}
		if attempt >= b.maxRetries {
			return fmt.Errorf("%w (%d attempts)", ErrConflict, attempt)
		}
		// Jittered backoff so that colliding writers spread out.
		d := time.Duration(rand.Int64N(int64(attempt) * int64(time.Millisecond)))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d):
		}
	}
}

// Close implements Store. It flushes memtables and closes the value log.
func (b *Badger) Close() error {
	if b.stop != nil {
		close(b.stop)
		<-b.done
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.db.Close(); err != nil {
		return fmt.Errorf("store: close badger: %w", err)
	}
	return nil
}

type txn struct{ t *badger.Txn }

func (x txn) Get(key []byte) ([]byte, error) {
	item, err := x.t.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: get: %w", err)
	}
	v, err := item.ValueCopy(nil)
	if err != nil {
		return nil, fmt.Errorf("store: read value: %w", err)
	}
	return v, nil
}

func (x txn) Set(key, value []byte) error {
	// Badger keeps references to key and value until commit; copy them so
	// callers may reuse their buffers.
	if err := x.t.Set(bytes.Clone(key), bytes.Clone(value)); err != nil {
		return fmt.Errorf("store: set: %w", err)
	}
	return nil
}

func (x txn) Delete(key []byte) error {
	if err := x.t.Delete(bytes.Clone(key)); err != nil {
		return fmt.Errorf("store: delete: %w", err)
	}
	return nil
}

func (x txn) Scan(prefix, start []byte, fn func(key, value []byte) error) error {
	it := x.t.NewIterator(badger.IteratorOptions{PrefetchValues: true, PrefetchSize: 16, Prefix: prefix})
	defer it.Close()
	seek := prefix
	if bytes.HasPrefix(start, prefix) {
		seek = start
	}
	for it.Seek(seek); it.ValidForPrefix(prefix); it.Next() {
		item := it.Item()
		v, err := item.ValueCopy(nil)
		if err != nil {
			return fmt.Errorf("store: read value: %w", err)
		}
		if err := fn(item.KeyCopy(nil), v); err != nil {
			if errors.Is(err, ErrStopIteration) {
				return nil
			}
			return err
		}
	}
	return nil
}

// slogAdapter routes Badger's logger to slog. Badger's info and debug lines
// are operational chatter (compactions, replay), so they go to Debug.
type slogAdapter struct{ l *slog.Logger }

func (a slogAdapter) log(level slog.Level, format string, args ...any) {
	if a.l == nil {
		return
	}
	ctx := context.Background()
	if !a.l.Enabled(ctx, level) {
		return
	}
	a.l.Log(ctx, level, "badger: "+string(bytes.TrimSpace([]byte(fmt.Sprintf(format, args...)))))
}

func (a slogAdapter) Errorf(f string, v ...any)   { a.log(slog.LevelError, f, v...) }
func (a slogAdapter) Warningf(f string, v ...any) { a.log(slog.LevelWarn, f, v...) }
func (a slogAdapter) Infof(f string, v ...any)    { a.log(slog.LevelDebug, f, v...) }
func (a slogAdapter) Debugf(f string, v ...any)   { a.log(slog.LevelDebug, f, v...) }
