// Package mtree is a minimal RFC 9162 Merkle tree over precomputed leaf
// hashes: node = SHA-256(0x01 ‖ left ‖ right), inclusion proofs as in
// RFC 9162 §2.1.3.
//
// TODO(core): replace with shared/merkle once branch core commits it; this
// package exists only because shared/merkle was not available yet. Keep the
// surface small so the swap is mechanical.
package mtree

import (
	"crypto/sha256"
	"errors"
	"fmt"
)

// EmptyRoot is the root of the empty tree, SHA-256 of the empty string.
var EmptyRoot = sha256.Sum256(nil)

// NodeHash returns SHA-256(0x01 ‖ l ‖ r).
func NodeHash(l, r [32]byte) [32]byte {
	var buf [65]byte
	buf[0] = 0x01
	copy(buf[1:], l[:])
	copy(buf[33:], r[:])
	return sha256.Sum256(buf[:])
}

// Tree holds every level of a tree built over leaf hashes, so that proofs
// are O(log n) lookups. Level 0 is the leaves; a level's last node without a
// sibling is promoted unchanged, which yields exactly RFC 9162's MTH.
type Tree struct {
	levels [][][32]byte
}

// Build builds the tree over leaves (already leaf hashes, SHA-256(0x00‖data)).
// It keeps a reference to leaves.
func Build(leaves [][32]byte) *Tree {
	t := &Tree{levels: [][][32]byte{leaves}}
	for cur := leaves; len(cur) > 1; {
		next := make([][32]byte, (len(cur)+1)/2)
		for i := 0; i+1 < len(cur); i += 2 {
			next[i/2] = NodeHash(cur[i], cur[i+1])
		}
		if len(cur)%2 == 1 {
			next[len(next)-1] = cur[len(cur)-1]
		}
		t.levels = append(t.levels, next)
		cur = next
	}
	return t
}

// Size is the number of leaves.
func (t *Tree) Size() uint64 { return uint64(len(t.levels[0])) }

// Root returns the tree head (EmptyRoot for no leaves).
func (t *Tree) Root() [32]byte {
	top := t.levels[len(t.levels)-1]
	if len(top) == 0 {
		return EmptyRoot
	}
	return top[0]
}

// Proof returns the RFC 9162 inclusion proof (audit path, leaf upwards) of
// leaf index.
func (t *Tree) Proof(index uint64) ([][32]byte, error) {
	if index >= t.Size() {
		return nil, fmt.Errorf("mtree: index %d out of range [0, %d)", index, t.Size())
	}
	var path [][32]byte
	i := index
	for _, lvl := range t.levels[:len(t.levels)-1] {
		if sib := i ^ 1; sib < uint64(len(lvl)) {
			path = append(path, lvl[sib])
		}
		i >>= 1
	}
	return path, nil
}

// ErrProof reports an inclusion proof that does not verify.
var ErrProof = errors.New("mtree: inclusion proof does not verify")

// RootFromInclusion recomputes the root from a leaf hash and its audit path
// (RFC 9162 §2.1.3.2). It returns ErrProof if the path has the wrong shape
// for (index, size).
func RootFromInclusion(leaf [32]byte, index, size uint64, path [][32]byte) ([32]byte, error) {
	if index >= size {
		return [32]byte{}, fmt.Errorf("%w: index %d ≥ size %d", ErrProof, index, size)
	}
	fn, sn, r := index, size-1, leaf
	for _, p := range path {
		if sn == 0 {
			return [32]byte{}, fmt.Errorf("%w: path too long", ErrProof)
		}
		if fn&1 == 1 || fn == sn {
			r = NodeHash(p, r)
			for fn&1 == 0 && fn != 0 {
				fn >>= 1
				sn >>= 1
			}
		} else {
			r = NodeHash(r, p)
		}
		fn >>= 1
		sn >>= 1
	}
	if sn != 0 {
		return [32]byte{}, fmt.Errorf("%w: path too short", ErrProof)
	}
	return r, nil
}

// VerifyInclusion returns nil if path proves leaf at index in the tree of
// size with the given root, and an error wrapping ErrProof otherwise.
func VerifyInclusion(leaf [32]byte, index, size uint64, path [][32]byte, root [32]byte) error {
	got, err := RootFromInclusion(leaf, index, size, path)
	if err != nil {
		return err
	}
	if got != root {
		return fmt.Errorf("%w: computed root %x, want %x", ErrProof, got, root)
	}
	return nil
}
