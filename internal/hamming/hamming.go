// Package hamming is an in-memory index of 64-bit hashes for Hamming
// neighbour search (multi-index hashing), exact within a radius at any
// size: the origin's near-duplicate lookups read it instead of the
// store's bucket index, which stays the source of truth.
package hamming

import (
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
)

// Index is an in-memory multi-index hash over 64-bit perceptual hashes,
// each with a 16-byte id (a record), several hashes per id allowed.
//
// Recall guarantee: the 64-bit hash is cut into three substrings of 22, 21
// and 21 bits, and a lookup reads, in each, every bucket within 2 bits of
// the query's substring. Two hashes at distance d ≤ DefaultExactRadius = 8
// differ in at least one substring by at most 2 bits (three substrings of
// ≥ 3 differing bits would make 9), so every stored hash within 8 bits is
// returned whatever the number of records: there is no read budget. Hashes
// from 9 up to the caller's max64 are returned when they happen to fall in
// a probed bucket (most at 9–10 bits, fewer beyond).
//
// Layout (60 bytes per indexed hash plus a directory): the ids and hashes
// in insertion order, and per substring the positions and a copy of the
// hashes sorted by the substring's leading dirBits bits with a directory
// of bucket offsets, dirBits = min(log2(records), 21), so a bucket holds
// one or two hashes up to 2M records and records/2M beyond; a lookup
// reads 696 buckets (fewer below 2M records). Hashes added since the
// sorted part was built are scanned linearly (at most freezeEvery of
// them), and a background rebuild folds them in.
//
// Index is safe for concurrent use: lookups take a read lock only to copy
// slice headers, so they never wait for a rebuild.
type Index struct {
	mu   sync.RWMutex
	ids  [][16]byte
	p64  []uint64
	base *frozen
	// building is set while a background rebuild runs.
	building atomic.Bool
	// freezeEvery is the number of unsorted hashes that triggers a rebuild.
	freezeEvery int
	// compact: the tables keep no copy of the hashes (NewCompact).
	compact bool
}

// DefaultExactRadius is the 64-bit distance up to which Index.Lookup returns
// every indexed hash (see Index).
const DefaultExactRadius = 8

// defaultProbeRadius is the per-substring probe radius.
const defaultProbeRadius = 2

// subs are the substrings (shift, width) of the 64-bit hash.
var subs = [3]struct{ shift, width uint }{{42, 22}, {21, 21}, {0, 21}}

// defaultFreezeEvery bounds the linear scan of new hashes (8,192 popcounts,
// a few µs) and makes a rebuild at 10M records (≈ 1 s of one core in the
// background) happen at most once per 8,192 signs.
const defaultFreezeEvery = 8192

// frozen is the sorted part: positions [0, n) of Index's arrays.
type frozen struct {
	n       int
	dirBits uint
	tabs    [3]table
}

type table struct {
	// off[s] .. off[s+1] are the entries of directory slot s: their
	// hashes in h (a copy, so that a slot is read sequentially, a few
	// cache lines, instead of one random read per entry: at 100M records
	// a slot holds ~50 entries) and their positions in pos.
	off []uint32
	h   []uint64
	pos []uint32
}

// New returns an empty index.
func New() *Index { return &Index{freezeEvery: defaultFreezeEvery} }

// NewCompact returns an empty index whose tables keep positions only (36
// bytes per hash instead of 60): a lookup reads each bucket entry's hash
// at its position, one random read per entry, about 1.5× the CPU at 10M
// hashes and more beyond. For indexes that are large but rarely read (the
// geometric hashes, eight per signed picture, read at sign time).
func NewCompact() *Index { return &Index{freezeEvery: defaultFreezeEvery, compact: true} }

// Len returns the number of hashes indexed.
func (m *Index) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.p64)
}

// Bytes estimates the index's memory: arrays and directories.
func (m *Index) Bytes() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	n := cap(m.ids)*16 + cap(m.p64)*8
	if b := m.base; b != nil {
		for _, t := range b.tabs {
			n += 4*cap(t.off) + 8*cap(t.h) + 4*cap(t.pos)
		}
	}
	return n
}

// Add indexes id under the 64-bit hash p64. Adding a pair already present
// does nothing, so a commit seen both on the write path and in the change
// feed is indexed once. A record may be added under several hashes (its
// geometric hashes).
func (m *Index) Add(id [16]byte, p64 uint64) {
	if m.has(id, p64) {
		return
	}
	m.mu.Lock()
	if m.hasLocked(id, p64) {
		m.mu.Unlock()
		return
	}
	m.ids = append(m.ids, id)
	m.p64 = append(m.p64, p64)
	m.maybeFreezeLocked()
	m.mu.Unlock()
}

// AddMany appends pairs that are not indexed yet, without the duplicate
// check of Add (a load at start); they are scanned linearly until sorted
// in, so call Freeze after the last. Into an empty index it adopts the
// slices instead of copying them (a load's peak memory is then one copy
// of the entries, not two): the caller must not modify them afterwards.
func (m *Index) AddMany(ids [][16]byte, p64 []uint64) {
	m.mu.Lock()
	if len(m.p64) == 0 && len(ids) == len(p64) {
		// Full slice expressions: a later Add must not write into the
		// caller's spare capacity.
		m.ids, m.p64 = ids[:len(ids):len(ids)], p64[:len(p64):len(p64)]
	} else {
		m.ids = append(m.ids, ids...)
		m.p64 = append(m.p64, p64...)
	}
	m.mu.Unlock()
}

func (m *Index) has(id [16]byte, p64 uint64) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.hasLocked(id, p64)
}

func (m *Index) hasLocked(id [16]byte, p64 uint64) bool {
	from := 0
	if b := m.base; b != nil {
		t := &b.tabs[0]
		s := slot(p64, 0, b.dirBits)
		for _, p := range t.pos[t.off[s]:t.off[s+1]] {
			if m.p64[p] == p64 && m.ids[p] == id {
				return true
			}
		}
		from = b.n
	}
	for i := from; i < len(m.p64); i++ {
		if m.p64[i] == p64 && m.ids[i] == id {
			return true
		}
	}
	return false
}

func (m *Index) maybeFreezeLocked() {
	unsorted := len(m.p64)
	if m.base != nil {
		unsorted -= m.base.n
	}
	if unsorted < m.freezeEvery || !m.building.CompareAndSwap(false, true) {
		return
	}
	p64 := m.p64
	go func() {
		f := build(p64, m.compact)
		m.mu.Lock()
		if m.base == nil || f.n > m.base.n {
			m.base = f
		}
		m.mu.Unlock()
		m.building.Store(false)
	}()
}

// Freeze sorts every indexed hash in now (a load, or a test).
func (m *Index) Freeze() {
	m.mu.RLock()
	p64 := m.p64
	m.mu.RUnlock()
	f := build(p64, m.compact)
	m.mu.Lock()
	if m.base == nil || f.n > m.base.n {
		m.base = f
	}
	m.mu.Unlock()
}

func dirBitsFor(n int) uint {
	b := uint(bits.Len(uint(n)))
	return max(min(b, 21), 8)
}

// slot is substring k's directory slot of h.
func slot(h uint64, k int, dirBits uint) uint32 {
	s := subs[k]
	v := uint32(h>>s.shift) & (1<<s.width - 1)
	if dirBits < s.width {
		v >>= s.width - dirBits
	}
	return v
}

// build sorts positions [0, len(p64)) by each substring (a counting sort).
func build(p64 []uint64, compact bool) *frozen {
	n := len(p64)
	f := &frozen{n: n, dirBits: dirBitsFor(n)}
	for k := range subs {
		w := min(f.dirBits, subs[k].width)
		off := make([]uint32, 1<<w+1)
		for _, h := range p64 {
			off[slot(h, k, f.dirBits)+1]++
		}
		for i := 1; i < len(off); i++ {
			off[i] += off[i-1]
		}
		next := slices.Clone(off[:len(off)-1])
		pos := make([]uint32, n)
		var hs []uint64
		if !compact {
			hs = make([]uint64, n)
		}
		for i, h := range p64 {
			s := slot(h, k, f.dirBits)
			pos[next[s]] = uint32(i)
			if hs != nil {
				hs[next[s]] = h
			}
			next[s]++
		}
		f.tabs[k] = table{off: off, h: hs, pos: pos}
	}
	return f
}

// Match is an indexed hash near a query.
type Match struct {
	ID  [16]byte
	P64 uint64
	D64 int
	// Seq is the hash's rank in insertion order: a smaller Seq was added
	// earlier. A caller that adds in claim order (the origin loads the
	// registry oldest first and adds each commit) reads the earliest claim
	// from it.
	Seq int
}

// Lookup returns every indexed (id, hash) within 64-bit distance
// DefaultExactRadius of q, and those farther but within max64 that the probes
// reach (see Index), nearest first (equal distances in insertion order).
// There is no read budget: the work is at most 696 bucket reads plus the hashes in
// them and the unsorted tail.
func (m *Index) Lookup(q uint64, max64 int) []Match {
	return m.LookupRadius(q, max64, defaultProbeRadius)
}

// ExactRadius returns the 64-bit distance within which LookupRadius with
// probe radius r returns every indexed hash: 3(r+1)−1 (8 for r = 2, 11 for
// r = 3), by the pigeonhole argument of Index.
func ExactRadius(r int) int { return 3*(r+1) - 1 }

// LookupRadius is Lookup with a per-substring probe radius r (1..3): r = 3
// returns every hash within 11 bits at about 7.5× the buckets of r = 2.
func (m *Index) LookupRadius(q uint64, max64, r int) []Match {
	r = max(1, min(r, 3))
	m.mu.RLock()
	ids, p64, b := m.ids, m.p64, m.base
	m.mu.RUnlock()
	type hit struct {
		pos uint32
		d   int
	}
	var hits []hit
	from := 0
	if b != nil {
		from = b.n
		for k := range subs {
			t := &b.tabs[k]
			w := min(b.dirBits, subs[k].width)
			// The probes are the directory slots within r bits of the
			// query's: when the directory is shorter than the substring a
			// slot holds several substring values, a superset of the
			// buckets the guarantee needs.
			var visit func(s uint32, from uint, left int)
			visit = func(s uint32, from uint, left int) {
				lo, hi := t.off[s], t.off[s+1]
				if t.h == nil {
					for _, p := range t.pos[lo:hi] {
						if d := bits.OnesCount64(p64[p] ^ q); d <= max64 {
							hits = append(hits, hit{p, d})
						}
					}
				} else {
					for j, h := range t.h[lo:hi] {
						if d := bits.OnesCount64(h ^ q); d <= max64 {
							hits = append(hits, hit{t.pos[lo+uint32(j)], d})
						}
					}
				}
				if left == 0 {
					return
				}
				for i := from; i < w; i++ {
					visit(s^1<<i, i+1, left-1)
				}
			}
			visit(slot(q, k, b.dirBits), 0, r)
		}
	}
	for i := from; i < len(p64); i++ {
		if d := bits.OnesCount64(p64[i] ^ q); d <= max64 {
			hits = append(hits, hit{uint32(i), d})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return int(a.pos) - int(b.pos)
	})
	out := make([]Match, 0, len(hits))
	for i, h := range hits {
		if i > 0 && hits[i-1].pos == h.pos {
			continue
		}
		out = append(out, Match{ID: ids[h.pos], P64: p64[h.pos], D64: h.d, Seq: int(h.pos)})
	}
	return out
}
