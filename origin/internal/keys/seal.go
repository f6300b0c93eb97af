package keys

import (
	"crypto/cipher"
	"errors"
	"fmt"
	"io"

	"golang.org/x/crypto/chacha20poly1305"
)

// sealer encrypts signing-key seeds with XChaCha20-Poly1305 under the master
// key. The additional data binds a sealed seed to its key id and owner, so a
// sealed blob copied onto another record does not open.
type sealer struct {
	aead cipher.AEAD
	rand io.Reader
}

const sealVersion = 1

func newSealer(master []byte, rnd io.Reader) (sealer, error) {
	if len(master) != MasterKeySize {
		return sealer{}, fmt.Errorf("keys: master key must be %d bytes", MasterKeySize)
	}
	aead, err := chacha20poly1305.NewX(master)
	if err != nil {
		return sealer{}, fmt.Errorf("keys: master key: %w", err)
	}
	return sealer{aead: aead, rand: rnd}, nil
}

func sealAD(keyID, owner string) []byte {
	return []byte("provenant/signing-key/v1\x00" + keyID + "\x00" + owner)
}

// seal returns version || nonce || ciphertext.
func (s sealer) seal(seed []byte, keyID, owner string) ([]byte, error) {
	return s.sealWith(seed, sealAD(keyID, owner))
}

func (s sealer) open(sealed []byte, keyID, owner string) ([]byte, error) {
	return s.openWith(sealed, sealAD(keyID, owner))
}

// SealSecret seals secret under the master key that seals signing keys,
// bound to purpose and id: a blob sealed for one purpose or id does not
// open for another, and none opens as a signing key (whose binding has
// its own prefix). purpose names the kind of secret ("c2pa-ca",
// "c2pa-leaf"); the result is safe to store.
func (s *Service) SealSecret(purpose, id string, secret []byte) ([]byte, error) {
	return s.sealer.sealWith(secret, secretAD(purpose, id))
}

// OpenSecret opens what SealSecret sealed for the same purpose and id;
// ErrUnsealFailed when the blob, the binding or the master key differ.
func (s *Service) OpenSecret(purpose, id string, sealed []byte) ([]byte, error) {
	return s.sealer.openWith(sealed, secretAD(purpose, id))
}

func secretAD(purpose, id string) []byte {
	return []byte("provenant/secret/v1\x00" + purpose + "\x00" + id)
}

func (s sealer) sealWith(secret, ad []byte) ([]byte, error) {
	out := make([]byte, 1+chacha20poly1305.NonceSizeX, 1+chacha20poly1305.NonceSizeX+len(secret)+s.aead.Overhead())
	out[0] = sealVersion
	if _, err := io.ReadFull(s.rand, out[1:]); err != nil {
		return nil, fmt.Errorf("keys: seal nonce: %w", err)
	}
	return s.aead.Seal(out, out[1:], secret, ad), nil
}

func (s sealer) openWith(sealed, ad []byte) ([]byte, error) {
	if len(sealed) < 1+chacha20poly1305.NonceSizeX || sealed[0] != sealVersion {
		return nil, errors.New("keys: malformed sealed secret")
	}
	out, err := s.aead.Open(nil, sealed[1:1+chacha20poly1305.NonceSizeX], sealed[1+chacha20poly1305.NonceSizeX:], ad)
	if err != nil {
		return nil, ErrUnsealFailed
	}
	return out, nil
}
