package client

import (
	"encoding/json"
	"time"

	"github.com/provenant/provenant/shared/wire"
)

// The answers below mirror docs/api.md member for member. Members the
// origin adds later are ignored by older clients (JSON decoding here is
// lenient; only the origin is strict about what it receives).

// Page is one page of a list endpoint; NextCursor is empty on the last.
type Page[T any] struct {
	Items      []T    `json:"items"`
	NextCursor string `json:"next_cursor,omitempty"`
}

// PageOptions select a page: Limit 1–100 (0: the origin's default, 50)
// and the previous page's NextCursor ("" for the first).
type PageOptions struct {
	Limit  int
	Cursor string
}

// User is an account.
type User struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	OrgName   string    `json:"org_name"`
	OrgType   string    `json:"org_type"`
	CreatedAt time.Time `json:"created_at"`
}

// Session is the answer of register and login: a JWT valid ExpiresIn
// seconds.
type Session struct {
	AccessToken string    `json:"access_token"`
	TokenType   string    `json:"token_type"`
	ExpiresIn   int       `json:"expires_in"`
	ExpiresAt   time.Time `json:"expires_at"`
	User        User      `json:"user"`
}

// RegisterAccountRequest creates an account (all members required).
type RegisterAccountRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
	OrgName  string `json:"org_name"`
	// OrgType is one of camera_manufacturer, ai_provider, creative_studio,
	// news_org, enterprise, individual.
	OrgType string `json:"org_type"`
}

// StatusMessage is the answer of forgot-password and reset-password.
type StatusMessage struct {
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
}

// APIKey is an API key as listed (the secret is never listed).
type APIKey struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Scopes     []string   `json:"scopes"`
	Last4      string     `json:"last4"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
}

// NewAPIKey is a created API key: Key is the secret, returned only once.
type NewAPIKey struct {
	APIKey
	Key string `json:"key"`
}

// API key scopes.
const (
	ScopeSign     = "sign"
	ScopeRead     = "read"
	ScopeWebhooks = "webhooks"
)

// CreateAPIKeyRequest creates an API key; no Scopes means all three.
type CreateAPIKeyRequest struct {
	Name   string   `json:"name"`
	Scopes []string `json:"scopes,omitempty"`
}

// SigningKey is an Ed25519 signing key of the account.
type SigningKey struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	PublicKeyHex string    `json:"public_key_hex"`
	OriginType   string    `json:"origin_type"`
	DeviceID     string    `json:"device_id"`
	DeviceInfo   string    `json:"device_info"`
	CreatedAt    time.Time `json:"created_at"`
}

// CreateSigningKeyRequest creates a signing key held by the service.
type CreateSigningKeyRequest struct {
	Name string `json:"name"`
	// OriginType is a code of GET /api/v1/origin-types.
	OriginType string `json:"origin_type"`
	DeviceID   string `json:"device_id,omitempty"`
	DeviceInfo string `json:"device_info,omitempty"`
}

// OriginType is one entry of the origin type catalogue.
type OriginType struct {
	Category string `json:"category"`
	Code     string `json:"code"`
	Label    string `json:"label"`
}

// SignResponse is the JSON answer of sign (docs/api.md).
type SignResponse = wire.SignResponse

// VerifyResponse is the answer of verify, and what local verification
// computes.
type VerifyResponse = wire.VerifyResponse

// Record is the owner's view of a content record (list, register,
// revoke).
type Record struct {
	ID                  string      `json:"id"`
	RecordID            string      `json:"record_id"`
	SHA256              string      `json:"sha256"`
	OriginalSHA256      string      `json:"original_sha256,omitempty"`
	PerceptualHash      string      `json:"perceptual_hash"`
	WatermarkPayloadHex string      `json:"watermark_payload_hex"`
	SignatureHex        string      `json:"signature_hex"`
	BlockchainStatus    string      `json:"blockchain_status"`
	BlockchainTx        string      `json:"blockchain_tx,omitempty"`
	OriginalFilename    string      `json:"original_filename"`
	OriginType          string      `json:"origin_type"`
	SigningKeyID        string      `json:"signing_key_id"`
	Signer              wire.Signer `json:"signer"`
	// Source is "sign" (watermarked and signed by the service) or
	// "register" (signed by the client).
	Source         string   `json:"source"`
	Status         string   `json:"status"`
	RevokedAt      string   `json:"revoked_at,omitempty"`
	RevokedReason  string   `json:"revoked_reason,omitempty"`
	AnchoredAt     string   `json:"anchored_at,omitempty"`
	CreatedAt      string   `json:"created_at"`
	ParentRecordID string   `json:"parent_record_id,omitempty"`
	ParentEvidence []string `json:"parent_evidence,omitempty"`
}

// RecordDetail is everything stored about one of the caller's records.
type RecordDetail struct {
	Record
	InputFormat  string           `json:"input_format,omitempty"`
	OutputFormat string           `json:"output_format,omitempty"`
	JPEGQuality  int              `json:"jpeg_quality,omitempty"`
	Width        int              `json:"width,omitempty"`
	Height       int              `json:"height,omitempty"`
	Canonical    string           `json:"canonical_record"`
	Certificate  wire.Certificate `json:"certificate"`
	Anchoring    Anchoring        `json:"anchoring"`
}

// Anchoring is a record's anchoring state; Proof is the anchoring
// service's proof document once it has one.
type Anchoring struct {
	Status string          `json:"status"`
	Detail string          `json:"detail"`
	Proof  json.RawMessage `json:"proof,omitempty"`
}

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
type PublicRecord struct {
	ID                  string      `json:"id"`
	SHA256              string      `json:"sha256"`
	PerceptualHash      string      `json:"perceptual_hash"`
	WatermarkPayloadHex string      `json:"watermark_payload_hex"`
	SignatureHex        string      `json:"signature_hex"`
	OriginType          string      `json:"origin_type"`
	OrgName             string      `json:"org_name"`
	OrgType             string      `json:"org_type"`
	SignerPublicKey     string      `json:"signer_public_key"`
	BlockchainStatus    string      `json:"blockchain_status"`
	BlockchainTx        string      `json:"blockchain_tx,omitempty"`
	Status              string      `json:"status"`
	CreatedAt           string      `json:"created_at"`
	Signer              wire.Signer `json:"signer"`
}

// Certificate is a record's public certificate: the signed record, its
// signature and anchor (enough to check it offline, see
// [Certificate.Check]) and the display members.
type Certificate struct {
	wire.Certificate
	Signer            wire.Signer       `json:"signer"`
	OriginDeclared    bool              `json:"origin_declared"`
	Status            string            `json:"status"`
	RevokedAt         string            `json:"revoked_at,omitempty"`
	OriginType        string            `json:"origin_type"`
	OrgType           string            `json:"org_type"`
	KeyName           string            `json:"key_name"`
	BlockchainStatus  string            `json:"blockchain_status"`
	BlockchainTx      string            `json:"blockchain_tx,omitempty"`
	VerifyOffline     string            `json:"verify_offline"`
	ParentRecordID    string            `json:"parent_record_id,omitempty"`
	Chain             []CertificateLink `json:"chain,omitempty"`
	TimeOfRecord      string            `json:"time_of_record"`
	TimeOfRecordBasis string            `json:"time_of_record_basis"`
	ClaimedTimestamp  string            `json:"claimed_timestamp,omitempty"`
}

// CertificateLink is one record of a derivative's chain.
type CertificateLink struct {
	RecordID  string   `json:"record_id"`
	OrgName   string   `json:"org_name"`
	CreatedAt string   `json:"created_at"`
	Relation  string   `json:"relation"`
	Evidence  []string `json:"evidence,omitempty"`
	Status    string   `json:"status"`
}

// RegisterContentRequest registers content the caller signed itself
// (POST /api/v1/register, hash-only).
type RegisterContentRequest struct {
	RecordID            string `json:"record_id"`
	SHA256              string `json:"sha256"`
	PerceptualHash      string `json:"perceptual_hash"`
	WatermarkPayloadHex string `json:"watermark_payload_hex,omitempty"`
	SignatureHex        string `json:"signature_hex"`
	SigningKeyID        string `json:"signing_key_id,omitempty"`
	SignerPublicKey     string `json:"signer_public_key,omitempty"`
	OriginType          string `json:"origin_type,omitempty"`
	Timestamp           string `json:"timestamp"`
	OriginalFilename    string `json:"original_filename,omitempty"`
}

// BatchItem is one file of a sign-batch answer: Result when Status is
// 201, Error otherwise.
type BatchItem struct {
	Index    int           `json:"index"`
	Filename string        `json:"filename"`
	Status   int           `json:"status"`
	Result   *SignResponse `json:"result,omitempty"`
	Error    *Error        `json:"error,omitempty"`
}

// BatchResponse is the answer of sign-batch.
type BatchResponse struct {
	Items     []BatchItem `json:"items"`
	Succeeded int         `json:"succeeded"`
	Failed    int         `json:"failed"`
}

// DashboardStats are the account's counters.
type DashboardStats struct {
	TotalSigned        uint64 `json:"total_signed"`
	TotalVerified      uint64 `json:"total_verified"`
	BlockchainAnchored uint64 `json:"blockchain_anchored"`
	PendingBatch       uint64 `json:"pending_batch"`
	Revoked            uint64 `json:"revoked"`
	RecentRecords      []struct {
		ID           string `json:"id"`
		SHA256       string `json:"sha256"`
		CreatedAt    string `json:"created_at"`
		BlockchainTx string `json:"blockchain_tx"`
	} `json:"recent_records"`
}

// Webhook is a webhook endpoint; Secret is set only by create and
// rotate-secret.
type Webhook struct {
	ID              string     `json:"id"`
	URL             string     `json:"url"`
	Events          []string   `json:"events"`
	Active          bool       `json:"active"`
	CreatedAt       time.Time  `json:"created_at"`
	UpdatedAt       time.Time  `json:"updated_at"`
	SecretRotatedAt *time.Time `json:"secret_rotated_at,omitempty"`
	Secret          string     `json:"secret,omitempty"`
}

// CreateWebhookRequest creates a webhook; nil Events means all event types.
type CreateWebhookRequest struct {
	URL    string   `json:"url"`
	Events []string `json:"events,omitempty"`
}

// UpdateWebhookRequest changes the members that are not nil.
type UpdateWebhookRequest struct {
	URL    *string   `json:"url,omitempty"`
	Events *[]string `json:"events,omitempty"`
	Active *bool     `json:"active,omitempty"`
}

// Delivery is one webhook delivery with its attempts.
type Delivery struct {
	ID            string          `json:"id"`
	WebhookID     string          `json:"webhook_id"`
	Event         string          `json:"event"`
	Status        string          `json:"status"`
	CreatedAt     time.Time       `json:"created_at"`
	UpdatedAt     time.Time       `json:"updated_at"`
	NextAttemptAt *time.Time      `json:"next_attempt_at,omitempty"`
	LastError     string          `json:"last_error,omitempty"`
	Attempts      []Attempt       `json:"attempts"`
	Payload       json.RawMessage `json:"payload"`
}

// Attempt is one delivery attempt.
type Attempt struct {
	Attempt    int       `json:"attempt"`
	At         time.Time `json:"at"`
	StatusCode int       `json:"status_code,omitempty"`
	LatencyMS  float64   `json:"latency_ms"`
	Error      string    `json:"error,omitempty"`
	Manual     bool      `json:"manual,omitempty"`
}

// Domain is a domain claim of the account.
type Domain struct {
	Domain string `json:"domain"`
	// Status is pending or verified.
	Status string `json:"status"`
	Method string `json:"method,omitempty"`
	Token  string `json:"token"`
	Proofs struct {
		HTTPS struct {
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"https"`
		DNSTXT struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"dns_txt"`
	} `json:"proofs"`
	CreatedAt  time.Time  `json:"created_at"`
	CheckedAt  *time.Time `json:"checked_at,omitempty"`
	VerifiedAt *time.Time `json:"verified_at,omitempty"`
}

// Readiness is the answer of GET /ready.
type Readiness struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks"`
}
