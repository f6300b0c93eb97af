package phindex

import (
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/provenant/provenant/internal/hamming"
	"github.com/provenant/provenant/origin/internal/periodic"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/phash"
)

// memLookup answers Lookup from ix.Mem: every hash within
// hamming.ExactRadius(radius+1) bits (8 for the default radius 1, 11 for radius
// 2, at least what the bucket probes guarantee), never truncated.
func (ix Index) memLookup(q phash.Hash, max64, limit int) []Match {
	ms := ix.Mem.LookupRadius(q.P64, max64, ix.radius()+1)
	out := make([]Match, 0, min(len(ms), limit))
	for _, m := range ms {
		if len(out) == limit {
			break
		}
		out = append(out, Match(m))
	}
	return out
}

// band0 is the key prefix of the index's first band: every indexed
// (id, hash) is in exactly one of its buckets.
func (ix Index) band0() []byte { return append(append([]byte{}, ix.Prefix...), 0) }

// eachEntry calls fn for every entry of a band chunk k → v as stored.
func (ix Index) eachEntry(k, v []byte, fn func(id [16]byte, p64 uint64)) error {
	want := len(ix.Prefix) + 5
	if len(k) != want {
		return fmt.Errorf("phindex: key of %d bytes under the index, want %d", len(k), want)
	}
	if binary.BigEndian.Uint16(k[want-2:]) == 0 {
		if len(v) < 2 {
			return fmt.Errorf("phindex: bucket chunk 0 without header")
		}
		v = v[2:]
	}
	for e := 0; e+entryLen <= len(v); e += entryLen {
		var id [16]byte
		copy(id[:], v[e:e+idLen])
		fn(id, binary.BigEndian.Uint64(v[e+idLen:e+entryLen]))
	}
	return nil
}

// Entries reads every (id, hash) of the index in st from its first band,
// in one snapshot, and the change-feed cursor taken before that snapshot
// (nil when st has no feed) for Follow.
func (ix Index) Entries(ctx context.Context, st store.Store) (ids [][16]byte, p64 []uint64, cursor []byte, err error) {
	if f, ok := st.(store.ChangeFeed); ok {
		c, err := f.Changes(ctx, ix.band0(), nil, nil)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("phindex: load: %w", err)
		}
		cursor = c
	}
	err = st.View(ctx, func(tx store.Txn) error {
		ids, p64 = ids[:0], p64[:0]
		return tx.Scan(ix.band0(), nil, func(k, v []byte) error {
			return ix.eachEntry(k, v, func(id [16]byte, h uint64) {
				ids = append(ids, id)
				p64 = append(p64, h)
			})
		})
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("phindex: load: %w", err)
	}
	return ids, p64, cursor, nil
}

// LoadMem returns an in-memory index of every entry (Entries, in bucket
// order) and the cursor to Follow from.
func (ix Index) LoadMem(ctx context.Context, st store.Store) (*hamming.Index, []byte, error) {
	ids, p64, cursor, err := ix.Entries(ctx, st)
	if err != nil {
		return nil, nil, err
	}
	m := hamming.New()
	m.AddMany(ids, p64)
	m.Freeze()
	return m, cursor, nil
}

// LookupPool is the lookup of a candidate pool: the nearest matches within
// max64 (at most nearest of them) and, from an in-memory index, the
// earliest-added ones (the earliest within hamming.DefaultExactRadius and
// the earliest within max64, at most earliest of each), which a
// nearest-first cut drops when a burst of copies of one photo is nearer
// the query than its first claim. first holds those not in near, oldest
// first. Without Mem it is Lookup, and first is empty.
func (ix Index) LookupPool(txn store.Txn, q phash.Hash, max64, nearest, earliest int) (near, first []Match, err error) {
	if ix.Mem == nil {
		near, _, err = ix.Lookup(txn, q, max64, nearest, 0)
		return near, nil, err
	}
	all := ix.Mem.LookupRadius(q.P64, max64, ix.radius()+1)
	near = make([]Match, 0, min(len(all), nearest))
	for _, m := range all[:min(nearest, len(all))] {
		near = append(near, Match(m))
	}
	if len(all) <= nearest || earliest <= 0 {
		return near, nil, nil
	}
	bySeq := slices.Clone(all[nearest:])
	slices.SortFunc(bySeq, func(a, b hamming.Match) int { return a.Seq - b.Seq })
	taken := map[int]bool{}
	for _, within := range []int{hamming.DefaultExactRadius, max64} {
		k := 0
		for _, m := range bySeq {
			if k == earliest {
				break
			}
			if m.D64 > within {
				continue
			}
			k++
			if !taken[m.Seq] {
				taken[m.Seq] = true
				first = append(first, Match(m))
			}
		}
	}
	slices.SortFunc(first, func(a, b Match) int { return a.Seq - b.Seq })
	return near, first, nil
}

// CatchUp adds to m what other processes committed to the index since
// cursor (store.ChangeFeed) and returns the next cursor.
func (ix Index) CatchUp(ctx context.Context, f store.ChangeFeed, m *hamming.Index, cursor []byte) ([]byte, error) {
	next, err := f.Changes(ctx, ix.band0(), cursor, func(k, v []byte) error {
		return ix.eachEntry(k, v, m.Add)
	})
	if err != nil {
		return cursor, fmt.Errorf("phindex: catch up: %w", err)
	}
	return next, nil
}

// Follow calls CatchUp every interval until ctx ends, logging failures
// (the next round retries from the same cursor). A write on another origin
// is thus found here within about one interval; this origin's own writes
// are added on its write path.
func (ix Index) Follow(ctx context.Context, f store.ChangeFeed, m *hamming.Index, cursor []byte, interval time.Duration, log *slog.Logger) {
	periodic.Every(ctx, interval, func() bool {
		next, err := ix.CatchUp(ctx, f, m, cursor)
		if err != nil {
			if ctx.Err() == nil {
				log.Warn("near-duplicate index: change feed failed; retrying", "prefix", string(ix.Prefix), "err", err)
			}
			return false
		}
		cursor = next
		return false
	})
}
