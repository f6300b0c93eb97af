// Package nearindex holds a store's near-duplicate indexes in memory:
// the perceptual index, the geometric one (look-before-mark) and the
// video frame index, each a hamming.Index loaded from the store's own
// phindex keys, which stay the source of truth, and kept current with
// the records committed since (Index.Add) and, on a store with a change
// feed, those other processes commit. Entries are loaded oldest claim
// first, by the records' time index, so that candidate pools keep a
// picture's earliest claims.
//
// It sits below content, which says where its indexes are kept (Layout)
// and adds each record it commits; it never reads records.
package nearindex

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/provenant/provenant/internal/defaults"
	"github.com/provenant/provenant/internal/hamming"
	"github.com/provenant/provenant/origin/internal/content/phindex"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/record"
)

// Index is the in-memory near-duplicate index of a store's pictures and
// videos (see the package doc). Lookups answered from it read memory
// only, find every copy within hamming.DefaultExactRadius bits of the
// 64-bit hash at any registry size, and are never cut short by a budget.
//
// An Index from Start loads in the background: until it is loaded,
// every search that needs it fails with ErrLoading (after waiting up
// to Options.Wait) instead of answering from a partial index, and
// Ready says so; records committed meanwhile are added once it is loaded.
type Index struct {
	// The indexes exist from the start and are filled once, when the load
	// has read everything: the accessors read these fields without a lock.
	main, geo, video *hamming.Index
	opts             Options
	layout           Layout

	mu      sync.Mutex
	loaded  bool
	loadErr error   // the last failed load attempt, for Ready
	pending []Entry // commits made before the load finished
	done    chan struct{}
}

// Options configure an Index.
type Options struct {
	// WithoutGeometric leaves the geometric index out (a verify-only
	// origin: the index is read by look-before-mark only, at sign and
	// register, and at eight hashes per signed picture is the largest of
	// the three). Signs of pictures, and registers, then fail with
	// content.ErrGeometricIndexOff.
	WithoutGeometric bool
	// Wait is how long a search waits for a loading index before failing
	// with ErrLoading; 0 means DefaultWait. A small registry loads
	// within it, so an origin that has just started answers its first
	// requests instead of refusing them.
	Wait time.Duration
	// Retry is the pause between load attempts after a failure (the store
	// unreachable at start); 0 means DefaultRetry.
	Retry time.Duration
}

// Defaults of Options.
const (
	DefaultWait  = time.Second
	DefaultRetry = 5 * time.Second
)

// ErrLoading: the near-duplicate index is still being loaded (an
// origin that has just started); a search that needs it would miss
// copies, so the request is refused and may be retried shortly.
var ErrLoading = errors.New("content: the near-duplicate index is loading")

// FollowInterval is how often an Index polls a shared store's change feed
// (PostgreSQL) for records other origins committed.
const FollowInterval = time.Second

// Entry is what one committed record adds to the indexes: its id, the
// 64-bit part of its perceptual hash, and of its geometric and video
// frame hashes.
type Entry struct {
	ID         [16]byte
	Main       uint64
	Geo, Video []uint64
}

// Layout says where a store keeps the indexes an Index holds.
type Layout struct {
	// Main, Geo and Video are the prefixes of the perceptual, geometric
	// and video frame indexes (phindex.Index.Prefix).
	Main, Geo, Video string
	// Claims is the prefix of the records' time index, whose keys are
	// Claims, 16 hex digits of time and '/', then the record id, oldest
	// first: loaded entries are added in that order.
	Claims string
}

// nearSource is one index to load: its store keys and its in-memory form.
type nearSource struct {
	ix  phindex.Index
	dst *hamming.Index
}

func newIndex(layout Layout, opts Options) *Index {
	opts.Wait = defaults.Positive(opts.Wait, DefaultWait)
	opts.Retry = defaults.Positive(opts.Retry, DefaultRetry)
	// The geometric index (eight hashes per signed picture, read at sign
	// and register) and the video index (up to 128 hashes per video, read
	// at video verify and sign) are compact: 36 bytes a hash, not 60.
	n := &Index{main: hamming.New(), video: hamming.NewCompact(), opts: opts, layout: layout, done: make(chan struct{})}
	if !opts.WithoutGeometric {
		n.geo = hamming.NewCompact()
	}
	return n
}

func (n *Index) sources() []nearSource {
	out := []nearSource{{phindex.Index{Prefix: []byte(n.layout.Main)}, n.main}, {phindex.Index{Prefix: []byte(n.layout.Video)}, n.video}}
	if n.geo != nil {
		out = append(out, nearSource{phindex.Index{Prefix: []byte(n.layout.Geo)}, n.geo})
	}
	return out
}

// Load reads the near-duplicate indexes st keeps under layout into
// memory and returns once they are loaded. On a store with a change feed
// (store.ChangeFeed: PostgreSQL, shared by several origins) it keeps them
// current until ctx ends, polling every FollowInterval; on Badger the
// service's own commits (Add) are everything. The time it takes grows
// with the registry (docs/operations.md); Start does not wait for it.
func Load(ctx context.Context, st store.Store, layout Layout, log *slog.Logger) (*Index, error) {
	n := newIndex(layout, Options{})
	if err := n.load(ctx, st, orDiscard(log)); err != nil {
		return nil, err
	}
	return n, nil
}

// Start returns at once an Index that loads in the background (as Load,
// retrying every opts.Retry after a failure, logged) until ctx ends. Done
// is closed when it is loaded.
func Start(ctx context.Context, st store.Store, layout Layout, log *slog.Logger, opts Options) *Index {
	n := newIndex(layout, opts)
	log = orDiscard(log)
	go func() {
		for {
			err := n.load(ctx, st, log)
			if err == nil || ctx.Err() != nil {
				return
			}
			n.mu.Lock()
			n.loadErr = err
			n.mu.Unlock()
			log.Error("near-duplicate index: load failed; retrying", "retry_in", n.opts.Retry, "err", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(n.opts.Retry):
			}
		}
	}()
	return n
}

func orDiscard(log *slog.Logger) *slog.Logger {
	if log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return log
}

// load reads every index's entries, then fills the in-memory indexes: a
// failure leaves them empty, so a retry starts afresh.
func (n *Index) load(ctx context.Context, st store.Store, log *slog.Logger) error {
	srcs := n.sources()
	sets := make([]*entries, len(srcs))
	cursors := make([][]byte, len(srcs))
	for i, x := range srcs {
		ids, p64, cursor, err := x.ix.Entries(ctx, st)
		if err != nil {
			return fmt.Errorf("content: near-duplicate index: %w", err)
		}
		sets[i], cursors[i] = &entries{ids, p64}, cursor
	}
	if err := claimOrder(ctx, st, n.layout.Claims, sets...); err != nil {
		return fmt.Errorf("content: near-duplicate index: %w", err)
	}
	for i, x := range srcs {
		x.dst.AddMany(sets[i].ids, sets[i].p64)
		x.dst.Freeze()
		if f, ok := st.(store.ChangeFeed); ok {
			go x.ix.Follow(ctx, f, x.dst, cursors[i], FollowInterval, log)
		}
		sets[i] = nil
	}
	n.mu.Lock()
	for _, a := range n.pending {
		n.apply(a)
	}
	n.pending, n.loaded, n.loadErr = nil, true, nil
	n.mu.Unlock()
	close(n.done)
	return nil
}

// Done is closed once the indexes are loaded.
func (n *Index) Done() <-chan struct{} { return n.done }

// Ready returns nil once the indexes are loaded, else ErrLoading
// (joined with the last load failure, if any): the origin's readiness
// check.
func (n *Index) Ready() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.loaded {
		return nil
	}
	if n.loadErr != nil {
		return errors.Join(ErrLoading, n.loadErr)
	}
	return ErrLoading
}

// WaitReady is Ready after waiting up to Options.Wait for the load
// (a readiness probe of an origin that has just started on a small
// registry then sees it ready).
func (n *Index) WaitReady(ctx context.Context) error {
	if n.Wait(ctx) == nil {
		return nil
	}
	return n.Ready()
}

// Wait returns nil once the indexes are loaded, waiting up to
// Options.Wait; then ErrLoading (or ctx's error). A nil Index (the
// store's buckets are read instead) is always ready.
func (n *Index) Wait(ctx context.Context) error {
	if n == nil {
		return nil
	}
	select {
	case <-n.done:
		return nil
	default:
	}
	t := time.NewTimer(n.opts.Wait)
	defer t.Stop()
	select {
	case <-n.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return ErrLoading
	}
}

// Loaded reports, without waiting, whether the indexes are loaded (a nil
// Index counts as loaded).
func (n *Index) Loaded() bool {
	if n == nil {
		return true
	}
	select {
	case <-n.done:
		return true
	default:
		return false
	}
}

// Len returns the number of hashes in the perceptual and the geometric
// index (0 when it is not held).
func (n *Index) Len() (main, geo int) {
	if n.geo != nil {
		geo = n.geo.Len()
	}
	return n.main.Len(), geo
}

// VideoLen returns the number of frame hashes in the video index.
func (n *Index) VideoLen() int { return n.video.Len() }

// Bytes estimates the memory the indexes hold (hamming.Index.Bytes).
func (n *Index) Bytes() int {
	b := n.main.Bytes() + n.video.Bytes()
	if n.geo != nil {
		b += n.geo.Bytes()
	}
	return b
}

// Main, Geo and Video are the in-memory perceptual, geometric and video
// frame indexes; Geo is nil when the geometric index is not held
// (Options.WithoutGeometric). They are filled once loaded: a caller
// checks Loaded or Wait first.
func (n *Index) Main() *hamming.Index  { return n.main }
func (n *Index) Geo() *hamming.Index   { return n.geo }
func (n *Index) Video() *hamming.Index { return n.video }

// Add adds a committed record's hashes to the indexes: at once when they
// are loaded, else once the load finishes, so that a record committed
// while they load is never missing from them. Geo is ignored when the
// geometric index is not held.
func (n *Index) Add(e Entry) {
	n.mu.Lock()
	if !n.loaded {
		n.pending = append(n.pending, e)
		n.mu.Unlock()
		return
	}
	n.mu.Unlock()
	n.apply(e)
}

func (n *Index) apply(e Entry) {
	n.main.Add(e.ID, e.Main)
	if n.geo != nil {
		for _, h := range e.Geo {
			n.geo.Add(e.ID, h)
		}
	}
	for _, h := range e.Video {
		n.video.Add(e.ID, h)
	}
}

// entries are one index's (id, hash) pairs as read from the store.
type entries struct {
	ids [][16]byte
	p64 []uint64
}

// claimOrder puts each set's entries oldest record first, by the records'
// time index (rec/t/, scanned once for all the sets), so that the
// in-memory index's insertion order, which commits extend, is claim order
// and candidate pools keep a photo's earliest claims
// (phindex.Index.LookupPool). Entries of a record missing from the time
// index come last, in their order. It sorts instead of mapping ids: three
// int32 arrays per entry rather than a map of millions.
func claimOrder(ctx context.Context, st store.Store, claims string, sets ...*entries) error {
	byID := make([][]int32, len(sets))
	rank := make([][]int32, len(sets))
	nonEmpty := false
	for s, e := range sets {
		n := len(e.ids)
		nonEmpty = nonEmpty || n > 0
		byID[s] = make([]int32, n)
		for i := range byID[s] {
			byID[s][i] = int32(i)
		}
		slices.SortFunc(byID[s], func(a, b int32) int { return bytes.Compare(e.ids[a][:], e.ids[b][:]) })
		rank[s] = make([]int32, n)
		for i := range rank[s] {
			rank[s][i] = math.MaxInt32
		}
	}
	if !nonEmpty {
		return nil
	}
	err := st.View(ctx, func(tx store.Txn) error {
		r := int32(0)
		return tx.Scan([]byte(claims), nil, func(k, _ []byte) error {
			const stamp = 17 // 16 hex digits and '/'
			if len(k) < len(claims)+stamp {
				return nil
			}
			id, err := record.ParseID(string(k[len(claims)+stamp:]))
			if err != nil {
				return nil
			}
			for s, e := range sets {
				j, _ := slices.BinarySearchFunc(byID[s], id, func(x int32, t record.ID) int { return bytes.Compare(e.ids[x][:], t[:]) })
				for ; j < len(e.ids) && e.ids[byID[s][j]] == id; j++ {
					rank[s][byID[s][j]] = r
				}
			}
			r++
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("claim order: %w", err)
	}
	for s, e := range sets {
		order := byID[s] // reused: the ids are no longer searched
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(rank[s][a], rank[s][b]) })
		ids, p64 := make([][16]byte, len(order)), make([]uint64, len(order))
		for i, o := range order {
			ids[i], p64[i] = e.ids[o], e.p64[o]
		}
		e.ids, e.p64 = ids, p64
		byID[s], rank[s] = nil, nil
	}
	return nil
}
