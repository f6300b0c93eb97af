// Package digest computes the SHA-256 and SHA-512 digests the verification
// core needs, the same bytes as crypto/sha256 and crypto/sha512 for every
// input.
//
// Built normally it calls the standard library. Built with the tag
// verifyonly (the browser verifier module, see the Makefile's wasm target)
// it runs Go's portable block functions copied into this package instead:
// importing crypto/sha256 links, through its package initialisers, the FIPS
// module's AES, AES-GCM, SHA-3, HMAC and DRBG self-tests, ~70 KB of code
// the module never runs. On WebAssembly the standard library runs those
// same portable functions, so the digests cost the same.
package digest
