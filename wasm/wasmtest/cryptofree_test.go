package wasmtest_test

import (
	"testing"

	"github.com/provenant/provenant/wasm/wasmtest"
)

// TestVerifierLeavesStdCryptoOut: the verifier module (tags VerifierTags)
// imports none of the standard library's hash, signature or cipher
// packages. Each of them imports the FIPS module, whose package
// initialisers register AES, AES-GCM, SHA-3, HMAC and DRBG self-tests
// and so link all of that code: ~46 KB of the module as served. The
// module hashes through shared/digest and verifies Ed25519 through
// shared/record, both held equal to the standard library by their tests.
func TestVerifierLeavesStdCryptoOut(t *testing.T) {
	banned := map[string]bool{"crypto/ed25519": true, "crypto/sha256": true, "crypto/sha512": true,
		"crypto/rand": true, "crypto/cipher": true, "crypto/hmac": true, "crypto/internal/fips140": true}
	deps := moduleDeps(t, "./wasm", wasmtest.VerifierTags)
	if len(deps) < 50 {
		t.Fatalf("go list -deps gave %d packages; expected the module's whole graph", len(deps))
	}
	for _, p := range deps {
		if banned[p] {
			t.Errorf("the verifier module links %s", p)
		}
	}
}
