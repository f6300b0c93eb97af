package facts

// What a Provenant C2PA manifest carries beyond the standard assertions
// (docs/c2pa.md, "What we write").
const (
	// RecordAssertion is the label of the assertion naming the record.
	RecordAssertion = "com.provenant.record"
	// AlgWatermark is the soft-binding algorithm identifier of our
	// watermark: the value is the 8-byte payload, big-endian. Not on the
	// C2PA soft-binding algorithm list.
	AlgWatermark = "com.provenant.watermark.1"
	// AlgPHash is the soft-binding algorithm identifier of our perceptual
	// hash: the value is the 40-byte hash (64-bit then 256-bit DCT hash,
	// the record's perceptual_hash). Not on the C2PA list either.
	AlgPHash = "com.provenant.phash.1"
)

// RecordLink is the data of the com.provenant.record assertion.
type RecordLink struct {
	RecordID string `cbor:"record_id" json:"record_id"`
	// CertificateURL is the record's public certificate (with the
	// anchoring proof once anchored).
	CertificateURL string `cbor:"certificate_url" json:"certificate_url"`
	// ReceiptURL is where the anchoring receipt is served once the record
	// is anchored: the file is not changed after signing (its SHA-256 is
	// in the record), so the receipt is fetched, never embedded.
	ReceiptURL string `cbor:"receipt_url,omitempty" json:"receipt_url,omitempty"`
}
