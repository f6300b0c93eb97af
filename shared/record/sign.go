//go:build !verifyonly

package record

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
)

// PublicKey is the type of Record.SignerPublicKey: crypto/ed25519's, so
// that keys pass between this package and the standard library unconverted.
type PublicKey = ed25519.PublicKey

// Sign encodes r and signs the encoding with priv, which must be the private
// key of r.SignerPublicKey. Ed25519 signing is deterministic.
func Sign(priv ed25519.PrivateKey, r *Record) (Signed, error) {
	if len(priv) != ed25519.PrivateKeySize {
		return Signed{}, fmt.Errorf("%w: private key has %d bytes", ErrKeyMismatch, len(priv))
	}
	if !bytes.Equal(priv.Public().(ed25519.PublicKey), r.SignerPublicKey) {
		return Signed{}, ErrKeyMismatch
	}
	b, err := r.Encode()
	if err != nil {
		return Signed{}, err
	}
	return Signed{Bytes: b, Signature: ed25519.Sign(priv, b)}, nil
}

// verifySignature is crypto/ed25519's Verify.
func verifySignature(pub, msg, sig []byte) bool { return ed25519.Verify(pub, msg, sig) }
