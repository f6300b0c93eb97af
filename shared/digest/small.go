//go:build verifyonly || wasm

package digest

// Sum256 returns the SHA-256 digest of b.
func Sum256(b []byte) [32]byte { return sum256Generic(b) }

// Sum256Concat returns the SHA-256 digest of the concatenation of parts.
func Sum256Concat(parts ...[]byte) [32]byte { return sum256Generic(parts...) }

// Sum512Concat returns the SHA-512 digest of the concatenation of parts.
func Sum512Concat(parts ...[]byte) [64]byte { return sum512Generic(parts...) }
