package content

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/provenant/provenant/internal/hamming"
	"github.com/provenant/provenant/origin/internal/content/phindex"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/record"
)

// Near is the in-memory near-duplicate index of a store's pictures: the
// perceptual index and the geometric one (look-before-mark), each a
// hamming.Index loaded from the store's own index keys, which stay the
// source of truth. Lookups through a Service configured with it read
// memory only, find every copy within hamming.DefaultExactRadius bits of the
// 64-bit hash at any registry size, and are never cut short by a budget.
type Near struct {
	main, geo *hamming.Index
}

// NearFollowInterval is how often Near polls a shared store's change feed
// (PostgreSQL) for records other origins committed.
const NearFollowInterval = time.Second

// LoadNear reads the store's perceptual and geometric indexes into memory.
// On a store with a change feed (store.ChangeFeed: PostgreSQL, shared by
// several origins) it keeps them current until ctx ends, polling every
// NearFollowInterval; on Badger the service's own commits are everything.
// The time it takes grows with the registry (docs/operations.md).
func LoadNear(ctx context.Context, st store.Store, log *slog.Logger) (*Near, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	n := &Near{}
	for _, x := range []struct {
		ix  phindex.Index
		dst **hamming.Index
	}{
		{phindex.Index{Prefix: []byte(pfxPHash)}, &n.main},
		{phindex.Index{Prefix: []byte(pfxGeoIndex)}, &n.geo},
	} {
		m, cursor, err := x.ix.LoadMem(ctx, st)
		if err != nil {
			return nil, fmt.Errorf("content: near-duplicate index: %w", err)
		}
		*x.dst = m
		if f, ok := st.(store.ChangeFeed); ok {
			go x.ix.Follow(ctx, f, m, cursor, NearFollowInterval, log)
		}
	}
	return n, nil
}

// Len returns the number of hashes in the perceptual and the geometric
// index.
func (n *Near) Len() (main, geo int) { return n.main.Len(), n.geo.Len() }

// nearCommitted adds a committed record's perceptual hash, and the
// geometric hashes its transaction kept, to the in-memory indexes.
func (s *Service) nearCommitted(ctx context.Context, rec *record.Record) error {
	n := s.cfg.Near
	if n == nil {
		return nil
	}
	n.main.Add(rec.ID, rec.PerceptualHash.P64)
	return s.cfg.Store.View(ctx, func(tx store.Txn) error {
		gs, err := geoHashes(tx, rec.ID.String())
		if err != nil {
			return err
		}
		for _, h := range gs {
			n.geo.Add(rec.ID, h.P64)
		}
		return nil
	})
}
