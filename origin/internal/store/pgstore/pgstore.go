// Package pgstore implements store.Store on PostgreSQL, so that several
// origin processes can share one database. The whole key space is one
// table of (key bytea primary key, value bytea); prefix scans are key-range
// scans on its primary-key index, read in pages; Update runs SERIALIZABLE
// transactions and retries them on serialization failures, which gives
// the read-write conflict detection the Store contract promises, across
// processes.
package pgstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"regexp"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/provenant/provenant/internal/defaults"
	"github.com/provenant/provenant/origin/internal/store"
)

// DefaultTable is the table holding the key space when Config.Table is "".
const DefaultTable = "provenant_kv"

// DefaultPageSize is the number of rows a scan reads per round trip when
// Config.PageSize is zero: large enough to amortise the round trip, small
// enough that a page of large values stays a few megabytes at most.
const DefaultPageSize = 256

// pageBytes bounds the keys and values one scan page holds in memory: a
// page ends early, after the row that crosses it, so that a prefix of
// large values (stored responses up to 256 KiB) does not hold hundreds of
// them at once. The rows the query still sends are read and dropped.
const pageBytes = 4 << 20

// DefaultMaxRetries bounds the attempts of Update on serialization
// failures when Config.MaxRetries is zero. It is higher than Badger's:
// PostgreSQL's predicate locks are coarser than Badger's key sets, so
// concurrent writers on neighbouring keys also collide now and then.
const DefaultMaxRetries = 20

// Config configures a PostgreSQL-backed Store.
type Config struct {
	// URL is the connection string (postgres://… or key=value form).
	// Required.
	URL string
	// Table names the key-value table, created when missing; "" means
	// DefaultTable. Several installations may share a database under
	// different tables.
	Table string
	// PageSize is the number of rows Scan reads per query; zero means
	// DefaultPageSize. Tests use tiny pages to cross page boundaries.
	PageSize int
	// MaxRetries bounds Update's attempts on serialization failures; zero
	// means DefaultMaxRetries.
	MaxRetries int
	// MaxConns bounds the connection pool; zero means pgxpool's default
	// (the larger of 4 and the number of CPUs).
	MaxConns int32
	// ReconnectWait is how long View and Update keep trying again when
	// the connection is lost before a transaction committed (a failover,
	// a restarted server, a demoted primary); zero means
	// DefaultReconnectWait. See docs/operations.md, "Database failover".
	ReconnectWait time.Duration
	// Logger receives retry and start-up messages; nil discards them.
	Logger *slog.Logger
}

// Store is the store.Store implementation on PostgreSQL.
type Store struct {
	pool       *pgxpool.Pool
	pageSize   int
	maxRetries int
	reconnect  time.Duration
	log        *slog.Logger
	q          queries
}

var _ store.Store = (*Store)(nil)

type queries struct{ get, getMany, set, del, scan, scanTo, changes string }

var tableName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// Open connects to the database, checks that the server keeps the
// durability promise of store.Store (fsync on, synchronous_commit not
// off), and creates the table when it is missing.
//
// Durability: PostgreSQL acknowledges a COMMIT after the transaction's WAL
// record is flushed to stable storage when fsync is on and
// synchronous_commit is on, local or a remote level; with
// synchronous_commit=off a crash can lose commits already acknowledged,
// so Open refuses such a server (or role/database setting) rather than
// silently weakening the contract.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.URL == "" {
		return nil, errors.New("pgstore: Config.URL is required")
	}
	table := cfg.Table
	if table == "" {
		table = DefaultTable
	}
	if !tableName.MatchString(table) {
		return nil, fmt.Errorf("pgstore: table name %q: want lower-case letters, digits and _", table)
	}
	pc, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		// The parse error may quote the URL, password included.
		return nil, errors.New("pgstore: malformed PostgreSQL connection string")
	}
	if cfg.MaxConns > 0 {
		pc.MaxConns = cfg.MaxConns
	}
	connDefaults(pc, cfg.URL, osEnv)
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("pgstore: connect: %w", err)
	}
	s := &Store{pool: pool, pageSize: cfg.PageSize, maxRetries: cfg.MaxRetries, reconnect: cfg.ReconnectWait, log: cfg.Logger, q: queries{
		get:     `SELECT v FROM ` + table + ` WHERE k = $1`,
		getMany: `SELECT k, v FROM ` + table + ` WHERE k = ANY($1)`,
		set:     `INSERT INTO ` + table + ` (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v, x = pg_current_xact_id()`,
		del:     `DELETE FROM ` + table + ` WHERE k = $1`,
		// $2 is the first key wanted (inclusive); scanTo adds the
		// exclusive upper bound of the prefix's key range.
		scan:    `SELECT k, v FROM ` + table + ` WHERE k >= $1 ORDER BY k LIMIT $2`,
		scanTo:  `SELECT k, v FROM ` + table + ` WHERE k >= $1 AND k < $3 ORDER BY k LIMIT $2`,
		changes: `SELECT k, v FROM ` + table + ` WHERE x >= $1::text::xid8 AND k >= $2 AND k < $3`,
	}}
	s.pageSize = defaults.Positive(s.pageSize, DefaultPageSize)
	s.maxRetries = defaults.Positive(s.maxRetries, DefaultMaxRetries)
	s.reconnect = defaults.Positive(s.reconnect, DefaultReconnectWait)
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if err := s.init(ctx, table); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) init(ctx context.Context, table string) error {
	var fsync, syncCommit string
	if err := s.pool.QueryRow(ctx, `SELECT current_setting('fsync'), current_setting('synchronous_commit')`).Scan(&fsync, &syncCommit); err != nil {
		return fmt.Errorf("pgstore: connect: %w", err)
	}
	if fsync != "on" || syncCommit == "off" {
		return fmt.Errorf("pgstore: server runs with fsync=%s synchronous_commit=%s; committed writes would not survive a crash (want fsync=on and synchronous_commit on, local or remote_*)", fsync, syncCommit)
	}
	// Several origins may start at once on an empty database: CREATE TABLE
	// IF NOT EXISTS alone can still race on the catalog, so creation is
	// serialized by a transaction-scoped advisory lock.
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("pgstore: create table: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, "provenant-schema/"+table); err != nil {
		return fmt.Errorf("pgstore: create table: %w", err)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+table+` (k bytea PRIMARY KEY, v bytea NOT NULL)`); err != nil {
		return fmt.Errorf("pgstore: create table: %w", err)
	}
	// x is the id of the transaction that last wrote the row, which the
	// change feed (Changes) reads by; a table from before the feed gets
	// the column here (its rows take this transaction's id).
	for _, ddl := range []string{
		`ALTER TABLE ` + table + ` ADD COLUMN IF NOT EXISTS x xid8 NOT NULL DEFAULT pg_current_xact_id()`,
		`CREATE INDEX IF NOT EXISTS ` + table + `_x ON ` + table + ` (x)`,
	} {
		if _, err := tx.Exec(ctx, ddl); err != nil {
			return fmt.Errorf("pgstore: create table: %w", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("pgstore: create table: %w", err)
	}
	return nil
}

// View implements store.Store. It runs fn in a REPEATABLE READ READ ONLY
// transaction: one snapshot for all of fn's reads, as Badger's View, and
// no serialization failures (a read-only transaction never causes one at
// that level). When the connection is lost (see Update), fn runs again
// on a new one, for up to Config.ReconnectWait.
func (s *Store) View(ctx context.Context, fn func(store.Txn) error) error {
	var deadline time.Time
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		err, lost := s.viewOnce(ctx, fn)
		if !lost {
			return err
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(s.reconnect)
		}
		if !waitReconnect(ctx, n, deadline) {
			return err
		}
		s.log.Debug("pgstore: connection lost, reading again", "err", err)
	}
}

func (s *Store) viewOnce(ctx context.Context, fn func(store.Txn) error) (err error, lost bool) {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("pgstore: begin: %w", err), lostConnection(ctx, err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	x := &txn{ctx: ctx, tx: tx, s: s, readOnly: true}
	err = fn(x)
	return err, err != nil && x.lost != nil
}

// Update implements store.Store. fn runs in a SERIALIZABLE transaction;
// when any statement or the COMMIT fails with a serialization failure
// (SQLSTATE 40001) or a deadlock (40P01), the transaction is rolled back
// and fn runs again, up to MaxRetries attempts with a jittered backoff,
// after which Update returns store.ErrConflict. The failure is noticed
// even when fn wraps or replaces the error its Txn call returned.
//
// A connection lost before the COMMIT was sent (the primary died or was
// demoted, the server restarts, no host accepts writes yet) leaves
// nothing committed, so fn runs again on a new connection, for up to
// Config.ReconnectWait after the first loss; with a multi-host
// connection string that new connection goes to the new primary. A
// connection lost during the COMMIT is not retried: the transaction may
// have committed, and running fn again could apply it twice, so Update
// returns the error and the caller's request fails.
func (s *Store) Update(ctx context.Context, fn func(store.Txn) error) error {
	var deadline time.Time
	losses := 0
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		err, retry, lost := s.attempt(ctx, fn)
		if lost {
			losses++
			if deadline.IsZero() {
				deadline = time.Now().Add(s.reconnect)
			}
			if !waitReconnect(ctx, losses, deadline) {
				return err
			}
			s.log.Debug("pgstore: connection lost before commit, running the transaction again", "err", err)
			attempt--
			continue
		}
		if !retry {
			return err
		}
		if attempt >= s.maxRetries {
			return fmt.Errorf("%w (%d attempts): %v", store.ErrConflict, attempt, err)
		}
		d := time.Duration(rand.Int64N(int64(attempt) * int64(2*time.Millisecond)))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d):
		}
	}
}

// attempt runs fn once; retry reports a serialization failure, lost a
// connection lost before the COMMIT was sent.
func (s *Store) attempt(ctx context.Context, fn func(store.Txn) error) (err error, retry, lost bool) {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.Serializable})
	if err != nil {
		return fmt.Errorf("pgstore: begin: %w", err), false, lostConnection(ctx, err)
	}
	x := &txn{ctx: ctx, tx: tx, s: s}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if ferr := fn(x); ferr != nil {
		if x.conflict != nil || retryable(ferr) {
			return ferr, true, false
		}
		return ferr, false, x.lost != nil
	}
	if err := x.flush(); err != nil {
		if x.conflict != nil {
			return err, true, false
		}
		return err, false, x.lost != nil
	}
	if x.conflict != nil {
		// fn swallowed the failed statement's error; the transaction is
		// aborted all the same.
		return x.conflict, true, false
	}
	if x.lost != nil {
		// fn swallowed a lost connection's error: nothing can commit.
		return x.lost, false, true
	}
	if err := tx.Commit(ctx); err != nil {
		if retryable(err) {
			return err, true, false
		}
		return fmt.Errorf("pgstore: commit: %w", err), false, false
	}
	return nil, false, false
}

func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// Close implements store.Store: it waits for borrowed connections to come
// back and closes the pool.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// SharedAcrossProcesses implements store.Shared: several origins use one
// database.
func (s *Store) SharedAcrossProcesses() bool { return true }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.pool.Ping(ctx) }

type txn struct {
	ctx      context.Context
	tx       pgx.Tx
	s        *Store
	readOnly bool
	// conflict is the first serialization failure a statement met; the
	// transaction is aborted from then on.
	conflict error
	// lost is the first error of a statement that lost its connection
	// (lostConnection): nothing of the transaction can commit.
	lost error
	// pending holds writes not sent yet; see queue.
	pending      *pgx.Batch
	pendingBytes int
}

// Bounds of the write buffer of one transaction (see queue).
const (
	maxPendingWrites = 1024
	maxPendingBytes  = 4 << 20
)

// queue buffers a write. Writes go to the server together, pipelined in
// one round trip, before the next read, at commit, or when the buffer is
// full: a batch close writing thousands of keys costs a few round trips
// instead of thousands. A write's own error (a serialization failure, a
// lost connection) is therefore reported by the read or commit that sends
// it; Update still retries serialization failures, wherever they surface.
// key and value are copied, as the caller may reuse them.
func (x *txn) queue(sql string, key, value []byte) error {
	if x.conflict != nil {
		return fmt.Errorf("pgstore: write: %w", x.conflict)
	}
	if x.pending == nil {
		x.pending = &pgx.Batch{}
	}
	key = append([]byte{}, key...)
	if value == nil {
		x.pending.Queue(sql, key)
	} else {
		x.pending.Queue(sql, key, append([]byte{}, value...))
	}
	x.pendingBytes += len(key) + len(value)
	if x.pending.Len() >= maxPendingWrites || x.pendingBytes >= maxPendingBytes {
		return x.flush()
	}
	return nil
}

// flush sends the buffered writes in one pipelined round trip.
func (x *txn) flush() error {
	if x.pending == nil || x.pending.Len() == 0 {
		return nil
	}
	b := x.pending
	x.pending, x.pendingBytes = nil, 0
	if err := x.tx.SendBatch(x.ctx, b).Close(); err != nil {
		return x.fail("write", err)
	}
	return nil
}

func (x *txn) fail(op string, err error) error {
	if retryable(err) && x.conflict == nil {
		x.conflict = err
	}
	if x.lost == nil && lostConnection(x.ctx, err) {
		x.lost = err
	}
	return fmt.Errorf("pgstore: %s: %w", op, err)
}

// notNull returns b, or an empty slice when b is nil: pgx sends a nil
// slice as NULL, which matches no key and violates NOT NULL.
func notNull(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func (x *txn) Get(key []byte) ([]byte, error) {
	if err := x.flush(); err != nil {
		return nil, err
	}
	key = notNull(key)
	var v []byte
	err := x.tx.QueryRow(x.ctx, x.s.q.get, key).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, x.fail("get", err)
	}
	if v == nil {
		v = []byte{}
	}
	return v, nil
}

// GetMany implements store.MultiGetter: one query for all keys, so that a
// caller reading dozens of scattered keys (a perceptual-index lookup)
// pays one round trip instead of one per key.
func (x *txn) GetMany(keys [][]byte) ([][]byte, error) {
	if err := x.flush(); err != nil {
		return nil, err
	}
	out := make([][]byte, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	params := make([][]byte, len(keys))
	at := make(map[string][]int, len(keys))
	for i, k := range keys {
		params[i] = notNull(k)
		at[string(k)] = append(at[string(k)], i)
	}
	rows, err := x.tx.Query(x.ctx, x.s.q.getMany, params)
	if err != nil {
		return nil, x.fail("get", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k, v []byte
		if err := rows.Scan(&k, &v); err != nil {
			return nil, x.fail("get", err)
		}
		if v == nil {
			v = []byte{}
		}
		for n, i := range at[string(k)] {
			if n > 0 {
				v = bytes.Clone(v)
			}
			out[i] = v
		}
	}
	if err := rows.Err(); err != nil {
		return nil, x.fail("get", err)
	}
	return out, nil
}

func (x *txn) Set(key, value []byte) error {
	if x.readOnly {
		return errors.New("pgstore: set in a read-only transaction")
	}
	return x.queue(x.s.q.set, key, notNull(value))
}

func (x *txn) Delete(key []byte) error {
	if x.readOnly {
		return errors.New("pgstore: delete in a read-only transaction")
	}
	return x.queue(x.s.q.del, key, nil)
}

// Scan reads the prefix's key range a page at a time. Each page is read
// completely before fn sees its rows, so fn may use the transaction (an
// index walk loads each target with Get) while the scan is under way.
func (x *txn) Scan(prefix, start []byte, fn func(key, value []byte) error) error {
	from := append([]byte{}, prefix...) // never nil: nil is sent as NULL
	if bytes.HasPrefix(start, prefix) {
		from = append([]byte{}, start...)
	}
	end := prefixEnd(prefix)
	type row struct{ k, v []byte }
	page := make([]row, 0, x.s.pageSize)
	for {
		// Writes fn made on the previous page go out first, so that the
		// next page reads them, as before buffering.
		if err := x.flush(); err != nil {
			return err
		}
		var rows pgx.Rows
		var err error
		if end == nil {
			rows, err = x.tx.Query(x.ctx, x.s.q.scan, from, x.s.pageSize)
		} else {
			rows, err = x.tx.Query(x.ctx, x.s.q.scanTo, from, x.s.pageSize, end)
		}
		if err != nil {
			return x.fail("scan", err)
		}
		page = page[:0]
		size, full := 0, false
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.k, &r.v); err != nil {
				rows.Close()
				return x.fail("scan", err)
			}
			if r.v == nil {
				r.v = []byte{}
			}
			page = append(page, r)
			if size += len(r.k) + len(r.v); size >= pageBytes {
				full = true
				break
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return x.fail("scan", err)
		}
		for _, r := range page {
			if err := fn(r.k, r.v); err != nil {
				if errors.Is(err, store.ErrStopIteration) {
					return nil
				}
				return err
			}
		}
		if len(page) < x.s.pageSize && !full {
			return nil
		}
		// The next page starts just after the last key: that key plus a
		// zero byte is its immediate successor in byte order.
		last := page[len(page)-1].k
		from = append(bytes.Clone(last), 0)
	}
}

// prefixEnd returns the smallest key greater than every key with prefix p,
// or nil when there is none (p empty or all 0xff bytes).
func prefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}
