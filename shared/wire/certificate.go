package wire

// PublicCertificate is a record's public certificate, the JSON answer of
// GET /api/v1/content-records/{id}/certificate: the signed record, its
// signature and anchor (enough to check it offline) and the members a
// certificate page shows. The origin encodes and the SDK decodes this one
// type, so a member added here reaches both.
type PublicCertificate struct {
	Certificate
	// Signer is who signed, with the display members (docs/verification.md,
	// "Who a signer is"); org_name above is the name inside the signed
	// record, as the signer declared it.
	Signer         Signer `json:"signer"`
	OriginDeclared bool   `json:"origin_declared"`
	Status         string `json:"status"`
	RevokedAt      string `json:"revoked_at,omitempty"`
	// RevokedReason is the signer's reason for revoking the record, when
	// given.
	RevokedReason    string `json:"revoked_reason,omitempty"`
	OriginType       string `json:"origin_type"`
	OrgType          string `json:"org_type"`
	KeyName          string `json:"key_name"`
	BlockchainStatus string `json:"blockchain_status"`
	BlockchainTx     string `json:"blockchain_tx,omitempty"`
	VerifyOffline    string `json:"verify_offline"`
	// ParentRecordID and Chain show where the content came from when the
	// record was signed as a derivative (docs/verification.md, "Who signed
	// first"): the ancestors oldest first, then this record.
	ParentRecordID string            `json:"parent_record_id,omitempty"`
	Chain          []CertificateLink `json:"chain,omitempty"`
	// TimeOfRecord is when the record is known to have existed: its
	// anchoring time once anchored (TimeOfRecordBasis "anchored"), else
	// when the service received it ("received"). Timestamp stays the time
	// inside the signed record; for a registered record it is the client's
	// claim, repeated as ClaimedTimestamp (docs/verification.md, "Register
	// cannot steal").
	TimeOfRecord      string `json:"time_of_record"`
	TimeOfRecordBasis string `json:"time_of_record_basis"`
	ClaimedTimestamp  string `json:"claimed_timestamp,omitempty"`
	// SigningKeyRevocation says, when the record's signing key is revoked,
	// whether the record stays valid and why.
	SigningKeyRevocation *KeyRevocation `json:"signing_key_revocation,omitempty"`
}
