package wire

import "encoding/json"

// Record is the owner's view of a content record: the answer of list,
// show, register and revoke (docs/api.md, "Content records").
type Record struct {
	ID                  string `json:"id"`
	RecordID            string `json:"record_id"`
	SHA256              string `json:"sha256"`
	OriginalSHA256      string `json:"original_sha256,omitempty"`
	PerceptualHash      string `json:"perceptual_hash"`
	WatermarkPayloadHex string `json:"watermark_payload_hex"`
	// Watermark is "embedded", or "none" with WatermarkReason saying why
	// (as in SignResponse).
	Watermark        string `json:"watermark"`
	WatermarkReason  string `json:"watermark_reason,omitempty"`
	SignatureHex     string `json:"signature_hex"`
	BlockchainStatus string `json:"blockchain_status"`
	BlockchainTx     string `json:"blockchain_tx,omitempty"`
	OriginalFilename string `json:"original_filename"`
	OriginType       string `json:"origin_type"`
	SigningKeyID     string `json:"signing_key_id"`
	Signer           Signer `json:"signer"`
	// Source is "sign" (watermarked and signed by the service) or
	// "register" (signed by the client).
	Source string `json:"source"`
	// Status is active or revoked; RevokedAt (ISO 8601 UTC) and
	// RevokedReason are set when revoked.
	Status        string `json:"status"`
	RevokedAt     string `json:"revoked_at,omitempty"`
	RevokedReason string `json:"revoked_reason,omitempty"`
	AnchoredAt    string `json:"anchored_at,omitempty"`
	CreatedAt     string `json:"created_at"`
	// ParentRecordID is the record this one was signed as a derivative of,
	// ParentEvidence what linked the upload to it.
	ParentRecordID string   `json:"parent_record_id,omitempty"`
	ParentEvidence []string `json:"parent_evidence,omitempty"`
	// DownloadURL is where the owner downloads the signed file, when kept.
	DownloadURL string `json:"download_url,omitempty"`
	// ThumbnailURL is where the owner gets a small preview of the signed
	// picture, when one is kept.
	ThumbnailURL string `json:"thumbnail_url,omitempty"`
}

// PublicRecord is what the public registry shows of a record: no owner
// account id, signing key id, original hash, file name or revocation
// reason.
type PublicRecord struct {
	ID                  string `json:"id"`
	SHA256              string `json:"sha256"`
	PerceptualHash      string `json:"perceptual_hash"`
	WatermarkPayloadHex string `json:"watermark_payload_hex"`
	SignatureHex        string `json:"signature_hex"`
	OriginType          string `json:"origin_type"`
	OrgName             string `json:"org_name"`
	OrgType             string `json:"org_type"`
	SignerPublicKey     string `json:"signer_public_key"`
	BlockchainStatus    string `json:"blockchain_status"`
	BlockchainTx        string `json:"blockchain_tx,omitempty"`
	Status              string `json:"status"`
	CreatedAt           string `json:"created_at"`
	// Signer is who signed, with the display members (verified domain or
	// "unverified organisation", key fingerprint); OrgName above is the
	// declared name.
	Signer Signer `json:"signer"`
}

// CertificateLink is one record of the chain a derivative's certificate
// shows, oldest first (docs/verification.md, "Who signed first").
type CertificateLink struct {
	RecordID  string   `json:"record_id"`
	OrgName   string   `json:"org_name"`
	CreatedAt string   `json:"created_at"`
	Relation  string   `json:"relation"`
	Evidence  []string `json:"evidence,omitempty"`
	Status    string   `json:"status"`
}

// DashboardStats are an account's counters: the answer of GET
// /api/v1/dashboard/stats. TotalVerified counts, once each, the
// verifications that found one of the account's records: uploads to
// /verify, verifications at an edge and lookups with report (the web app's
// verify page in the browser, provenant verify --local --report); badge
// views of the widget count for nobody.
type DashboardStats struct {
	TotalSigned        uint64         `json:"total_signed"`
	TotalVerified      uint64         `json:"total_verified"`
	BlockchainAnchored uint64         `json:"blockchain_anchored"`
	PendingBatch       uint64         `json:"pending_batch"`
	Revoked            uint64         `json:"revoked"`
	RecentRecords      []RecentRecord `json:"recent_records"`
	// Daily is the last 30 UTC days, oldest first.
	Daily []DailyCount `json:"daily"`
}

// RecentRecord is one of the account's latest records on the dashboard.
type RecentRecord struct {
	ID           string `json:"id"`
	SHA256       string `json:"sha256"`
	CreatedAt    string `json:"created_at"`
	BlockchainTx string `json:"blockchain_tx"`
	// OriginalFilename and ThumbnailURL let a dashboard show the record
	// as a picture and a name rather than an id.
	OriginalFilename string `json:"original_filename,omitempty"`
	ThumbnailURL     string `json:"thumbnail_url,omitempty"`
}

// DailyCount is one UTC day of the dashboard: records signed and
// verifications of the account's records that day.
type DailyCount struct {
	Date     string `json:"date"`
	Signed   uint64 `json:"signed"`
	Verified uint64 `json:"verified"`
}

// RecordDetail is everything stored about one of the owner's records (GET
// /api/v1/content-records/{id}).
type RecordDetail struct {
	Record
	InputFormat  string `json:"input_format,omitempty"`
	OutputFormat string `json:"output_format,omitempty"`
	JPEGQuality  int    `json:"jpeg_quality,omitempty"`
	Width        int    `json:"width,omitempty"`
	Height       int    `json:"height,omitempty"`
	// Canonical is the canonical signed record bytes, base64 (std, padded).
	Canonical   string          `json:"canonical_record"`
	Certificate Certificate     `json:"certificate"`
	Anchoring   RecordAnchoring `json:"anchoring"`
}

// RecordAnchoring is a record's anchoring state as the origin checked it:
// Status and Detail in words, Proof the anchoring service's proof
// document once it has one (docs/anchoring.md), Network the chain the
// service anchors on.
type RecordAnchoring struct {
	Status  string          `json:"status"`
	Detail  string          `json:"detail"`
	Proof   json.RawMessage `json:"proof,omitempty"`
	Network *Network        `json:"network,omitempty"`
}
