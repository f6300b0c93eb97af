package httpapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/provenant/provenant/origin/internal/store"
)

// Idempotency leases serialise one (credential, key) across the origins
// that share a store (PostgreSQL, store.IsShared): the in-process lock
// covers one origin only. Before it looks for a stored response, a request takes the key's
// lease in a store transaction (serializable, so two origins cannot both
// take it); a request that finds another origin's live lease waits for it
// to go and then replays the response the holder stored. The holder
// renews the lease while its handler runs (a video sign takes minutes),
// and a holder that dies stops renewing: its lease lapses after
// idemLeaseTTL, and the waiter then finds the claim the dead request's
// transaction wrote (and answers from it) or nothing (and runs).
//
//	idem/p/<entry id hex>  expiry unix nanos (8 bytes BE) ‖ holder token (16 bytes)
const (
	pfxIdemLease = "idem/p/"
	// idemLeaseTTL is how long a lease outlives its last renewal: what a
	// retry waits, at most, after the origin holding the key died.
	idemLeaseTTL = 6 * time.Second
	// idemLeaseRenew is how often a holder renews.
	idemLeaseRenew = 2 * time.Second
	// idemLeasePoll is how often a waiter looks again.
	idemLeasePoll = 50 * time.Millisecond
)

// leaseValue encodes a lease held by token until exp.
func leaseValue(exp time.Time, token []byte) []byte {
	return append(binary.BigEndian.AppendUint64(nil, uint64(exp.UnixNano())), token...)
}

// wallNow is the lease clock: leases are about processes being alive, so
// they run on the wall clock whatever clock the API answers with.
func (i *idempotency) wallNow() time.Time {
	if i.wall != nil {
		return i.wall()
	}
	return time.Now()
}

// acquire takes id's lease, waiting (until ctx ends) while another
// request holds it, and returns the function that gives it back. The
// lease is renewed until then.
func (i *idempotency) acquire(ctx context.Context, id string) (release func(), err error) {
	if !store.IsShared(i.st) {
		// One process owns the store (Badger): the in-process lock
		// serialises the key, and a lease would cost two synced writes.
		return func() {}, nil
	}
	token := make([]byte, 16)
	if _, err := rand.Read(token); err != nil {
		return nil, err
	}
	key := []byte(pfxIdemLease + id)
	for {
		held := false
		err := i.st.Update(ctx, func(tx store.Txn) error {
			held = false
			now := i.wallNow()
			v, err := tx.Get(key)
			switch {
			case errors.Is(err, store.ErrNotFound):
			case err != nil:
				return err
			case len(v) >= 8 && now.Before(time.Unix(0, int64(binary.BigEndian.Uint64(v)))):
				held = true
				return nil
			}
			return tx.Set(key, leaseValue(now.Add(idemLeaseTTL), token))
		})
		if err != nil {
			return nil, fmt.Errorf("httpapi: idempotency lease: %w", err)
		}
		if !held {
			break
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(idemLeasePoll):
		}
	}
	// update changes the lease only while this request still holds it.
	update := func(ctx context.Context, set []byte) error {
		return i.st.Update(ctx, func(tx store.Txn) error {
			v, err := tx.Get(key)
			if errors.Is(err, store.ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			if len(v) < 8 || !bytes.Equal(v[8:], token) {
				return nil
			}
			if set == nil {
				return tx.Delete(key)
			}
			return tx.Set(key, set)
		})
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(idemLeaseRenew)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				// A failed renewal is retried at the next tick; the lease
				// has three renewals' worth of margin.
				_ = update(context.Background(), leaseValue(i.wallNow().Add(idemLeaseTTL), token))
			}
		}
	}()
	return func() {
		close(stop)
		<-done
		// The request's context may be over (the client left); the lease
		// goes anyway, or lapses by itself if the store refuses.
		rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = update(rctx, nil)
	}, nil
}
