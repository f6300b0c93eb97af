//go:build verifyonly

package record

// PublicKey is the type of Record.SignerPublicKey. Built with the tag
// verifyonly (the browser verifier module) the package does not import
// crypto/ed25519, whose initialisers link the FIPS module's self-tests and
// random generator, and it cannot sign: see verifyEd25519.
type PublicKey = []byte

// verifySignature is verifyEd25519, crypto/ed25519's Verify without the
// standard library.
func verifySignature(pub, msg, sig []byte) bool { return verifyEd25519(pub, msg, sig) }
