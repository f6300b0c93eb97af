// Package phindex is the near-duplicate index of content records: a
// multi-index hash (Norouzi, Punjani and Fleet, "Fast search in Hamming
// space with multi-index hashing", CVPR 2012) over the 64-bit perceptual
// hash, kept in the origin Store so that a lookup costs a bounded number
// of short prefix scans, never a scan of every record.
//
// The 64-bit hash is cut into Bands bands of BandBits bits. Each record
// writes one key per band: prefix ‖ band ‖ band value ‖ record id, whose
// value is the full 40-byte hash (64-bit then 256-bit), so candidates are
// filtered and ranked without reading the records.
//
// Recall: two hashes at Hamming distance d differ in at least one band by
// at most ⌊d/Bands⌋ bits (pigeonhole). A lookup that probes, in every
// band, each value within Radius bits of the query's band value therefore
// finds every hash at distance ≤ Bands·(Radius+1) − 1: 3 for Radius 0 (4
// probes), 7 for Radius 1 (68 probes), 11 for Radius 2 (548 probes).
// Hashes farther away (up to phash.CandidateDistance64 = 14, the core's
// candidate radius) are found only when their differing bits happen to
// concentrate in few bands. DefaultRadius = 1 covers the re-encodes and
// resizes measured by `go run ./bench phash` (64-bit distances mostly
// 0..6); the watermark and the SHA-256 find exact and re-encoded copies
// independently of this index.
package phindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"github.com/provenant/provenant/origin/store"
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
	idLen     = 16
	valueLen  = 40
)

// Index is a perceptual-hash index under Prefix. The zero Radius means
// DefaultRadius. Index has no state besides its configuration; every
// method works inside a caller's transaction.
type Index struct {
	Prefix []byte
	Radius int
}

// Match is a record whose hash is near the query.
type Match struct {
	ID   [16]byte
	Hash phash.Hash
	// D64 and D256 are the Hamming distances to the query.
	D64, D256 int
}

func band(h uint64, b int) uint16 { return uint16(h >> (64 - BandBits*(b+1))) }

func (ix Index) key(b int, v uint16, id []byte) []byte {
	k := make([]byte, 0, len(ix.Prefix)+3+idLen)
	k = append(k, ix.Prefix...)
	k = append(k, byte(b))
	k = binary.BigEndian.AppendUint16(k, v)
	return append(k, id...)
}

// Add indexes record id under h. It writes Bands keys through txn.
func (ix Index) Add(txn store.Txn, id [16]byte, h phash.Hash) error {
	val := h.Bytes()
	for b := 0; b < Bands; b++ {
		if err := txn.Set(ix.key(b, band(h.P64, b), id[:]), val); err != nil {
			return fmt.Errorf("phindex: add: %w", err)
		}
	}
	return nil
}

// Remove deletes the keys Add wrote for (id, h).
func (ix Index) Remove(txn store.Txn, id [16]byte, h phash.Hash) error {
	for b := 0; b < Bands; b++ {
		if err := txn.Delete(ix.key(b, band(h.P64, b), id[:])); err != nil {
			return fmt.Errorf("phindex: remove: %w", err)
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

// Probes returns the number of prefix scans one Lookup makes.
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
// nearest first by 256-bit distance, at most limit of them. It reads at
// most budget index entries (0 means 64·limit) so that a pathological
// bucket cannot make a lookup slow; truncated reports that it stopped early.
func (ix Index) Lookup(txn store.Txn, q phash.Hash, max64, limit, budget int) (ms []Match, truncated bool, err error) {
	if limit <= 0 {
		return nil, false, nil
	}
	if budget <= 0 {
		budget = 64 * limit
	}
	seen := make(map[[16]byte]struct{})
	read := 0
	probe := func(b int, v uint16) error {
		p := ix.key(b, v, nil)
		return txn.Scan(p, nil, func(k, val []byte) error {
			if read++; read > budget {
				return errStop
			}
			if len(k) != len(p)+idLen || len(val) != valueLen {
				return nil
			}
			var id [16]byte
			copy(id[:], k[len(p):])
			if _, dup := seen[id]; dup {
				return nil
			}
			seen[id] = struct{}{}
			h, err := phash.FromBytes(val)
			if err != nil {
				return nil
			}
			d64 := bits.OnesCount64(h.P64 ^ q.P64)
			if d64 > max64 {
				return nil
			}
			ms = append(ms, Match{ID: id, Hash: h, D64: d64, D256: phash.Distance256(h.P256, q.P256)})
			return nil
		})
	}
	r := ix.radius()
	for b := 0; b < Bands; b++ {
		v := band(q.P64, b)
		err := forEachWithin(v, r, func(x uint16) error { return probe(b, x) })
		if errors.Is(err, errStop) {
			truncated = true
			break
		}
		if err != nil {
			return nil, false, fmt.Errorf("phindex: lookup: %w", err)
		}
	}
	slices.SortFunc(ms, func(a, b Match) int {
		if a.D256 != b.D256 {
			return a.D256 - b.D256
		}
		return a.D64 - b.D64
	})
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
