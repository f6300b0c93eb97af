package imagex

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/provenant/provenant/shared/limits"
)

// ErrBusy: the decode memory [Budget] had no room for an image within the
// wait allowed. The image itself is fine; the caller may try again later.
var ErrBusy = errors.New("imagex: decode memory budget exhausted")

// BudgetConfig configures a [Budget].
type BudgetConfig struct {
	// Capacity is the memory, in bytes, that the decodes holding a
	// reservation may use together. It must be positive.
	Capacity int64
	// Wait bounds how long Reserve waits for room (besides the caller's
	// context); zero means no wait.
	Wait time.Duration
	// Released, if set, is called on the releasing goroutine after each
	// release, outside the budget's lock and before the freed room is
	// granted to waiting reservations, with the bytes released and the
	// bytes still reserved: the moment to collect the released decode's
	// garbage, so that the next decode reuses its memory instead of adding
	// to it, or to return memory to the operating system.
	Released func(n, inUse int64)
}

// Budget is a weighted semaphore over decode memory, shared by every
// decode of a process: each decode reserves its [Info.Cost] before it
// allocates and releases it when its pixels are no longer used, so that
// concurrent requests wait for room (or fail with [ErrBusy]) instead of
// exhausting memory together. A waiting reservation is granted as soon as
// it fits, in arrival order among those that fit: a large image waiting
// for room does not hold back small ones. A Budget is safe for concurrent
// use; a nil *Budget reserves nothing.
type Budget struct {
	cfg     BudgetConfig
	mu      sync.Mutex
	used    int64
	waiters []*waiter
}

type waiter struct {
	n     int64
	ready chan struct{} // closed when granted
}

// NewBudget returns a budget; it fails on a non-positive capacity.
func NewBudget(cfg BudgetConfig) (*Budget, error) {
	if cfg.Capacity <= 0 {
		return nil, fmt.Errorf("imagex: budget capacity %d <= 0", cfg.Capacity)
	}
	return &Budget{cfg: cfg}, nil
}

// Capacity returns the budget's capacity in bytes (0 for nil).
func (b *Budget) Capacity() int64 {
	if b == nil {
		return 0
	}
	return b.cfg.Capacity
}

// InUse returns the bytes currently reserved.
func (b *Budget) InUse() int64 {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Acquire reserves n bytes, waiting up to the configured Wait or until ctx
// is done. It returns a release function to call exactly once (later calls
// do nothing). Errors: ErrBusy when no room came in time;
// *DimensionError (ErrTooManyPixels) when n exceeds the whole capacity,
// which waiting cannot cure.
func (b *Budget) Acquire(ctx context.Context, n int64) (release func(), err error) {
	if b == nil || n <= 0 {
		return func() {}, nil
	}
	if n > b.cfg.Capacity {
		return nil, &DimensionError{NeedBytes: n, MaxBytes: b.cfg.Capacity}
	}
	b.mu.Lock()
	if b.used+n <= b.cfg.Capacity { // waiters, if any, do not fit now

		b.used += n
		b.mu.Unlock()
		return b.releaser(n), nil
	}
	if b.cfg.Wait <= 0 {
		b.mu.Unlock()
		return nil, fmt.Errorf("%w: %d bytes wanted, %d of %d in use", ErrBusy, n, b.used, b.cfg.Capacity)
	}
	w := &waiter{n: n, ready: make(chan struct{})}
	b.waiters = append(b.waiters, w)
	b.mu.Unlock()

	timer := time.NewTimer(b.cfg.Wait)
	defer timer.Stop()
	var why error
	select {
	case <-w.ready:
		return b.releaser(n), nil
	case <-timer.C:
		why = ErrBusy
	case <-ctx.Done():
		why = fmt.Errorf("%w: %w", ErrBusy, ctx.Err())
	}
	b.mu.Lock()
	select {
	case <-w.ready: // granted while timing out: keep it
		b.mu.Unlock()
		return b.releaser(n), nil
	default:
	}
	for i, x := range b.waiters {
		if x == w {
			b.waiters = append(b.waiters[:i], b.waiters[i+1:]...)
			break
		}
	}
	// Our leaving may let smaller waiters behind us in.
	b.grantLocked()
	b.mu.Unlock()
	return nil, fmt.Errorf("%w: %d bytes wanted, waited %v", why, n, b.cfg.Wait)
}

// Reserve reads file's header under lim (as [DecodeConfig] does, with the
// same errors) and acquires [Info.Cost] for u. The caller decodes after it
// and calls release once its pixels are no longer used.
func (b *Budget) Reserve(ctx context.Context, file []byte, lim limits.Limits, u Use) (release func(), err error) {
	info, err := DecodeConfig(file, lim)
	if err != nil {
		return nil, err
	}
	release, err = b.Acquire(ctx, info.Cost(u))
	var de *DimensionError
	if errors.As(err, &de) {
		de.Format, de.Width, de.Height, de.MaxPixels, de.MaxSide = info.Format, info.Width, info.Height, lim.MaxPixels, lim.MaxSide
	}
	return release, err
}

func (b *Budget) releaser(n int64) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			b.used -= n
			inUse := b.used
			if b.cfg.Released == nil {
				b.grantLocked()
				b.mu.Unlock()
				return
			}
			b.mu.Unlock()
			b.cfg.Released(n, inUse)
			b.mu.Lock()
			b.grantLocked()
			b.mu.Unlock()
		})
	}
}

// grantLocked admits every waiter that fits, oldest first.
func (b *Budget) grantLocked() {
	kept := b.waiters[:0]
	for _, w := range b.waiters {
		if b.used+w.n <= b.cfg.Capacity {
			b.used += w.n
			close(w.ready)
			continue
		}
		kept = append(kept, w)
	}
	clear(b.waiters[len(kept):])
	b.waiters = kept
}
