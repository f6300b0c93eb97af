package webhooks

import (
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

// SecretPrefix starts every webhook signing secret.
const SecretPrefix = "whsec_"

// SecretBytes is the number of random bytes in a secret (Standard Webhooks
// asks for 24 to 64).
const SecretBytes = 32

// Header names sent with every delivery. The X-Service-* set is fixed by the
// API contract (docs/webhooks.md); the webhook-* trio follows Standard Webhooks and is sent
// in addition.
const (
	HeaderSignature         = "X-Service-Signature"
	HeaderSignaturePrevious = "X-Service-Signature-Previous"
	HeaderEvent             = "X-Service-Event"
	HeaderDelivery          = "X-Service-Delivery"
	HeaderTimestamp         = "X-Service-Timestamp"
	HeaderStdID             = "webhook-id"
	HeaderStdTimestamp      = "webhook-timestamp"
	HeaderStdSignature      = "webhook-signature"
)

// newSecret returns "whsec_" + base64 of SecretBytes random bytes.
func newSecret(rnd io.Reader) (string, error) {
	b := make([]byte, SecretBytes)
	if _, err := io.ReadFull(rnd, b); err != nil {
		return "", fmt.Errorf("webhooks: generate secret: %w", err)
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b), nil
}

// newSealedSecret draws a new secret for webhook id and seals it for the
// store; the plain secret is shown to the owner once and never stored.
func (s *Service) newSealedSecret(id string) (secret string, sealed []byte, err error) {
	if secret, err = newSecret(s.rand); err != nil {
		return "", nil, err
	}
	if sealed, err = s.sealer.seal(s.rand, secret, id); err != nil {
		return "", nil, err
	}
	return secret, sealed, nil
}

// Sign returns the X-Service-Signature value for body: the lower-case hex
// HMAC-SHA256 of the exact body bytes, keyed with the whole secret string
// (including the "whsec_" prefix) as bytes.
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// VerifySignature reports whether header is Sign(secret, body). The
// comparison is constant-time (hmac.Equal over the decoded digests).
func VerifySignature(secret string, body []byte, header string) bool {
	got, err := hex.DecodeString(strings.TrimSpace(header))
	if err != nil {
		return false
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hmac.Equal(got, m.Sum(nil))
}

// SignStandard returns one Standard Webhooks signature, "v1,<base64>", of
// "<id>.<unix seconds>.<body>" keyed with the base64-decoded part of the
// secret after "whsec_" (what the Standard Webhooks libraries expect).
func SignStandard(secret, id string, ts time.Time, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil {
		return "", errors.New("webhooks: secret is not base64 after its prefix")
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + strconv.FormatInt(ts.Unix(), 10) + "."))
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil)), nil
}

// sealer encrypts webhook secrets at rest with XChaCha20-Poly1305 under a
// key derived from the master key; the additional data binds a sealed
// secret to its webhook id.
type sealer struct{ aead cipher.AEAD }

const sealVersion = 1

func newSealer(master []byte) (sealer, error) {
	if len(master) < 32 {
		return sealer{}, errors.New("webhooks: master key must be at least 32 bytes")
	}
	m := hmac.New(sha256.New, master)
	m.Write([]byte("provenant/webhook-secret/v1"))
	aead, err := chacha20poly1305.NewX(m.Sum(nil))
	if err != nil {
		return sealer{}, fmt.Errorf("webhooks: seal key: %w", err)
	}
	return sealer{aead: aead}, nil
}

func sealAD(webhookID string) []byte { return []byte("provenant/webhook-secret/v1\x00" + webhookID) }

func (s sealer) seal(rnd io.Reader, secret, webhookID string) ([]byte, error) {
	out := make([]byte, 1+chacha20poly1305.NonceSizeX, 1+chacha20poly1305.NonceSizeX+len(secret)+s.aead.Overhead())
	out[0] = sealVersion
	if _, err := io.ReadFull(rnd, out[1:]); err != nil {
		return nil, fmt.Errorf("webhooks: seal nonce: %w", err)
	}
	return s.aead.Seal(out, out[1:], []byte(secret), sealAD(webhookID)), nil
}

// errUnseal is returned when a sealed secret does not open (master key
// changed or record corrupted).
var errUnseal = errors.New("webhooks: cannot unseal webhook secret")

func (s sealer) open(sealed []byte, webhookID string) (string, error) {
	if len(sealed) < 1+chacha20poly1305.NonceSizeX || sealed[0] != sealVersion {
		return "", errUnseal
	}
	pt, err := s.aead.Open(nil, sealed[1:1+chacha20poly1305.NonceSizeX], sealed[1+chacha20poly1305.NonceSizeX:], sealAD(webhookID))
	if err != nil {
		return "", errUnseal
	}
	return string(pt), nil
}
