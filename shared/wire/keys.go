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

// Custody values of a signing key: who holds its private half.
const (
	// CustodyService: the service generated the key and alone signs with
	// it (POST /sign), so it knows when each of its records was signed.
	CustodyService = "service"
	// CustodyDevice: the client generated the key and signs with it
	// itself (register); only an anchoring time dates what it signed.
	CustodyDevice = "device"
)

// SigningKeyState is what the origin's key registry says about the key
// that signed a lookup candidate: who holds it and whether, since when
// and why it was revoked. A client decides from it, with the record's
// source and times, whether the record survives the revocation
// (shared/lookup.DecideKey); the origin decides with the same function.
type SigningKeyState struct {
	// Custody is CustodyService or CustodyDevice.
	Custody string `json:"custody"`
	// RevokedAt is when the owner revoked the key (ISO 8601 UTC), empty
	// while the key is active.
	RevokedAt string `json:"revoked_at,omitempty"`
	// CompromisedSince is the owner's statement that the key was in other
	// hands from that time, set only with RevokedAt.
	CompromisedSince string `json:"compromised_since,omitempty"`
	// Reason is the owner's free-text note.
	Reason string `json:"reason,omitempty"`
}

// Rules a KeyRevocation is decided by.
const (
	// KeyRuleCompromised: the key was revoked with compromised_since; a
	// record stays valid only if its batch was anchored before then.
	KeyRuleCompromised = "compromised_anchor_time"
	// KeyRuleRetiredServiceTime: the key, held by the service, was retired
	// without compromised_since; a record the service itself signed before
	// the retirement stays valid by the service's own time of signing.
	KeyRuleRetiredServiceTime = "retired_service_time"
	// KeyRuleRetiredAnchorTime: the key was retired without
	// compromised_since but what it signed was signed by the client (a
	// device key, or a registered record): a record stays valid when it was
	// anchored before the retirement, or received before it and anchored
	// since; it is not authentic while it waits for that anchoring.
	KeyRuleRetiredAnchorTime = "retired_anchor_time"
)

// Decisions of a KeyRevocation.
const (
	KeyDecisionValid        = "valid"
	KeyDecisionNotAuthentic = "not_authentic"
)

// KeyRevocation is what the revocation of a record's signing key decided
// about that record (docs/api.md, "Signing-key revocation"): the key's
// revocation, the rule that applied, the time compared with, and the
// decision.
type KeyRevocation struct {
	KeyRevokedAt     string `json:"key_revoked_at"`
	CompromisedSince string `json:"compromised_since,omitempty"`
	Reason           string `json:"reason,omitempty"`
	// Cutoff is the time the decision compared with (compromised_since,
	// else the revocation time).
	Cutoff string `json:"cutoff"`
	// Rule is one of the KeyRule constants; always set by the service,
	// absent only in receipts from before it existed.
	Rule string `json:"rule,omitempty"`
	// Decision is KeyDecisionValid or KeyDecisionNotAuthentic; Detail says
	// why in a sentence.
	Decision string `json:"decision"`
	Detail   string `json:"detail"`
	// AwaitingAnchor is true when the decision is not_authentic only until
	// the record's batch is anchored (KeyRuleRetiredAnchorTime, a record
	// received before the retirement): it becomes valid then.
	AwaitingAnchor bool `json:"awaiting_anchor,omitempty"`
}

// Valid reports whether the record stays valid despite the revocation
// (true for a nil revocation).
func (k *KeyRevocation) Valid() bool { return k == nil || k.Decision == KeyDecisionValid }
