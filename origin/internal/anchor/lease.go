package anchor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/clock"
)

// keyLease holds the anchoring lease (leaseRec JSON) when several origins
// share one store.
var keyLease = []byte("anchor/m/lease")

// DefaultLeaseTTL is the lease duration when LeaseConfig.TTL is zero: a
// dead leader is replaced within this time.
const DefaultLeaseTTL = 15 * time.Second

// ErrNotLeader is returned by the batcher's transactions when this origin
// does not hold the anchoring lease at the epoch it acquired: another
// origin took over, and nothing of the transaction is committed.
var ErrNotLeader = errors.New("anchor: not the anchoring leader (lease lost or taken over)")

// LeaseConfig configures a Lease. Store and Holder are required.
type LeaseConfig struct {
	Store store.Store
	// Holder names this process uniquely among the origins sharing Store
	// (a random id per start, so a restarted origin is a new holder).
	Holder string
	// TTL is how long an acquired or renewed lease lasts; zero means
	// DefaultLeaseTTL. Run renews it every TTL/3.
	TTL time.Duration
	// Clock; clock.System if nil.
	Clock clock.Clock
	// Logger; discards if nil.
	Logger *slog.Logger
}

// Lease elects one anchoring leader among the origins sharing a store and
// fences the others out. The lease is one store key holding the holder,
// an epoch and an expiry. Taking over an expired lease increments the
// epoch. Every state-changing transaction of a Batcher configured with the
// lease reads the key and aborts with ErrNotLeader unless it still names
// this holder at the epoch this process acquired, unexpired; because that
// read is part of the transaction, a concurrent takeover makes one of the
// two commits conflict (the Store's serializable isolation), so a paused
// or partitioned old leader can never close a batch or assign a nonce once
// another origin has taken over. Safety rests on the epoch, not on clocks;
// clocks only decide when a lease is considered expired (keep the skew
// between origins well below TTL).
type Lease struct {
	cfg LeaseConfig

	mu    sync.Mutex
	epoch uint64    // epoch acquired, 0 when not leader
	until time.Time // local end of the lease as last acquired or renewed
}

type leaseRec struct {
	Holder    string    `json:"holder"`
	Epoch     uint64    `json:"epoch"`
	ExpiresAt time.Time `json:"expires_at"`
}

// NewLease validates cfg and returns a Lease not yet acquired.
func NewLease(cfg LeaseConfig) (*Lease, error) {
	if cfg.Store == nil || cfg.Holder == "" {
		return nil, errors.New("anchor: LeaseConfig.Store and Holder are required")
	}
	if cfg.TTL == 0 {
		cfg.TTL = DefaultLeaseTTL
	}
	if cfg.TTL < 0 {
		return nil, errors.New("anchor: negative lease TTL")
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.System{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Lease{cfg: cfg}, nil
}

// Acquire takes the lease when it is free or expired, renews it when this
// holder has it, and reports whether this holder leads now.
func (l *Lease) Acquire(ctx context.Context) (bool, error) {
	l.mu.Lock()
	mine := l.epoch
	l.mu.Unlock()
	now := l.cfg.Clock.Now()
	var got leaseRec
	err := l.cfg.Store.Update(ctx, func(txn store.Txn) error {
		rec, err := store.GetJSON[leaseRec](txn, keyLease)
		switch {
		case errors.Is(err, store.ErrNotFound):
			rec = leaseRec{}
		case err != nil:
			return err
		}
		switch {
		case mine != 0 && rec.Holder == l.cfg.Holder && rec.Epoch == mine:
			// Renewal, even if it lapsed meanwhile: nobody took over.
		case rec.Holder == "" || !now.Before(rec.ExpiresAt):
			rec.Epoch++
			rec.Holder = l.cfg.Holder
		default:
			got = rec
			return nil
		}
		rec.ExpiresAt = now.Add(l.cfg.TTL)
		got = rec
		return store.PutJSON(txn, keyLease, rec)
	})
	if err != nil {
		return false, fmt.Errorf("anchor: acquire lease: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if got.Holder != l.cfg.Holder {
		if l.epoch != 0 {
			l.cfg.Logger.Warn("anchoring lease lost", "epoch", l.epoch, "leader", got.Holder, "leader_epoch", got.Epoch)
		}
		l.epoch, l.until = 0, time.Time{}
		return false, nil
	}
	if l.epoch != got.Epoch {
		l.cfg.Logger.Info("anchoring lease acquired", "holder", got.Holder, "epoch", got.Epoch)
	}
	l.epoch, l.until = got.Epoch, got.ExpiresAt
	return true, nil
}

// Held reports whether this holder acquired the lease and its local term
// has not run out. It is a hint for skipping work; the fence is Check.
func (l *Lease) Held() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.epoch != 0 && l.cfg.Clock.Now().Before(l.until)
}

// Epoch returns the epoch this holder acquired, 0 when it does not lead.
func (l *Lease) Epoch() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.epoch
}

// Check is the fence: inside txn it returns ErrNotLeader unless the stored
// lease names this holder at the epoch it acquired and has not expired.
func (l *Lease) Check(txn store.Txn) error {
	l.mu.Lock()
	mine := l.epoch
	l.mu.Unlock()
	rec, err := store.GetJSON[leaseRec](txn, keyLease)
	if errors.Is(err, store.ErrNotFound) {
		return ErrNotLeader
	}
	if err != nil {
		return err
	}
	if mine == 0 || rec.Holder != l.cfg.Holder || rec.Epoch != mine || !l.cfg.Clock.Now().Before(rec.ExpiresAt) {
		return ErrNotLeader
	}
	return nil
}

// Run acquires or renews the lease every TTL/3 until ctx ends, then
// releases it if held, so that another origin takes over at once after a
// clean shutdown.
func (l *Lease) Run(ctx context.Context) {
	every := l.cfg.TTL / 3
	for {
		if _, err := l.Acquire(ctx); err != nil && ctx.Err() == nil {
			l.cfg.Logger.Warn("anchoring lease", "err", err)
		}
		select {
		case <-ctx.Done():
			l.release()
			return
		case <-time.After(every):
		}
	}
}

// release ends a held lease now (expiry set to the present), keeping the
// epoch so that the next leader increments it.
func (l *Lease) release() {
	l.mu.Lock()
	mine := l.epoch
	l.epoch, l.until = 0, time.Time{}
	l.mu.Unlock()
	if mine == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = l.cfg.Store.Update(ctx, func(txn store.Txn) error {
		rec, err := store.GetJSON[leaseRec](txn, keyLease)
		if err != nil || rec.Holder != l.cfg.Holder || rec.Epoch != mine {
			return err
		}
		rec.ExpiresAt = l.cfg.Clock.Now()
		return store.PutJSON(txn, keyLease, rec)
	})
}
