package content

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"
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
	// The geometric index holds eight hashes per signed picture and is
	// read only at sign and register: compact (36 bytes a hash, not 60).
	for _, x := range []struct {
		ix  phindex.Index
		dst **hamming.Index
		new func() *hamming.Index
	}{
		{phindex.Index{Prefix: []byte(pfxPHash)}, &n.main, hamming.New},
		{phindex.Index{Prefix: []byte(pfxGeoIndex)}, &n.geo, hamming.NewCompact},
	} {
		ids, p64, cursor, err := x.ix.Entries(ctx, st)
		if err != nil {
			return nil, fmt.Errorf("content: near-duplicate index: %w", err)
		}
		if ids, p64, err = claimOrder(ctx, st, ids, p64); err != nil {
			return nil, fmt.Errorf("content: near-duplicate index: %w", err)
		}
		m := x.new()
		m.AddMany(ids, p64)
		m.Freeze()
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

// claimOrder returns the entries oldest record first, by the records' time
// index (rec/t/), so that the in-memory index's insertion order, which
// commits extend, is claim order and candidate pools keep a photo's
// earliest claims (phindex.Index.LookupPool). Entries of a record missing
// from the time index come last, in their order. It sorts instead of
// mapping ids: three int32 arrays per entry rather than a map of millions.
func claimOrder(ctx context.Context, st store.Store, ids [][16]byte, p64 []uint64) ([][16]byte, []uint64, error) {
	n := len(ids)
	byID := make([]int32, n)
	for i := range byID {
		byID[i] = int32(i)
	}
	slices.SortFunc(byID, func(a, b int32) int { return bytes.Compare(ids[a][:], ids[b][:]) })
	rank := make([]int32, n)
	for i := range rank {
		rank[i] = math.MaxInt32
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
			j, _ := slices.BinarySearchFunc(byID, id, func(e int32, t record.ID) int { return bytes.Compare(ids[e][:], t[:]) })
			for ; j < n && ids[byID[j]] == id; j++ {
				rank[byID[j]] = r
			}
			r++
			return nil
		})
	})
	if err != nil {
		return nil, nil, fmt.Errorf("claim order: %w", err)
	}
	order := byID // reused: the ids are no longer searched
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(rank[a], rank[b]) })
	outIDs, outP64 := make([][16]byte, n), make([]uint64, n)
	for i, o := range order {
		outIDs[i], outP64[i] = ids[o], p64[o]
	}
	return outIDs, outP64, nil
}
