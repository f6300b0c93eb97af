// Package shared is the root of Provenant's verification core: pure Go, no
// cgo, built for native, GOOS=js and GOOS=wasip1. The code lives in the
// subpackages; this package holds only the import-fence test, the
// cross-package tests and benchmarks, and this map (a test keeps it
// complete).
//
//   - limits: every upper bound
//   - clock: the time source, passed in wherever time decides an answer
//   - rfc3339: the API's timestamps parsed as time.Parse does, without its
//     layout interpreter (kept out of the verifier module for its size)
//   - imagex: decode untrusted bytes under limits; the shared luminance plane
//   - phash: perceptual hashes of the luminance plane
//   - watermark: the invisible payload, embedded and extracted
//   - localsig: content-bound local signatures (blocks of the signed picture)
//   - facts: everything verification measures from a file, before any lookup
//   - lookup: checks the origin's candidates and turns them into the answer
//   - verdict: the four checks and the verdict
//   - present: a verdict in the words every surface shows (headline, checks, chain)
//   - digest: SHA-256 and SHA-512, the standard library's or, in the verifier
//     module (tag verifyonly), a portable one that links no other crypto
//   - merkle: RFC 9162 Merkle trees, inclusion and consistency proofs
//   - record: canonical signed record bytes, Ed25519, certificates
//   - receipt: offline receipts, verified without the origin
//   - signerid: how a signer is named to the public
//   - c2pa: C2PA manifest stores (Content Credentials) written and read
//   - wire: JSON API types
package shared
