// Package phindex is the near-duplicate index of content records: a
// multi-index hash (Norouzi, Punjani and Fleet, "Fast search in Hamming
// space with multi-index hashing", CVPR 2012) over the 64-bit perceptual
// hash, kept in the origin Store so that a lookup costs a bounded number
// of point reads, never a scan of every record.
//
// The 64-bit hash is cut into Bands bands of BandBits bits. A record is
// appended to one bucket per band, keyed by (band, band value); a bucket
// is a posting list stored in chunks of ChunkEntries entries under
// prefix ‖ band ‖ value ‖ chunk number, each entry being the record id and
// its 64-bit hash (24 bytes), so candidates are filtered and ranked by
// 64-bit distance without reading the records; the caller compares the
// 256-bit hashes of the few candidates (verdict). Keeping entries small
// keeps buckets to one chunk at a million records and the index (~100 MB
// at 1M) friendlier to the block cache. Chunk 0 starts with a 2-byte
// count of the bucket's chunks, so a probe of a bucket of at most
// ChunkEntries records is one point read (Badger's bloom filters make the
// read of an empty bucket cheap), and the probes of one Hamming distance
// are read together with store.GetMany (one query on PostgreSQL);
// per-entry keys scanned with one iterator per probe were measured ~10×
// slower (an iterator costs tens of µs).
//
// Recall: two hashes at Hamming distance d differ in at least one band by
// at most ⌊d/Bands⌋ bits (pigeonhole). A lookup that probes, in every
// band, each value within Radius bits of the query's band value therefore
// finds every hash at distance ≤ Bands·(Radius+1) − 1: 3 for Radius 0 (4
// probes), 7 for Radius 1 (68 probes), 11 for Radius 2 (548 probes).
// Hashes farther away (up to phash.CandidateDistance64 = 14, the core's
// candidate radius) are found only when their differing bits happen to
// concentrate in few bands. DefaultRadius = 1 covers re-encodes and
// resizes (64-bit distances mostly 0..6 on the development photos); the
// watermark and the SHA-256 find exact and re-encoded copies
// independently of this index, so the index matters for files whose
// watermark did not survive.
//
// The origin does not read these buckets on its lookups any more: it
// keeps the entries in memory (Index.Mem, an internal/hamming index
// loaded by LoadMem or Entries at start, extended by its own commits and,
// on a shared store, by Follow over the store's change feed), which finds
// every hash within 8 bits whatever the registry's size and has no read
// budget. The buckets stay the source of truth that memory is rebuilt
// from; Lookup without Mem reads them as described above.
package phindex

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"github.com/provenant/provenant/internal/hamming"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/phash"
)

// Layout constants.
const (
	Bands    = 4
	BandBits = 64 / Bands
	// DefaultRadius is the per-band probe radius (see the package doc).
	DefaultRadius = 1
	// MaxRadius bounds the probe radius (Radius 3 is already 2788 probes).
	MaxRadius = 3
	// ChunkEntries is the number of entries per bucket chunk: 40 × 24
	// bytes stays under the store's 1 KiB value threshold, so chunks live
	// in the LSM tree, not the value log. A million uniformly spread
	// hashes put ~15 records in a bucket.
	ChunkEntries = 40
	idLen        = 16
	hashLen      = 8
	entryLen     = idLen + hashLen
	// maxChunks bounds a bucket (a pathological cluster of identical
	// hashes): 4096 chunks of 16 entries.
	maxChunks = 4096
)

// ErrBucketFull is returned by Add when a bucket reached its bound.
var ErrBucketFull = errors.New("phindex: bucket full")

// Index is a perceptual-hash index under Prefix. The zero Radius means
// DefaultRadius. Index has no state besides its configuration; every
// method works inside a caller's transaction.
type Index struct {
	Prefix []byte
	Radius int
	// Mem, if set, answers Lookup and LookupPool in memory (see LoadMem
	// and Follow): the store's buckets are still written by Add and are
	// what Mem is loaded from, but lookups do not read them.
	Mem *hamming.Index
}

// Match is a record whose 64-bit hash is near the query's.
type Match struct {
	ID  [16]byte
	P64 uint64
	// D64 is the Hamming distance to the query's 64-bit hash.
	D64 int
	// Seq orders the matches of an in-memory index by insertion, which is
	// claim order (hamming.Match); 0 from the store's buckets.
	Seq int
}

func entryOf(id [16]byte, h phash.Hash) []byte {
	return binary.BigEndian.AppendUint64(append(make([]byte, 0, entryLen), id[:]...), h.P64)
}

func band(h uint64, b int) uint16 { return uint16(h >> (64 - BandBits*(b+1))) }

func (ix Index) key(b int, v uint16, chunk int) []byte {
	k := make([]byte, 0, len(ix.Prefix)+5)
	k = append(k, ix.Prefix...)
	k = append(k, byte(b))
	k = binary.BigEndian.AppendUint16(k, v)
	return binary.BigEndian.AppendUint16(k, uint16(chunk))
}

func getChunk(txn store.Txn, k []byte) ([]byte, bool, error) {
	v, err := txn.Get(k)
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return v, true, nil
}

// bucket is a bucket's chunks as read: chunks[0] without its header.
type bucket struct {
	chunks [][]byte
}

// readBucket reads every chunk of bucket (b, v); an empty bucket has no
// chunks.
func (ix Index) readBucket(txn store.Txn, b int, v uint16) (bucket, error) {
	c0, found, err := getChunk(txn, ix.key(b, v, 0))
	if err != nil || !found {
		return bucket{}, err
	}
	return ix.bucketFrom(txn, b, v, c0)
}

// bucketFrom completes bucket (b, v) from its chunk 0 as read (nil: the
// bucket is empty), reading its other chunks in one GetMany.
func (ix Index) bucketFrom(txn store.Txn, b int, v uint16, c0 []byte) (bucket, error) {
	if c0 == nil {
		return bucket{}, nil
	}
	if len(c0) < 2 {
		return bucket{}, fmt.Errorf("phindex: bucket %d/%04x: short header", b, v)
	}
	n := int(binary.BigEndian.Uint16(c0))
	bk := bucket{chunks: make([][]byte, 1, max(n, 1))}
	bk.chunks[0] = c0[2:]
	if n <= 1 {
		return bk, nil
	}
	keys := make([][]byte, 0, n-1)
	for c := 1; c < n; c++ {
		keys = append(keys, ix.key(b, v, c))
	}
	rest, err := store.GetMany(txn, keys)
	if err != nil {
		return bucket{}, err
	}
	for i, cur := range rest {
		if cur == nil {
			return bucket{}, fmt.Errorf("phindex: bucket %d/%04x: chunk %d of %d missing", b, v, i+1, n)
		}
		bk.chunks = append(bk.chunks, cur)
	}
	return bk, nil
}

// writeChunk writes chunk c of bucket (b, v); n is the bucket's chunk
// count, stored in chunk 0's header.
func (ix Index) writeChunk(txn store.Txn, b int, v uint16, c, n int, data []byte) error {
	if c == 0 {
		data = append(binary.BigEndian.AppendUint16(make([]byte, 0, 2+len(data)), uint16(n)), data...)
	}
	return txn.Set(ix.key(b, v, c), data)
}

// appendBucket appends entries (a multiple of entryLen bytes) to bucket
// (b, v), filling its last chunk first, rewriting only the chunks that
// change (and chunk 0 when the chunk count changes).
func (ix Index) appendBucket(txn store.Txn, b int, v uint16, entries []byte) error {
	bk, err := ix.readBucket(txn, b, v)
	if err != nil {
		return err
	}
	n := len(bk.chunks)
	if n == 0 {
		bk.chunks = [][]byte{nil}
	}
	last := len(bk.chunks) - 1
	dirty := map[int]bool{}
	for len(entries) > 0 {
		room := ChunkEntries*entryLen - len(bk.chunks[last])
		if room == 0 {
			if len(bk.chunks) >= maxChunks {
				return fmt.Errorf("%w: band %d value %04x", ErrBucketFull, b, v)
			}
			bk.chunks = append(bk.chunks, nil)
			last++
			continue
		}
		take := min(room, len(entries))
		bk.chunks[last] = append(bk.chunks[last], entries[:take]...)
		entries = entries[take:]
		dirty[last] = true
	}
	if len(bk.chunks) != n {
		dirty[0] = true
	}
	for c := range dirty {
		if err := ix.writeChunk(txn, b, v, c, len(bk.chunks), bk.chunks[c]); err != nil {
			return err
		}
	}
	return nil
}

// Add indexes record id under h: it appends one entry to each of the
// Bands buckets, through txn. Concurrent Adds to one bucket conflict and
// are retried by the store.
func (ix Index) Add(txn store.Txn, id [16]byte, h phash.Hash) error {
	entry := entryOf(id, h)
	for b := 0; b < Bands; b++ {
		if err := ix.appendBucket(txn, b, band(h.P64, b), entry); err != nil {
			return fmt.Errorf("phindex: add: %w", err)
		}
	}
	return nil
}

// Remove deletes the entries Add wrote for (id, h). Chunks keep their
// number; a chunk left short is refilled by later Adds only if it is the
// last one.
func (ix Index) Remove(txn store.Txn, id [16]byte, h phash.Hash) error {
	for b := 0; b < Bands; b++ {
		v := band(h.P64, b)
		bk, err := ix.readBucket(txn, b, v)
		if err != nil {
			return fmt.Errorf("phindex: remove: %w", err)
		}
		for c, cur := range bk.chunks {
			out := make([]byte, 0, len(cur))
			for e := 0; e+entryLen <= len(cur); e += entryLen {
				if !bytes.Equal(cur[e:e+idLen], id[:]) {
					out = append(out, cur[e:e+entryLen]...)
				}
			}
			if len(out) != len(cur) {
				if err := ix.writeChunk(txn, b, v, c, len(bk.chunks), out); err != nil {
					return fmt.Errorf("phindex: remove: %w", err)
				}
			}
		}
	}
	return nil
}

func (ix Index) radius() int {
	switch {
	case ix.Radius <= 0:
		return DefaultRadius
	case ix.Radius > MaxRadius:
		return MaxRadius
	}
	return ix.Radius
}

// Probes returns the number of buckets one Lookup reads.
func (ix Index) Probes() int {
	n, c := 0, 1
	for r := 0; r <= ix.radius(); r++ {
		n += c
		c = c * (BandBits - r) / (r + 1)
	}
	return n * Bands
}

// errStop ends a lookup once enough candidates were read.
var errStop = errors.New("phindex: candidate budget reached")

// Lookup returns the indexed records whose 64-bit distance to q is at most
// max64 among those the probes reach (see the package doc for recall),
// nearest first, at most limit of them. It reads at
// most budget index entries (0 means 256·limit) so that neither a
// pathological bucket nor a large registry can make a lookup slow;
// truncated reports that it stopped early. Uniform hashes put
// n·Bands·(probes per band)/65536 entries in the probed buckets (1,040 at
// 1M records with radius 1), so the default budget of 4,096 entries
// (limit 16) starts truncating near 4M records; the nearest probes are
// read first (see below), so what truncation drops is the neighbour
// buckets of the last bands.
func (ix Index) Lookup(txn store.Txn, q phash.Hash, max64, limit, budget int) (ms []Match, truncated bool, err error) {
	if limit <= 0 {
		return nil, false, nil
	}
	if ix.Mem != nil {
		return ix.memLookup(q, max64, limit), false, nil
	}
	if budget <= 0 {
		budget = 256 * limit
	}
	seen := make(map[[16]byte]struct{})
	read := 0
	scan := func(bk bucket) error {
		for _, cur := range bk.chunks {
			for e := 0; e+entryLen <= len(cur); e += entryLen {
				if read++; read > budget {
					return errStop
				}
				var id [16]byte
				copy(id[:], cur[e:e+idLen])
				if _, dup := seen[id]; dup {
					continue
				}
				p64 := binary.BigEndian.Uint64(cur[e+idLen : e+entryLen])
				d64 := bits.OnesCount64(p64 ^ q.P64)
				if d64 > max64 {
					continue
				}
				seen[id] = struct{}{}
				ms = append(ms, Match{ID: id, P64: p64, D64: d64})
			}
		}
		return nil
	}
	// Nearest probes first: every band's own value, then the values one
	// bit away in every band, and so on. Untruncated, the order changes
	// nothing; when the budget stops a lookup (large registries, see
	// above), what was read is what matters most: a hash within Bands−1
	// bits of the query has an identical band, so it is found by the
	// first Bands probes whatever the budget. The first chunks of one
	// distance's buckets are read together (store.GetMany: one round trip
	// on PostgreSQL instead of one per bucket).
	type probe struct {
		b int
		v uint16
	}
	r := ix.radius()
	for d := 0; d <= r; d++ {
		var ps []probe
		var keys [][]byte
		for b := 0; b < Bands; b++ {
			v := band(q.P64, b)
			_ = forEachWithin(v, d, func(x uint16) error {
				if bits.OnesCount16(x^v) == d {
					ps = append(ps, probe{b, x})
					keys = append(keys, ix.key(b, x, 0))
				}
				return nil
			})
		}
		first, err := store.GetMany(txn, keys)
		if err != nil {
			return nil, false, fmt.Errorf("phindex: lookup: %w", err)
		}
		for i, p := range ps {
			bk, err := ix.bucketFrom(txn, p.b, p.v, first[i])
			if err == nil {
				err = scan(bk)
			}
			if errors.Is(err, errStop) {
				truncated = true
				break
			}
			if err != nil {
				return nil, false, fmt.Errorf("phindex: lookup: %w", err)
			}
		}
		if truncated {
			break
		}
	}
	slices.SortStableFunc(ms, func(a, b Match) int { return a.D64 - b.D64 })
	if len(ms) > limit {
		ms = ms[:limit]
	}
	return ms, truncated, nil
}

// forEachWithin calls fn for every 16-bit value within Hamming distance r
// of v, v itself first.
func forEachWithin(v uint16, r int, fn func(uint16) error) error {
	var rec func(x uint16, from, left int) error
	rec = func(x uint16, from, left int) error {
		if err := fn(x); err != nil {
			return err
		}
		if left == 0 {
			return nil
		}
		for i := from; i < BandBits; i++ {
			if err := rec(x^(1<<i), i+1, left-1); err != nil {
				return err
			}
		}
		return nil
	}
	return rec(v, 0, r)
}

// BulkLoad indexes many records into an index that holds none of them
// yet (a rebuild, or a benchmark fixture), WriteBatch-style: it groups the
// entries by bucket in memory, one band at a time, and writes each chunk
// key once, in transactions of at most about maxTxnBytes of values,
// instead of one read-modify-write per record and band. Buckets that
// already exist are appended to.
func (ix Index) BulkLoad(ctx context.Context, st store.Store, ids [][16]byte, hs []phash.Hash) error {
	if len(ids) != len(hs) {
		return errors.New("phindex: bulk load: ids and hashes differ in length")
	}
	const maxTxnBytes = 512 << 10
	for b := 0; b < Bands; b++ {
		buckets := make(map[uint16][]byte)
		for i, h := range hs {
			v := band(h.P64, b)
			buckets[v] = append(buckets[v], entryOf(ids[i], h)...)
		}
		vals := make([]uint16, 0, len(buckets))
		for v := range buckets {
			vals = append(vals, v)
		}
		slices.Sort(vals)
		for len(vals) > 0 {
			n, size := 0, 0
			for n < len(vals) && (n == 0 || size+len(buckets[vals[n]]) <= maxTxnBytes) {
				size += len(buckets[vals[n]])
				n++
			}
			part := vals[:n]
			vals = vals[n:]
			err := st.Update(ctx, func(tx store.Txn) error {
				for _, v := range part {
					if err := ix.appendBucket(tx, b, v, buckets[v]); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("phindex: bulk load: %w", err)
			}
		}
	}
	return nil
}
