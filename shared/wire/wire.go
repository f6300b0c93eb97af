// Package wire holds the JSON types of the public API that the origin, the
// edge and the WebAssembly verifier exchange. The types carry no behaviour
// beyond wording helpers (Network.Label, Network.ExplorerTx): field names
// and JSON tags are the contract documented in docs/api.md.
package wire

import (
	"fmt"
	"strings"
)

// Check names, as used as keys of [Checks] in JSON.
const (
	CheckWatermark      = "watermark"
	CheckSHA256         = "sha256"
	CheckPerceptualHash = "perceptual_hash"
	CheckBlockchain     = "blockchain"
)

// Blockchain statuses of a content record.
const (
	StatusPending  = "pending"
	StatusAnchored = "anchored"
)

// Check is the outcome of one of the four verification checks.
type Check struct {
	Passed  bool   `json:"passed"`
	Details string `json:"details"`
	// NotApplicable is true when the check cannot apply to the record
	// (the watermark check of a record signed without a watermark): it
	// neither passes nor counts against the file.
	NotApplicable bool `json:"not_applicable,omitempty"`
}

// Checks are the four checks of a verification, always all present.
type Checks struct {
	Watermark      Check `json:"watermark"`
	SHA256         Check `json:"sha256"`
	PerceptualHash Check `json:"perceptual_hash"`
	Blockchain     Check `json:"blockchain"`
}

// Origin describes where content came from, e.g. {"camera","camera_image","Camera image"}.
type Origin struct {
	Category string `json:"category"`
	Code     string `json:"code"`
	Label    string `json:"label"`
	// Declared is true when the origin type is the signer's own statement
	// (the origin type its key was created with, or sent with a
	// registration), not something the service established; clients show
	// it as "declared by the signer".
	Declared bool `json:"declared"`
}

// Signer identifies the organisation and key that signed a record. OrgName,
// KeyName and DeviceID are what the signer declared; the members after
// KeyName are the service's view of who that is (docs/verification.md,
// "Who a signer is"), and Display is the one line to show.
type Signer struct {
	OrgName   string `json:"org_name"`
	OrgType   string `json:"org_type"`
	DeviceID  string `json:"device_id"`
	PublicKey string `json:"public_key"`
	KeyName   string `json:"key_name"`

	// OrgVerified is true when the signing account proved control of
	// VerifiedDomain (an HTTPS /.well-known/ file or a DNS TXT record).
	OrgVerified    bool   `json:"org_verified"`
	VerifiedDomain string `json:"verified_domain,omitempty"`
	// KeyFingerprint is the first 16 hex digits of the SHA-256 of the raw
	// 32-byte Ed25519 public key (shared/signerid.Fingerprint).
	KeyFingerprint string `json:"key_fingerprint,omitempty"`
	// NameShared is true when another account's organisation name looks
	// the same (case, width and Latin look-alikes folded).
	NameShared bool `json:"name_shared,omitempty"`
	// Display is what to show for the signer (shared/signerid.Display),
	// e.g. "unverified organisation: Reuters (key 1a2b3c4d5e6f7a8b)" or
	// "Reuters (verified domain reuters.com)".
	Display string `json:"display,omitempty"`
}

// VerifyResponse is the body of POST /api/v1/verify.
type VerifyResponse struct {
	Authentic  bool    `json:"authentic"`
	Confidence float64 `json:"confidence"`
	Origin     *Origin `json:"origin"`
	Signer     *Signer `json:"signer"`
	// BlockchainTx and Timestamp are always present: empty while the
	// record is pending (no transaction yet) or when the answer is not
	// authentic; Origin and Signer are then null.
	BlockchainTx string `json:"blockchain_tx"`
	// Timestamp is the signing time of the matched record, ISO 8601 (RFC 3339) in UTC.
	Timestamp string `json:"timestamp"`
	Checks    Checks `json:"checks"`
	// RecordID is the matched record, when there is one (an extension of the spec).
	RecordID string `json:"record_id,omitempty"`
	// OriginalRecordID is the first claim of the provenance chain, and
	// Chain the records linked to the file, oldest first, when more than one
	// record is involved (docs/verification.md, "Who signed first").
	OriginalRecordID string      `json:"original_record_id,omitempty"`
	Chain            []ChainLink `json:"chain,omitempty"`
	// Resembles is what was found when the file is not authentic: a record
	// the file resembles or carries a mark of, which is not shown to be
	// the file's (docs/verification.md, "No endorsement without
	// authenticity"). Signer, Origin, BlockchainTx, RecordID and Timestamp
	// are then empty: they would read as the file's.
	Resembles *Resemblance `json:"resembles,omitempty"`
	// ClaimedTimestamp is the signing time a registered record claims
	// (set by the client, not by the service), shown beside Timestamp,
	// which is then the time of record: when the record was anchored, or
	// received while pending.
	ClaimedTimestamp string `json:"claimed_timestamp,omitempty"`
	// KeyRevocation is present when the signing key of the record found
	// was revoked: the rule that applied and its decision (a record that
	// stays valid is authentic with this member saying why).
	KeyRevocation *KeyRevocation `json:"key_revocation,omitempty"`
	// Match is how the file relates to the record found, always present:
	// exact, reencoded, crop, contained, edited, mismatch, perceptual or
	// none (docs/verification.md, "Local signatures").
	Match string `json:"match"`
	// Contained is, for match contained, where the signed picture sits
	// in the file and how much of the file is not vouched for.
	Contained *Containment `json:"contained,omitempty"`
	// Region is the part of the signed picture the file shows, for crop
	// and edited.
	Region *Region `json:"region,omitempty"`
	// ChangedBlocks is the coarse map of the signed picture's blocks
	// found changed, for edited.
	ChangedBlocks *BlockMap `json:"changed_blocks,omitempty"`
	// Network is the chain the answering record is (or will be) anchored
	// on, present whenever a record was found and its anchoring state
	// could be read (docs/anchoring.md, "Which network").
	Network *Network `json:"network,omitempty"`
	// C2PA is the C2PA manifest the file carries (docs/c2pa.md), absent
	// when it carries none.
	C2PA *C2PA `json:"c2pa,omitempty"`
}

// LocalChainDescription is what every surface says of an anchor on a
// chain that is not public (the embedded development chain).
const LocalChainDescription = "local development chain: proves order and integrity within this service, not a public timestamp"

// Network describes an anchoring chain as the service is configured: the
// origin's word, not covered by any signature. A chain that is not Public
// is one only the service's operator runs: its anchors show the order and
// integrity of the service's records, not a timestamp anyone else can
// check, and they never raise a verdict's confidence.
type Network struct {
	// Name is the network name proofs carry ("provenant-dev", "sepolia").
	Name string `json:"name"`
	// ChainID is its EIP-155 chain id.
	ChainID uint64 `json:"chain_id"`
	// Public is true for a chain anyone can read from independent nodes.
	Public bool `json:"public"`
	// Description says in reader words what an anchor on it proves
	// (LocalChainDescription when not Public).
	Description string `json:"description"`
	// ExplorerTxURL, for a public chain with a known block explorer, is a
	// URL template: "{tx}" stands for the 0x transaction hash.
	ExplorerTxURL string `json:"explorer_tx_url,omitempty"`
}

// ExplorerTx returns the explorer link of transaction tx ("" when the
// network has no explorer or tx is empty).
func (n *Network) ExplorerTx(tx string) string {
	if n == nil || n.ExplorerTxURL == "" || tx == "" {
		return ""
	}
	return strings.Replace(n.ExplorerTxURL, "{tx}", tx, 1)
}

// Label is the short phrase naming the network for a reader, e.g.
// "sepolia (chain id 11155111), a public network" or "provenant-dev
// (chain id 1337), a local development chain: proves order and integrity
// within this service, not a public timestamp".
func (n *Network) Label() string {
	if n == nil {
		return ""
	}
	if n.Public {
		return fmt.Sprintf("%s (chain id %d), a public network", n.Name, n.ChainID)
	}
	return fmt.Sprintf("%s (chain id %d), a %s", n.Name, n.ChainID, LocalChainDescription)
}

// Region is a rectangle of the signed picture as fractions (0..1) of its
// width and height, origin top left.
type Region struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	W float64 `json:"w"`
	H float64 `json:"h"`
}

// Containment places a signed picture inside a larger file.
type Containment struct {
	// Region is the signed picture's rectangle as fractions (0..1) of the
	// file's width and height, origin top left.
	Region Region `json:"region"`
	// Unvouched is the fraction of the file's area outside the signed
	// picture: content the signature does not cover.
	Unvouched float64 `json:"unvouched_fraction"`
}

// BlockMap is a coarse grid over the signed picture (Cols×Rows blocks,
// row-major from the top left) and the indices of the blocks found
// changed.
type BlockMap struct {
	Cols  int   `json:"cols"`
	Rows  int   `json:"rows"`
	Cells []int `json:"cells"`
}

// Resemblance relations.
const (
	// RelationRevoked: the file is the record's, but its signer revoked it.
	RelationRevoked = "revoked"
	// RelationWatermarkTransplant: the file carries the record's watermark
	// payload in a picture that is not the signed picture.
	RelationWatermarkTransplant = "watermark_transplant"
	// RelationPerceptualLookalike: the picture looks like the record's but
	// carries neither its watermark nor its bytes.
	RelationPerceptualLookalike = "perceptual_lookalike"
	// RelationDerived: the picture is derived from the record's, with
	// content that may differ.
	RelationDerived = "derived"
	// RelationProofInvalid: the record's anchoring proof does not verify.
	RelationProofInvalid = "proof_invalid"
)

// Resemblance names a record a non-authentic file was linked to, and how.
type Resemblance struct {
	RecordID string `json:"record_id"`
	// Relation is one of the Relation constants.
	Relation string `json:"relation"`
	// ClaimedBy is the organisation that signed the record (not the
	// file's signer).
	ClaimedBy string `json:"claimed_by,omitempty"`
	// Detail says in words what was found and why it is not authenticity.
	Detail string `json:"detail"`
}

// ChainLink is one record of a provenance chain.
type ChainLink struct {
	RecordID string `json:"record_id"`
	// OrgName is the signer's organisation.
	OrgName string `json:"org_name"`
	// Relation is original, derivative, resigned_copy or earlier_match.
	Relation string `json:"relation"`
	// Evidence names what linked the record: watermark, sha256,
	// original_sha256, perceptual_hash, parent_link.
	Evidence       []string `json:"evidence"`
	ParentRecordID string   `json:"parent_record_id,omitempty"`
	// CreatedAt is when the service stored the record; AnchoredAt when its
	// batch was anchored. ISO 8601 UTC.
	CreatedAt  string `json:"created_at,omitempty"`
	AnchoredAt string `json:"anchored_at,omitempty"`
}

// Certificate is the offline-verifiable summary of a signed record nested in
// the sign response and served at /content-records/{id}/certificate. The
// fields after Timestamp extend the spec so that the certificate verifies
// without the service: see shared/record.Certificate.
type Certificate struct {
	RecordID        string `json:"record_id"`
	SHA256          string `json:"sha256"`
	SignerPublicKey string `json:"signer_public_key"`
	OrgName         string `json:"org_name"`
	Timestamp       string `json:"timestamp"`

	// Record is the canonical signed record bytes, base64 (std, padded).
	Record string `json:"record,omitempty"`
	// SignatureHex is the Ed25519 signature over Record, hex.
	SignatureHex string `json:"signature_hex,omitempty"`
	// Anchor is the Merkle inclusion of the record's leaf, once anchored.
	Anchor *Anchor `json:"anchor,omitempty"`
	// Network is the chain the record is (or will be) anchored on.
	Network *Network `json:"network,omitempty"`
}

// SignResponse is the JSON body of POST /api/v1/sign when no file is returned.
type SignResponse struct {
	RecordID            string `json:"record_id"`
	SHA256              string `json:"sha256"`
	PerceptualHash      string `json:"perceptual_hash"`
	WatermarkPayloadHex string `json:"watermark_payload_hex"`
	// Watermark is "embedded", or "none" for a picture signed without a
	// watermark (WatermarkPayloadHex is then empty) with WatermarkReason
	// saying why.
	Watermark        string      `json:"watermark"`
	WatermarkReason  string      `json:"watermark_reason,omitempty"`
	SignatureHex     string      `json:"signature_hex"`
	BlockchainStatus string      `json:"blockchain_status"`
	Certificate      Certificate `json:"certificate"`
	// ParentRecordID is the record the signed upload derives from, when it
	// is already signed content (same account, or declared with
	// derivative_of); ParentEvidence names what linked it.
	ParentRecordID string   `json:"parent_record_id,omitempty"`
	ParentEvidence []string `json:"parent_evidence,omitempty"`
	// DownloadURL is where the owner downloads the signed file later
	// (API key with scope read), when the service keeps it.
	DownloadURL string `json:"download_url,omitempty"`
	// C2PAManifestID is the C2PA manifest written into the signed file
	// (docs/c2pa.md), absent when none was.
	C2PAManifestID string `json:"c2pa_manifest_id,omitempty"`
}

// Anchor is a Merkle inclusion proof of a record leaf in an anchored batch.
// Hashes are lowercase hex.
type Anchor struct {
	BatchID     string   `json:"batch_id,omitempty"`
	LeafIndex   uint64   `json:"leaf_index"`
	TreeSize    uint64   `json:"tree_size"`
	AuditPath   []string `json:"audit_path"`
	MerkleRoot  string   `json:"merkle_root"`
	TxHash      string   `json:"tx_hash"`
	BlockNumber uint64   `json:"block_number"`
	Network     string   `json:"network,omitempty"`
	// ChainID is the EIP-155 chain id of Network, when known.
	ChainID uint64 `json:"chain_id,omitempty"`
	// BlockHash is the hash of block BlockNumber (0x hex), when known: with
	// ChainID it names the block on any node of the chain, reorgs included.
	BlockHash string `json:"block_hash,omitempty"`
}

// Probe is the examined picture's local-signature probe in JSON: its
// luminance area-averaged to short side 128 (Pix, row-major, base64 in
// JSON) and the placement on the signed grid the watermark decoder found
// (docs/verification.md, "Local signatures"). The browser module returns
// it beside the facts from analyze and takes it back in decide; it is a
// thumbnail of the picture, so it never goes to the lookup.
type Probe struct {
	Width      int     `json:"width"`
	Height     int     `json:"height"`
	Pix        []byte  `json:"pix"`
	Scale      float64 `json:"scale"`
	Angle      float64 `json:"angle"`
	OffsetX    float64 `json:"offset_x"`
	OffsetY    float64 `json:"offset_y"`
	WorkWidth  int     `json:"work_width"`
	WorkHeight int     `json:"work_height"`
	Period     int     `json:"period"`
	// Cb and Cr are the picture's chroma (BT.601, offset 128) at the
	// plane's size, one byte a pixel, when the analysis had them: with
	// them a colour grid (record version 4) compares colour as the
	// origin does; without, luminance alone.
	Cb []byte `json:"cb,omitempty"`
	Cr []byte `json:"cr,omitempty"`
}
