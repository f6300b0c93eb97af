package wire

import "time"

// APIKey is an API key as listed (docs/api.md, "Keys"): never its secret.
type APIKey struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Scopes     []string   `json:"scopes"`
	Last4      string     `json:"last4"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
}

// NewAPIKey is a created API key: Key is the secret, in this answer only.
type NewAPIKey struct {
	APIKey
	Key string `json:"key"`
}

// SigningKey is an Ed25519 signing key of an account: its public half and
// what it signs for, never the private half.
type SigningKey struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	PublicKeyHex string    `json:"public_key_hex"`
	OriginType   string    `json:"origin_type"`
	DeviceID     string    `json:"device_id"`
	DeviceInfo   string    `json:"device_info"`
	CreatedAt    time.Time `json:"created_at"`
	// Custody is "service" (the service holds the sealed private key and
	// signs uploads with it) or "device" (only the client holds it and
	// signs locally).
	Custody string `json:"custody"`
	// RevokedAt, CompromisedSince and RevocationReason are set once the
	// key is revoked: records anchored before the cutoff (CompromisedSince
	// when set, else RevokedAt) stay valid.
	RevokedAt        *time.Time `json:"revoked_at,omitempty"`
	CompromisedSince *time.Time `json:"compromised_since,omitempty"`
	RevocationReason string     `json:"revocation_reason,omitempty"`
}
