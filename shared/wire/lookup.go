package wire

// Facts are what verification computes from a file before any lookup
// (shared/facts.Analyze): the output of the WebAssembly module's analyze.
type Facts struct {
	// SHA256 is the file's SHA-256, 64 lowercase hex digits.
	SHA256 string `json:"sha256"`
	// PerceptualHash is the 64-bit and 256-bit perceptual hashes, 80 hex
	// digits (the record's perceptual_hash form).
	PerceptualHash string         `json:"perceptual_hash"`
	Watermark      WatermarkFacts `json:"watermark"`
	// Format, Width and Height describe the decoded picture; informative.
	Format string `json:"format,omitempty"`
	Width  int    `json:"width,omitempty"`
	Height int    `json:"height,omitempty"`
	// C2PA is the C2PA manifest the file carries, nil when none.
	C2PA *C2PAFacts `json:"c2pa,omitempty"`
}

// WatermarkFacts is the watermark extraction result.
type WatermarkFacts struct {
	Found bool `json:"found"`
	// Payload is the decoded payload in hex, present only when Found.
	Payload string `json:"payload,omitempty"`
	// Strength is the detector's synchronisation strength.
	Strength float64 `json:"strength"`
	// BitErrors is the number of coded bits the error correction fixed.
	BitErrors int `json:"bit_errors"`
}

// LookupRequest is the body of POST /api/v1/verify/lookup: the facts of
// a file computed by the client. Format, Width and Height are accepted
// (so that analyze's output posts unchanged) and ignored.
type LookupRequest struct {
	SHA256         string          `json:"sha256"`
	PerceptualHash string          `json:"perceptual_hash"`
	Watermark      *WatermarkFacts `json:"watermark,omitempty"`
	Format         string          `json:"format,omitempty"`
	Width          int             `json:"width,omitempty"`
	Height         int             `json:"height,omitempty"`
	// Report asks the origin to count the verification for the matched
	// record's owner (total_verified) and publish content.verified, as
	// POST /api/v1/verify does.
	Report bool `json:"report,omitempty"`
	// C2PA is the manifest the file carries, as analyze reported it (the
	// facts post unchanged): the answer then carries the origin's CA
	// certificate (c2pa_ca) for the trust decision, and the record a valid
	// one names is a candidate too.
	C2PA *C2PAFacts `json:"c2pa,omitempty"`
	// C2PAManifest says the file may carry a C2PA manifest the client did
	// not read (it has no C2PA reader loaded). The answer then carries the
	// origin's CA certificate (c2pa_ca) and, when the file is
	// byte-identical to the signed output of a record this service signed,
	// the verify response's c2pa member computed from those stored bytes
	// (c2pa), so the client need not read the manifest itself.
	C2PAManifest bool `json:"c2pa_manifest,omitempty"`
	// ExactOnly asks for the answer only when the file is byte-identical
	// to the signed output of a record this service signed, which a client
	// can ask with the SHA-256 alone, before analysing the file: sha256 is
	// then the only required member, and perceptual_hash and watermark
	// must be absent. Such a file is answered as without ExactOnly (200,
	// counted with Report, its c2pa member with C2PAManifest); any other
	// is answered 204 No Content, nothing counted, and the client analyses
	// the file and asks again without ExactOnly.
	ExactOnly bool `json:"exact_only,omitempty"`
}

// LookupResponse is the body of a lookup answer: every candidate record
// the origin's own verification would score for these facts, each with
// what a client needs to check it without trusting the origin.
type LookupResponse struct {
	Candidates []LookupCandidate `json:"candidates"`
	// C2PACA is the origin's Provenant CA certificate (PEM), when the
	// request said the file carries a C2PA manifest.
	C2PACA string `json:"c2pa_ca,omitempty"`
	// C2PA answers a request with c2pa_manifest for a file whose SHA-256
	// is the signed output of a record this service signed: the verify
	// response's c2pa member, as POST /api/v1/verify computes it, from the
	// bytes the service stored when it signed them (their SHA-256
	// checked). Absent otherwise (no such record, no stored file, or no
	// manifest in it); the client then reads the manifest itself. A client
	// takes it only when it checked that record's signature over that
	// SHA-256 (shared/lookup: Result.ExactSigned).
	C2PA *C2PA `json:"c2pa,omitempty"`
}

// Revocation states of a lookup candidate.
const (
	RecordActive  = "active"
	RecordRevoked = "revoked"
)

// Anchor states of a lookup candidate, as the origin determined them.
const (
	AnchorVerified    = "verified"
	AnchorPending     = "pending"
	AnchorInvalid     = "invalid"
	AnchorUnavailable = "unavailable"
)

// LookupCandidate is one candidate record of a lookup.
type LookupCandidate struct {
	RecordID string `json:"record_id"`
	// Record is the canonical signed record bytes, base64 (std, padded).
	Record string `json:"record"`
	// SignatureHex is the Ed25519 signature over Record, hex.
	SignatureHex string `json:"signature_hex"`
	// SignerPublicKey is the Ed25519 key inside Record, hex.
	SignerPublicKey string `json:"signer_public_key"`
	// Source is "sign" (the service watermarked and signed the file) or
	// "register" (the client signed it; its facts are the client's claim).
	Source string `json:"source"`
	// OriginalMatch is true when the looked-up sha256 is the SHA-256 of
	// the signer's original upload (the service's word: the signature does
	// not cover it, and the hash itself is not disclosed).
	OriginalMatch bool `json:"original_match,omitempty"`
	// Signer and Origin are the display fields the origin answers with.
	Signer Signer `json:"signer"`
	Origin Origin `json:"origin"`
	// Status is active or revoked; RevokedAt (ISO 8601 UTC) and
	// RevokedReason are set when revoked.
	Status        string `json:"status"`
	RevokedAt     string `json:"revoked_at,omitempty"`
	RevokedReason string `json:"revoked_reason,omitempty"`
	// SigningKey is the state of the record's signing key in the origin's
	// registry (custody, revocation, compromised_since), absent when the
	// key is unknown. The client decides from it, the record's source and
	// CreatedAt/AnchoredAt whether a key revocation invalidates the record
	// (shared/lookup.DecideKey), as the origin's own verify does.
	SigningKey *SigningKeyState `json:"signing_key,omitempty"`
	// CreatedAt is when the service stored the record; AnchoredAt when its
	// batch was anchored. They order competing claims.
	CreatedAt  string `json:"created_at"`
	AnchoredAt string `json:"anchored_at,omitempty"`
	// ParentRecordID is the stored parent link (a version 2 record carries
	// it signed as well).
	ParentRecordID string `json:"parent_record_id,omitempty"`
	// Anchor is the Merkle inclusion proof of the record's leaf, once its
	// batch is in a transaction.
	Anchor *Anchor `json:"anchor,omitempty"`
	// AnchorState is verified, pending, invalid or unavailable: the
	// origin's own check of Anchor against the chain; AnchorDetail is its
	// sentence for the blockchain check.
	AnchorState  string `json:"anchor_state"`
	AnchorDetail string `json:"anchor_detail,omitempty"`
	// RootConfirmed is true when the origin read Anchor.MerkleRoot back
	// from transaction Anchor.TxHash with enough confirmations.
	RootConfirmed bool `json:"root_confirmed"`
	// WatermarkReason says why a record carries no watermark (the
	// service's word, e.g. a picture too small to carry one when signed).
	WatermarkReason string `json:"watermark_reason,omitempty"`
	// Network is the chain the origin anchors on (and checked Anchor
	// against), so that a client deciding from this answer reports it
	// exactly as the origin does.
	Network *Network `json:"network,omitempty"`
}
