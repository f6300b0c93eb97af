package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
)

// deviceKeyFile is a device signing key on disk (JSON, mode 0600): the
// Ed25519 seed and what signing with it needs besides (the key's id at the
// origin and the origin type its records declare).
type deviceKeyFile struct {
	Format       string `json:"format"`
	SigningKeyID string `json:"signing_key_id,omitempty"`
	OriginType   string `json:"origin_type"`
	PublicKeyHex string `json:"public_key_hex"`
	// SeedHex is the 32-byte Ed25519 seed (RFC 8032 private key), hex.
	SeedHex string `json:"seed_hex"`
}

const deviceKeyFormat = "provenant-device-key/v1"

func newDeviceKey(originType string) (deviceKeyFile, ed25519.PrivateKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return deviceKeyFile{}, nil, err
	}
	return deviceKeyFile{Format: deviceKeyFormat, OriginType: originType, PublicKeyHex: hex.EncodeToString(pub),
		SeedHex: hex.EncodeToString(priv.Seed())}, priv, nil
}

func loadDeviceKey(path string) (deviceKeyFile, ed25519.PrivateKey, error) {
	var k deviceKeyFile
	b, err := readBounded(path, 64<<10)
	if err != nil {
		return k, nil, err
	}
	if err := json.Unmarshal(b, &k); err != nil || k.Format != deviceKeyFormat {
		return k, nil, fmt.Errorf("%s is not a %s file", path, deviceKeyFormat)
	}
	seed, err := hex.DecodeString(k.SeedHex)
	if err != nil || len(seed) != ed25519.SeedSize {
		return k, nil, fmt.Errorf("%s: seed_hex is not 32 bytes of hex", path)
	}
	priv := ed25519.NewKeyFromSeed(seed)
	if hex.EncodeToString(priv.Public().(ed25519.PublicKey)) != k.PublicKeyHex {
		return k, nil, fmt.Errorf("%s: public_key_hex does not match the seed", path)
	}
	return k, priv, nil
}

// saveDeviceKey writes k with mode 0600; it refuses to replace an existing
// file (a lost private key cannot be recovered).
func saveDeviceKey(path string, k deviceKeyFile, replace bool) error {
	b, err := json.MarshalIndent(k, "", "  ")
	if err != nil {
		return err
	}
	if !replace {
		if _, err := os.Stat(path); err == nil {
			return fmt.Errorf("%s exists: not replacing a private key", path)
		}
	}
	return writeFileAtomic(path, append(b, '\n'), 0o600)
}
