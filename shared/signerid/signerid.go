// Package signerid computes how a signer is shown to the public: the
// signing key's fingerprint and the one display line that says whether the
// organisation is verified (docs/verification.md, "Who a signer is"). The
// origin, the WebAssembly verifier and the badges use it so that every
// surface says the same thing.
package signerid

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// FingerprintLen is the number of hex digits of a key fingerprint (64
// bits: enough that two keys of a deployment never share one by chance,
// short enough to read aloud).
const FingerprintLen = 16

// Fingerprint returns the key fingerprint of an Ed25519 public key given as
// hex: the first FingerprintLen lowercase hex digits of the SHA-256 of the
// raw key bytes. It returns "" when publicKeyHex is not hex.
func Fingerprint(publicKeyHex string) string {
	raw, err := hex.DecodeString(publicKeyHex)
	if err != nil || len(raw) == 0 {
		return ""
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])[:FingerprintLen]
}

// Identity is what the service knows of a signer beyond what it declared.
type Identity struct {
	// VerifiedDomain is a domain the signing account proved it controls;
	// "" means the organisation is unverified.
	VerifiedDomain string
	// NameShared is true when another account's organisation name folds
	// to the same comparison key.
	NameShared bool
}

// Display returns the line to show for a signer whose declared (already
// display-safe) organisation name is org and whose key fingerprint is fp:
//
//	verified:                 "Reuters (verified domain reuters.com)"
//	verified, name shared:    "Reuters (verified domain reuters.com, key 1a2b3c4d5e6f7a8b)"
//	unverified:               "unverified organisation: Reuters (key 1a2b3c4d5e6f7a8b)"
//	unverified, name shared:  "unverified organisation: Reuters (key 1a2b3c4d5e6f7a8b; another organisation uses this name)"
//
// An unverified organisation always carries the fingerprint: its name is
// only a claim, and the key is what tells two claimants apart.
func Display(org, fp string, id Identity) string {
	var b strings.Builder
	if id.VerifiedDomain != "" {
		b.WriteString(org)
		b.WriteString(" (verified domain ")
		b.WriteString(id.VerifiedDomain)
		if id.NameShared && fp != "" {
			b.WriteString(", key ")
			b.WriteString(fp)
		}
		b.WriteString(")")
		return b.String()
	}
	b.WriteString("unverified organisation: ")
	b.WriteString(org)
	if fp != "" || id.NameShared {
		b.WriteString(" (")
		if fp != "" {
			b.WriteString("key ")
			b.WriteString(fp)
		}
		if id.NameShared {
			if fp != "" {
				b.WriteString("; ")
			}
			b.WriteString("another organisation uses this name")
		}
		b.WriteString(")")
	}
	return b.String()
}
