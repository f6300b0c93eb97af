//go:build !verifyonly

package digest

import (
	"crypto/sha256"
	"crypto/sha512"
)

// Sum256 returns the SHA-256 digest of b.
func Sum256(b []byte) [32]byte { return sha256.Sum256(b) }

// Sum256Concat returns the SHA-256 digest of the concatenation of parts.
func Sum256Concat(parts ...[]byte) [32]byte {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// Sum512Concat returns the SHA-512 digest of the concatenation of parts.
func Sum512Concat(parts ...[]byte) [64]byte {
	h := sha512.New()
	for _, p := range parts {
		h.Write(p)
	}
	var out [64]byte
	h.Sum(out[:0])
	return out
}
