// Package digest computes the SHA-256 and SHA-512 digests the verification
// core needs, the same bytes as crypto/sha256 and crypto/sha512 for every
// input.
//
// Built normally it calls the standard library. Built with the tag
// verifyonly (the browser verifier module, see the Makefile's wasm target)
// it runs this package's own portable SHA-2, written from FIPS 180-4:
// importing crypto/sha256 links, through its package initialisers, the FIPS
// module's AES, AES-GCM, SHA-3, HMAC and DRBG self-tests, ~70 KB of code
// the module never runs. On WebAssembly the standard library has no
// assembly; this package's block function has (blocks_wasm.s), and hashes
// about three times as fast as crypto/sha256 there (bench/README.md), so
// every WebAssembly build (the C2PA module's too, which links the standard
// library's hashes anyway) runs this package's own code.
package digest
