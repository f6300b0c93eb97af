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
	out := make([]byte, 1+chacha20poly1305.NonceSizeX, 1+chacha20poly1305.NonceSizeX+len(seed)+s.aead.Overhead())
	out[0] = sealVersion
	if _, err := io.ReadFull(s.rand, out[1:]); err != nil {
		return nil, fmt.Errorf("keys: seal nonce: %w", err)
	}
	return s.aead.Seal(out, out[1:], seed, sealAD(keyID, owner)), nil
}

func (s sealer) open(sealed []byte, keyID, owner string) ([]byte, error) {
	if len(sealed) < 1+chacha20poly1305.NonceSizeX || sealed[0] != sealVersion {
		return nil, errors.New("keys: malformed sealed key")
	}
	nonce := sealed[1 : 1+chacha20poly1305.NonceSizeX]
	seed, err := s.aead.Open(nil, nonce, sealed[1+chacha20poly1305.NonceSizeX:], sealAD(keyID, owner))
	if err != nil {
		return nil, ErrUnsealFailed
	}
	return seed, nil
}
