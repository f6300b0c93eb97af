package client

import "github.com/provenant/provenant/shared/wire"

// The answers below mirror docs/api.md member for member. Where the origin
// answers with a type of package shared/wire, the type here is that type
// (an alias), so the SDK cannot fall behind what the origin sends. Members
// the origin adds later are ignored by older clients (JSON decoding here
// is lenient; only the origin is strict about what it receives).

// Page is one page of a list endpoint; NextCursor is empty on the last.
type Page[T any] = wire.Page[T]

// PageOptions select a page: Limit 1–100 (0: the origin's default, 50)
// and the previous page's NextCursor ("" for the first).
type PageOptions struct {
	Limit  int
	Cursor string
}

// User is an account.
type User = wire.User

// Session is the answer of register and login: a JWT valid ExpiresIn
// seconds.
type Session = wire.Session

// RegisterAccountRequest creates an account (all members required).
type RegisterAccountRequest = wire.RegisterAccountRequest

// StatusMessage is the answer of forgot-password and reset-password.
type StatusMessage = wire.StatusMessage

// APIKey is an API key as listed (the secret is never listed).
type APIKey = wire.APIKey

// NewAPIKey is a created API key: Key is the secret, returned only once.
type NewAPIKey = wire.NewAPIKey

// API key scopes.
const (
	ScopeSign     = "sign"
	ScopeRead     = "read"
	ScopeWebhooks = "webhooks"
)

// CreateAPIKeyRequest creates an API key; no Scopes means all three.
type CreateAPIKeyRequest = wire.CreateAPIKeyRequest

// SigningKey is an Ed25519 signing key of the account. Custody "device"
// means only the caller holds the private key: sign locally, see
// SignLocal.
type SigningKey = wire.SigningKey

// RevokeSigningKeyRequest revokes a signing key. Records anchored before
// the cutoff (CompromisedSince when set, else the revocation time) stay
// valid; later ones verify as not authentic.
type RevokeSigningKeyRequest = wire.RevokeSigningKeyRequest

// KeyRevocation is the service's decision about a record whose signing
// key was revoked (in certificates and receipts): Decision "valid" when
// the record was anchored before Cutoff, "not_authentic" otherwise.
type KeyRevocation = wire.KeyRevocation

// CreateSigningKeyRequest creates a signing key: held by the service, or,
// with PublicKeyHex, a device key whose private half only the caller
// holds.
type CreateSigningKeyRequest = wire.CreateSigningKeyRequest

// OriginType is one entry of the origin type catalogue.
type OriginType = wire.OriginType

// SignResponse is the JSON answer of sign (docs/api.md).
type SignResponse = wire.SignResponse

// VerifyResponse is the answer of verify, and what local verification
// computes.
type VerifyResponse = wire.VerifyResponse

// Record is the owner's view of a content record (list, show, register,
// revoke).
type Record = wire.Record

// RecordDetail is everything stored about one of the caller's records.
type RecordDetail = wire.RecordDetail

// Anchoring is a record's anchoring state; Proof is the anchoring
// service's proof document once it has one, and Network the chain the
// service anchors on.
type Anchoring = wire.RecordAnchoring

// RecordFilter filters the caller's records; empty members do not filter.
type RecordFilter struct {
	OriginType       string
	BlockchainStatus string // pending, anchored
	Status           string // active, revoked
	SHA256           string // the signed output or the original upload
	From, To         string // RFC 3339 or YYYY-MM-DD; From inclusive, To exclusive
	OrgName          string // public search only
}

// PublicRecord is an entry of the public registry.
type PublicRecord = wire.PublicRecord

// Certificate is a record's public certificate: the signed record, its
// signature and anchor (enough to check it offline) and the display
// members.
type Certificate = wire.PublicCertificate

// CertificateLink is one record of a derivative's chain.
type CertificateLink = wire.CertificateLink

// RegisterContentRequest registers content the caller signed itself
// (POST /api/v1/register, hash-only).
type RegisterContentRequest = wire.RegisterContentRequest

// BatchItem is one file of a sign-batch answer: Result when Status is
// 201, Error otherwise.
type BatchItem = wire.BatchItem[*Error]

// BatchResponse is the answer of sign-batch.
type BatchResponse = wire.BatchResponse[*Error]

// DashboardStats are the account's counters.
type DashboardStats = wire.DashboardStats

// Webhook is a webhook endpoint; Secret is set only by create and
// rotate-secret.
type Webhook = wire.Webhook

// CreateWebhookRequest creates a webhook; nil Events means all event types.
type CreateWebhookRequest = wire.CreateWebhookRequest

// UpdateWebhookRequest changes the members that are not nil.
type UpdateWebhookRequest = wire.UpdateWebhookRequest

// Delivery is one webhook delivery with its attempts.
type Delivery = wire.Delivery

// Attempt is one delivery attempt.
type Attempt = wire.Attempt

// Domain is a domain claim of the account (Status pending or verified)
// and where to put its token.
type Domain = wire.Domain

// Readiness is the answer of GET /ready.
type Readiness = wire.Readiness
