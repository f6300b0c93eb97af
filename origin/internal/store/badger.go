package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"time"

	"github.com/dgraph-io/badger/v4"
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
}

// DefaultValueLogFileSize is the value-log file size when
// Config.ValueLogFileSize is zero: small enough that GC, which rewrites a
// whole file to reclaim its garbage, stays cheap.
const DefaultValueLogFileSize = 16 << 20

// Badger is the Store implementation on Badger v4.
type Badger struct {
	db         *badger.DB
	maxRetries int
	space      *spaceGuard
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
	// Opening writes (a fresh memtable file, the manifest): on a full disk
	// it would die of SIGBUS, so it is refused with a message instead.
	if err := guard.check(); err != nil {
		return nil, fmt.Errorf("store: open badger: %w", err)
	}
	vlogSize := cfg.ValueLogFileSize
	if vlogSize <= 0 {
		vlogSize = DefaultValueLogFileSize
	}
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
	db, err := badger.Open(opts)
	if err != nil {
		return nil, fmt.Errorf("store: open badger in %s: %w", cfg.Dir, err)
	}
	mr := cfg.MaxRetries
	if mr <= 0 {
		mr = DefaultMaxRetries
	}
	return &Badger{db: db, maxRetries: mr, space: guard}, nil
}

// CheckSpace returns an error wrapping ErrNoSpace when the database's
// file system is under the free-space margin (what Update checks), for
// the readiness probe.
func (b *Badger) CheckSpace() error { return b.space.check() }

// View implements Store.
func (b *Badger) View(ctx context.Context, fn func(Txn) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return b.db.View(func(t *badger.Txn) error { return fn(txn{t: t}) })
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
		err := b.db.Update(func(t *badger.Txn) error { return fn(txn{t: t}) })
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
