// Package merkle implements RFC 9162 (Certificate Transparency v2) Merkle
// trees over SHA-256: leaf hash SHA-256(0x00 ‖ data), interior node
// SHA-256(0x01 ‖ left ‖ right), trees of any size, inclusion proofs and
// consistency proofs with the verification algorithms of RFC 9162 §2.1.3.2
// and §2.1.4.2.
//
// The tree built here is the RFC's: for n leaves the root is MTH(D[n]) with
// the split at the largest power of two smaller than n, which equals building
// level by level and carrying an unpaired last node up unchanged.
package merkle

import (
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/provenant/provenant/shared/digest"
)

// HashSize is the size of a hash in bytes.
const HashSize = 32

// Hash is a SHA-256 tree hash.
type Hash [HashSize]byte

// String returns h as 64 lowercase hex digits.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// ParseHash parses 64 hex digits.
func ParseHash(s string) (Hash, error) {
	var h Hash
	if len(s) != 2*HashSize {
		return h, fmt.Errorf("%w: hash has %d hex digits, want 64", ErrInvalidProof, len(s))
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, fmt.Errorf("%w: %w", ErrInvalidProof, err)
	}
	return h, nil
}

// EmptyRoot is MTH({}) = SHA-256 of the empty string, the root of a tree with
// no leaves.
func EmptyRoot() Hash { return digest.Sum256(nil) }

// LeafHash returns SHA-256(0x00 ‖ data).
func LeafHash(data []byte) Hash {
	return digest.Sum256Concat([]byte{0}, data)
}

// NodeHash returns SHA-256(0x01 ‖ left ‖ right). It does not allocate.
func NodeHash(left, right Hash) Hash {
	var b [1 + 2*HashSize]byte
	b[0] = 1
	copy(b[1:], left[:])
	copy(b[1+HashSize:], right[:])
	return digest.Sum256(b[:])
}

// ErrInvalidProof is wrapped by every proof verification failure other than
// a root mismatch: index out of range, wrong proof length, malformed hash.
var ErrInvalidProof = errors.New("merkle: invalid proof")

// RootMismatchError is returned when a well-formed proof leads to a root other
// than the expected one.
type RootMismatchError struct {
	Computed, Expected Hash
}

func (e *RootMismatchError) Error() string {
	return fmt.Sprintf("merkle: computed root %x, expected %x", e.Computed[:], e.Expected[:])
}

// Tree is an immutable Merkle tree with every level kept, so proofs are
// generated without rehashing. Above the leaves it holds about n hashes.
type Tree struct {
	leaves []Hash // level 0, the caller's slice
	upper  []Hash // levels 1.., one allocation
	// off[i] is the offset of level i+1 in upper; off[len-1] = len(upper).
	off []int
}

// Build returns the tree over the given leaf hashes (see [LeafHash]). The
// tree keeps leaves as its bottom level without copying it: the caller must
// not modify the slice afterwards. Build allocates once for all interior
// levels and never per node; each interior node costs one SHA-256 of 65
// bytes.
func Build(leaves []Hash) *Tree {
	t := &Tree{leaves: leaves, off: []int{0}}
	total := 0
	for n := len(leaves); n > 1; {
		n = (n + 1) / 2
		total += n
		t.off = append(t.off, total)
	}
	t.upper = make([]Hash, total)
	var buf [1 + 2*HashSize]byte
	buf[0] = 1
	in := leaves
	for l := 0; l+1 < len(t.off); l++ {
		out := t.upper[t.off[l]:t.off[l+1]]
		i := 0
		for ; i+1 < len(in); i += 2 {
			copy(buf[1:], in[i][:])
			copy(buf[1+HashSize:], in[i+1][:])
			out[i/2] = digest.Sum256(buf[:])
		}
		if i < len(in) {
			out[i/2] = in[i]
		}
		in = out
	}
	return t
}

// Size returns the number of leaves.
func (t *Tree) Size() uint64 { return uint64(len(t.leaves)) }

// Root returns the tree head, MTH(D[n]); [EmptyRoot] for no leaves.
func (t *Tree) Root() Hash {
	switch len(t.leaves) {
	case 0:
		return EmptyRoot()
	case 1:
		return t.leaves[0]
	}
	return t.upper[len(t.upper)-1]
}

// Leaf returns the i-th leaf hash.
func (t *Tree) Leaf(i uint64) Hash { return t.leaves[i] }

// height returns the number of levels above the leaves.
func (t *Tree) height() int { return len(t.off) - 1 }

// level returns the hashes at height l (0 = leaves).
func (t *Tree) level(l int) []Hash {
	if l == 0 {
		return t.leaves
	}
	return t.upper[t.off[l-1]:t.off[l]]
}

// InclusionProof returns the audit path of leaf index, bottom-up, as
// PATH(index, D[n]) of RFC 9162 §2.1.3.1.
func (t *Tree) InclusionProof(index uint64) ([]Hash, error) {
	if index >= t.Size() {
		return nil, fmt.Errorf("%w: leaf index %d >= tree size %d", ErrInvalidProof, index, t.Size())
	}
	var proof []Hash
	m := index
	for l := 0; l < t.height(); l++ {
		lv := t.level(l)
		if s := m ^ 1; s < uint64(len(lv)) {
			proof = append(proof, lv[s])
		}
		m >>= 1
	}
	return proof, nil
}

// ConsistencyProof returns PROOF(oldSize, D[n]) of RFC 9162 §2.1.4.1: the
// proof that the tree of the first oldSize leaves is a prefix of this tree.
// It is empty for oldSize 0 and for oldSize == n.
func (t *Tree) ConsistencyProof(oldSize uint64) ([]Hash, error) {
	n := t.Size()
	if oldSize > n {
		return nil, fmt.Errorf("%w: old size %d > tree size %d", ErrInvalidProof, oldSize, n)
	}
	if oldSize == 0 || oldSize == n {
		return nil, nil
	}
	return t.subproof(oldSize, 0, n, true), nil
}

// subproof is SUBPROOF(m, D[lo:lo+n], b).
func (t *Tree) subproof(m, lo, n uint64, b bool) []Hash {
	if m == n {
		if b {
			return nil
		}
		return []Hash{t.rangeHash(lo, lo+n)}
	}
	k := splitPoint(n)
	if m <= k {
		return append(t.subproof(m, lo, k, b), t.rangeHash(lo+k, lo+n))
	}
	return append(t.subproof(m-k, lo+k, n-k, false), t.rangeHash(lo, lo+k))
}

// rangeHash returns MTH(D[lo:hi]) for a range that is a node of the tree:
// lo is a multiple of 2^l and hi is lo+2^l or the tree size, with 2^l the
// smallest power of two >= hi-lo.
func (t *Tree) rangeHash(lo, hi uint64) Hash {
	l := 0
	for uint64(1)<<l < hi-lo {
		l++
	}
	return t.level(l)[lo>>l]
}

// splitPoint returns the largest power of two smaller than n (n >= 2).
func splitPoint(n uint64) uint64 {
	k := uint64(1)
	for k<<1 < n {
		k <<= 1
	}
	return k
}

// RootFromInclusionProof returns the root that leaf at index in a tree of
// size leaves implies through proof, per RFC 9162 §2.1.3.2. It fails with
// [ErrInvalidProof] when index >= size or the proof has the wrong length.
func RootFromInclusionProof(index, size uint64, leaf Hash, proof []Hash) (Hash, error) {
	if index >= size {
		return Hash{}, fmt.Errorf("%w: leaf index %d >= tree size %d", ErrInvalidProof, index, size)
	}
	r := leaf
	err := climb(index, size-1, proof,
		func(left Hash) { r = NodeHash(left, r) },
		func(right Hash) { r = NodeHash(r, right) })
	if err != nil {
		return Hash{}, fmt.Errorf("%w: proof of %d hashes %v for index %d in size %d", ErrInvalidProof, len(proof), err, index, size)
	}
	return r, nil
}

// Lengths climb refuses; their text completes the callers' messages.
var (
	errPathLong  = errors.New("too long")
	errPathShort = errors.New("too short")
)

// climb walks path up from node fn of a tree whose last node is sn, the
// loop RFC 9162 shares between inclusion (§2.1.3.2) and consistency
// (§2.1.4.2) proofs: each hash of path is handed to left when it is the
// left sibling of the node reached so far, to right otherwise. It fails
// with errPathLong when path goes above the root and errPathShort when it
// stops below it.
func climb(fn, sn uint64, path []Hash, left, right func(Hash)) error {
	for _, p := range path {
		if sn == 0 {
			return errPathLong
		}
		if fn&1 == 1 || fn == sn {
			left(p)
			for fn&1 == 0 && fn != 0 {
				fn >>= 1
				sn >>= 1
			}
		} else {
			right(p)
		}
		fn >>= 1
		sn >>= 1
	}
	if sn != 0 {
		return errPathShort
	}
	return nil
}

// VerifyInclusion checks that leaf is at index in the tree of size leaves
// with the given root. It returns nil, an error wrapping [ErrInvalidProof], or
// a *[RootMismatchError].
func VerifyInclusion(index, size uint64, leaf Hash, proof []Hash, root Hash) error {
	got, err := RootFromInclusionProof(index, size, leaf, proof)
	if err != nil {
		return err
	}
	if got != root {
		return &RootMismatchError{Computed: got, Expected: root}
	}
	return nil
}

// VerifyConsistency checks that the tree of size1 leaves with root1 is a
// prefix of the tree of size2 leaves with root2, per RFC 9162 §2.1.4.2. Equal
// sizes need an empty proof and equal roots; size1 0 needs an empty proof. It
// returns nil, an error wrapping [ErrInvalidProof], or a *[RootMismatchError].
func VerifyConsistency(size1, size2 uint64, proof []Hash, root1, root2 Hash) error {
	switch {
	case size2 < size1:
		return fmt.Errorf("%w: size2 %d < size1 %d", ErrInvalidProof, size2, size1)
	case size1 == size2:
		if len(proof) != 0 {
			return fmt.Errorf("%w: non-empty proof for equal sizes", ErrInvalidProof)
		}
		if root1 != root2 {
			return &RootMismatchError{Computed: root2, Expected: root1}
		}
		return nil
	case size1 == 0:
		if len(proof) != 0 {
			return fmt.Errorf("%w: non-empty proof from an empty tree", ErrInvalidProof)
		}
		return nil
	case len(proof) == 0:
		return fmt.Errorf("%w: empty consistency proof", ErrInvalidProof)
	}
	path := proof
	if size1&(size1-1) == 0 { // exact power of two
		path = append([]Hash{root1}, proof...)
	}
	fn, sn := size1-1, size2-1
	for fn&1 == 1 {
		fn >>= 1
		sn >>= 1
	}
	fr, sr := path[0], path[0]
	err := climb(fn, sn, path[1:],
		func(left Hash) { fr, sr = NodeHash(left, fr), NodeHash(left, sr) },
		func(right Hash) { sr = NodeHash(sr, right) })
	if err != nil {
		return fmt.Errorf("%w: consistency proof %v", ErrInvalidProof, err)
	}
	if fr != root1 {
		return &RootMismatchError{Computed: fr, Expected: root1}
	}
	if sr != root2 {
		return &RootMismatchError{Computed: sr, Expected: root2}
	}
	return nil
}
