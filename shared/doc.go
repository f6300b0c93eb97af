// Package shared is the root of Provenant's verification core: pure Go, no
// cgo, built for native, GOOS=js and GOOS=wasip1. The code lives in the
// subpackages; this package holds only the import-fence test and the
// cross-package benchmarks.
//
//   - limits: every upper bound
//   - imagex: decode untrusted bytes under limits; the shared luminance plane
//   - phash: perceptual hashes of the luminance plane
//   - merkle: RFC 9162 Merkle trees, inclusion and consistency proofs
//   - record: canonical signed record bytes, Ed25519, certificates
//   - verdict: the four checks and the verdict
//   - wire: JSON API types
//   - clock: the time source
//   - c2pa: C2PA manifest stores (Content Credentials) written and read
package shared
