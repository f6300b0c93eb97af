package content

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
	"github.com/provenant/provenant/origin/internal/content/videos"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/record"
)

// Near is the in-memory near-duplicate index of a store's pictures and
// videos: the perceptual index, the geometric one (look-before-mark) and
// the video frame index, each a hamming.Index loaded from the store's own
// index keys, which stay the source of truth. Lookups through a Service
// configured with it read memory only, find every copy within
// hamming.DefaultExactRadius bits of the 64-bit hash at any registry size,
// and are never cut short by a budget.
//
// A Near from StartNear loads in the background: until it is loaded,
// every search that needs it fails with ErrNearLoading (after waiting up
// to NearOptions.Wait) instead of answering from a partial index, and
// Ready says so; records committed meanwhile are added once it is loaded.
type Near struct {
	// The indexes exist from the start and are filled once, when the load
	// has read everything: the accessors read these fields without a lock.
	main, geo, video *hamming.Index
	opts             NearOptions

	mu      sync.Mutex
	loaded  bool
	loadErr error     // the last failed load attempt, for Ready
	pending []nearAdd // commits made before the load finished
	done    chan struct{}
}

// NearOptions configure a Near.
type NearOptions struct {
	// WithoutGeometric leaves the geometric index out (a verify-only
	// origin: the index is read by look-before-mark only, at sign and
	// register, and at eight hashes per signed picture is the largest of
	// the three). Signs of pictures, and registers, then fail with
	// ErrGeometricIndexOff.
	WithoutGeometric bool
	// Wait is how long a search waits for a loading index before failing
	// with ErrNearLoading; 0 means DefaultNearWait. A small registry loads
	// within it, so an origin that has just started answers its first
	// requests instead of refusing them.
	Wait time.Duration
	// Retry is the pause between load attempts after a failure (the store
	// unreachable at start); 0 means DefaultNearRetry.
	Retry time.Duration
}

// Defaults of NearOptions.
const (
	DefaultNearWait  = time.Second
	DefaultNearRetry = 5 * time.Second
)

// ErrNearLoading: the near-duplicate index is still being loaded (an
// origin that has just started); a search that needs it would miss
// copies, so the request is refused and may be retried shortly.
var ErrNearLoading = errors.New("content: the near-duplicate index is loading")

// ErrGeometricIndexOff: a sign or register of a picture reached an origin
// that does not hold the geometric index (NearOptions.WithoutGeometric),
// which look-before-mark needs.
var ErrGeometricIndexOff = errors.New("content: this origin holds no geometric index and serves verification only")

// NearFollowInterval is how often Near polls a shared store's change feed
// (PostgreSQL) for records other origins committed.
const NearFollowInterval = time.Second

// nearAdd is what one committed record adds to the indexes.
type nearAdd struct {
	id         [16]byte
	main       uint64
	geo, video []uint64
}

// nearSource is one index to load: its store keys and its in-memory form.
type nearSource struct {
	ix  phindex.Index
	dst *hamming.Index
}

func newNear(opts NearOptions) *Near {
	opts.Wait = defaults.Positive(opts.Wait, DefaultNearWait)
	opts.Retry = defaults.Positive(opts.Retry, DefaultNearRetry)
	// The geometric index (eight hashes per signed picture, read at sign
	// and register) and the video index (up to 128 hashes per video, read
	// at video verify and sign) are compact: 36 bytes a hash, not 60.
	n := &Near{main: hamming.New(), video: hamming.NewCompact(), opts: opts, done: make(chan struct{})}
	if !opts.WithoutGeometric {
		n.geo = hamming.NewCompact()
	}
	return n
}

func (n *Near) sources() []nearSource {
	out := []nearSource{{phindex.Index{Prefix: []byte(pfxPHash)}, n.main}, {phindex.Index{Prefix: []byte(videos.FramePrefix)}, n.video}}
	if n.geo != nil {
		out = append(out, nearSource{phindex.Index{Prefix: []byte(pfxGeoIndex)}, n.geo})
	}
	return out
}

// LoadNear reads the store's near-duplicate indexes into memory and
// returns once they are loaded. On a store with a change feed
// (store.ChangeFeed: PostgreSQL, shared by several origins) it keeps them
// current until ctx ends, polling every NearFollowInterval; on Badger the
// service's own commits are everything. The time it takes grows with the
// registry (docs/operations.md); StartNear does not wait for it.
func LoadNear(ctx context.Context, st store.Store, log *slog.Logger) (*Near, error) {
	n := newNear(NearOptions{})
	if err := n.load(ctx, st, orDiscard(log)); err != nil {
		return nil, err
	}
	return n, nil
}

// StartNear returns at once a Near that loads in the background (as
// LoadNear, retrying every opts.Retry after a failure, logged) until ctx
// ends. Done is closed when it is loaded.
func StartNear(ctx context.Context, st store.Store, log *slog.Logger, opts NearOptions) *Near {
	n := newNear(opts)
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
func (n *Near) load(ctx context.Context, st store.Store, log *slog.Logger) error {
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
	if err := claimOrder(ctx, st, sets...); err != nil {
		return fmt.Errorf("content: near-duplicate index: %w", err)
	}
	for i, x := range srcs {
		x.dst.AddMany(sets[i].ids, sets[i].p64)
		x.dst.Freeze()
		if f, ok := st.(store.ChangeFeed); ok {
			go x.ix.Follow(ctx, f, x.dst, cursors[i], NearFollowInterval, log)
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
func (n *Near) Done() <-chan struct{} { return n.done }

// Ready returns nil once the indexes are loaded, else ErrNearLoading
// (joined with the last load failure, if any): the origin's readiness
// check.
func (n *Near) Ready() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.loaded {
		return nil
	}
	if n.loadErr != nil {
		return errors.Join(ErrNearLoading, n.loadErr)
	}
	return ErrNearLoading
}

// WaitReady is Ready after waiting up to NearOptions.Wait for the load
// (a readiness probe of an origin that has just started on a small
// registry then sees it ready).
func (n *Near) WaitReady(ctx context.Context) error {
	if n.wait(ctx) == nil {
		return nil
	}
	return n.Ready()
}

// wait returns nil once the indexes are loaded, waiting up to
// NearOptions.Wait; then ErrNearLoading. A nil Near (the store's buckets
// are read) is always ready.
func (n *Near) wait(ctx context.Context) error {
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
		return ErrNearLoading
	}
}

// isLoaded reports, without waiting, whether the indexes are loaded (a
// nil Near counts as loaded).
func (n *Near) isLoaded() bool {
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
func (n *Near) Len() (main, geo int) {
	if n.geo != nil {
		geo = n.geo.Len()
	}
	return n.main.Len(), geo
}

// VideoLen returns the number of frame hashes in the video index.
func (n *Near) VideoLen() int { return n.video.Len() }

// Bytes estimates the memory the indexes hold (hamming.Index.Bytes).
func (n *Near) Bytes() int {
	b := n.main.Bytes() + n.video.Bytes()
	if n.geo != nil {
		b += n.geo.Bytes()
	}
	return b
}

func (n *Near) apply(a nearAdd) {
	n.main.Add(a.id, a.main)
	if n.geo != nil {
		for _, h := range a.geo {
			n.geo.Add(a.id, h)
		}
	}
	for _, h := range a.video {
		n.video.Add(a.id, h)
	}
}

// nearCommitted adds a committed record's perceptual hash, and the
// geometric and video frame hashes its transaction kept, to the in-memory
// indexes (once they are loaded, if they are loading).
func (s *Service) nearCommitted(ctx context.Context, rec *record.Record) error {
	n := s.cfg.Near.Index
	if n == nil {
		return nil
	}
	a := nearAdd{id: rec.ID, main: rec.PerceptualHash.P64}
	err := s.cfg.Store.View(ctx, func(tx store.Txn) error {
		if n.geo != nil {
			gs, err := geoHashes(tx, rec.ID.String())
			if err != nil {
				return err
			}
			for _, h := range gs {
				a.geo = append(a.geo, h.P64)
			}
		}
		vs, err := videos.Indexed(tx, rec.ID)
		for _, h := range vs {
			a.video = append(a.video, h.P64)
		}
		return err
	})
	if err != nil {
		return err
	}
	n.mu.Lock()
	if !n.loaded {
		n.pending = append(n.pending, a)
		n.mu.Unlock()
		return nil
	}
	n.mu.Unlock()
	n.apply(a)
	return nil
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
func claimOrder(ctx context.Context, st store.Store, sets ...*entries) error {
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
		return tx.Scan([]byte(pfxTime), nil, func(k, _ []byte) error {
			const stamp = 17 // 16 hex digits and '/'
			if len(k) < len(pfxTime)+stamp {
				return nil
			}
			id, err := record.ParseID(string(k[len(pfxTime)+stamp:]))
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

// The store indexes of the perceptual hashes and of the geometric hashes
// of mirrors and turns (videoIndex is the video frames'); each answered
// from its in-memory index when the service has one.
func (s *Service) phindex() phindex.Index {
	return s.cfg.Near.index(pfxPHash, func(n *Near) *hamming.Index { return n.main })
}

func (s *Service) geoIndex() phindex.Index {
	return s.cfg.Near.index(pfxGeoIndex, func(n *Near) *hamming.Index { return n.geo })
}
