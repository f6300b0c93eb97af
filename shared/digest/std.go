//go:build !verifyonly && !wasm

package digest

import (
	"crypto/sha256"
	"crypto/sha512"
	"hash"
)

// Sum256 returns the SHA-256 digest of b.
func Sum256(b []byte) [32]byte { return sha256.Sum256(b) }

// Sum256Concat returns the SHA-256 digest of the concatenation of parts.
func Sum256Concat(parts ...[]byte) (out [32]byte) {
	sumInto(out[:0], sha256.New(), parts)
	return out
}

// Sum512Concat returns the SHA-512 digest of the concatenation of parts.
func Sum512Concat(parts ...[]byte) (out [64]byte) {
	sumInto(out[:0], sha512.New(), parts)
	return out
}

// sumInto writes h's digest of the concatenated parts into dst's backing
// array, which must have room for it.
func sumInto(dst []byte, h hash.Hash, parts [][]byte) {
	for _, p := range parts {
		h.Write(p)
	}
	h.Sum(dst)
}
