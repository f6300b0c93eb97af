package content

import (
	"encoding/hex"
	"fmt"
	"time"

	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/wire"
)

// Record is a stored content record: the signed canonical bytes and
// everything the service knows about them. Owner, SigningKeyID,
// OriginalSHA256 and the revocation reason are private to the owner; the
// public registry shows PublicRecord.
type Record struct {
	ID           string `json:"id"`
	Owner        string `json:"owner"`
	SigningKeyID string `json:"signing_key_id"`
	Source       string `json:"source"`
	// SHA256 is the hash of the signed file (for /sign: the watermarked
	// output, the file that circulates).
	SHA256 string `json:"sha256"`
	// OriginalSHA256 is the hash of the upload before watermarking (sign
	// only). It is not covered by the signature; the service vouches for
	// it.
	OriginalSHA256      string `json:"original_sha256,omitempty"`
	PerceptualHash      string `json:"perceptual_hash"`
	WatermarkPayloadHex string `json:"watermark_payload_hex"`
	// WatermarkReason says why a signed record has no watermark (see
	// WatermarkState); empty when it has one.
	WatermarkReason string `json:"watermark_reason,omitempty"`
	SignatureHex    string `json:"signature_hex"`
	// Canonical is the canonical record encoding (shared/record) the
	// signature covers.
	Canonical        []byte      `json:"canonical"`
	OriginType       string      `json:"origin_type"`
	Signer           wire.Signer `json:"signer"`
	OriginalFilename string      `json:"original_filename"`
	// InputFormat and OutputFormat are imagex format names ("jpeg", ...).
	InputFormat  string `json:"input_format,omitempty"`
	OutputFormat string `json:"output_format,omitempty"`
	JPEGQuality  int    `json:"jpeg_quality,omitempty"`
	Width        int    `json:"width,omitempty"`
	Height       int    `json:"height,omitempty"`
	// BlockchainStatus is "pending" until the batcher reports the record's
	// batch anchored (Service.BatchAnchored, in the batcher's transaction),
	// then "anchored", with the transaction and the time. The record is the
	// only place that keeps this per-record state, which lists, filters, the
	// registry and the counters read; the batcher keeps the batch's state
	// machine only. Verification trusts neither: it recomputes the proof and
	// reads the chain (anchor.Checker).
	BlockchainStatus string     `json:"blockchain_status"`
	BlockchainTx     string     `json:"blockchain_tx,omitempty"`
	AnchoredAt       *time.Time `json:"anchored_at,omitempty"`
	Status           string     `json:"status"`
	RevokedAt        *time.Time `json:"revoked_at,omitempty"`
	RevokedReason    string     `json:"revoked_reason,omitempty"`
	CreatedAt        time.Time  `json:"created_at"`
	// ParentRecordID is the record this one derives from, found or declared
	// when it was signed (docs/verification.md, "Who signed first"), and
	// ParentEvidence what linked the upload to it. For a record this
	// service signed, the parent id is also inside Canonical (version 2);
	// the evidence is the service's word.
	ParentRecordID string   `json:"parent_record_id,omitempty"`
	ParentEvidence []string `json:"parent_evidence,omitempty"`
	// Blob is the key of the signed output in the blob store (its SHA-256,
	// equal to SHA256), set when the file is kept. The blob is written and
	// synced before the record commits, so a stored record with Blob set
	// always has its file.
	Blob string `json:"blob,omitempty"`
	// Thumbnail is the blob key of a small JPEG preview of the signed
	// picture, kept beside the file (see keepWithThumbnail); "" when none.
	Thumbnail string `json:"thumbnail,omitempty"`
	// C2PAManifestID is the C2PA manifest written into the signed file
	// (docs/c2pa.md); c2paStore is its manifest store while signing.
	C2PAManifestID string `json:"c2pa_manifest_id,omitempty"`
	c2paStore      []byte
}

// FileURL is the download path of the record's signed file, "" when the
// file is not kept.
func (r *Record) FileURL() string {
	if r.Blob == "" {
		return ""
	}
	return "/api/v1/content-records/" + r.ID + "/file"
}

// Watermark states of a record.
const (
	// WatermarkEmbedded: the signed file carries the record's payload.
	WatermarkEmbedded = "embedded"
	// WatermarkNone: the record has no watermark (a picture too small to
	// carry one when signed, or a registered record without a payload).
	WatermarkNone = "none"
)

// WatermarkReasonTooSmall starts the reason of a picture signed without a
// watermark because it was too small to carry one.
const WatermarkReasonTooSmall = "too small to carry a watermark when signed"

// WatermarkState returns WatermarkEmbedded when the record has a payload
// and WatermarkNone otherwise.
func (r *Record) WatermarkState() string {
	if r.WatermarkPayloadHex != "" {
		return WatermarkEmbedded
	}
	return WatermarkNone
}

// Signed returns the record's canonical bytes and signature.
func (r *Record) Signed() (record.Signed, error) {
	sig, err := hex.DecodeString(r.SignatureHex)
	if err != nil {
		return record.Signed{}, fmt.Errorf("content: record %s: bad signature hex: %w", r.ID, err)
	}
	return record.Signed{Bytes: r.Canonical, Signature: sig}, nil
}

// PublicRecord is what the public registry shows of a record (the API's
// type: Public fills it, Service.Identify its signer's display members).
type PublicRecord = wire.PublicRecord

// Public returns the registry view of r.
func (r *Record) Public() PublicRecord {
	return PublicRecord{
		ID: r.ID, SHA256: r.SHA256, PerceptualHash: r.PerceptualHash, WatermarkPayloadHex: r.WatermarkPayloadHex,
		SignatureHex: r.SignatureHex, OriginType: r.OriginType, OrgName: r.Signer.OrgName, OrgType: r.Signer.OrgType,
		SignerPublicKey: r.Signer.PublicKey, BlockchainStatus: r.BlockchainStatus, BlockchainTx: r.BlockchainTx,
		Status: r.Status, CreatedAt: r.CreatedAt.Format(record.TimeFormat), Signer: r.Signer,
	}
}
