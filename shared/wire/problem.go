package wire

// Problem is an error answer of the API: an RFC 9457 problem details
// object (application/problem+json) with the stable Code extension
// member (docs/api.md, "Errors"). Clients branch on Code, never on Title
// or Detail, which are for people and never carry internal error text.
type Problem struct {
	// Type is the problem type URI: urn:provenant:problem:<code>, or the
	// IANA quota-exceeded type for rate limits.
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail,omitempty"`
	// Code is the stable, machine-readable error code.
	Code string `json:"code"`
	// Field names the offending request member (the query parameter for
	// query errors); when several are invalid, the first of Errors.
	Field string `json:"field,omitempty"`
	// Errors lists every invalid member of the request (validation,
	// unknown, duplicate and query errors); absent for other problems.
	Errors []FieldIssue `json:"errors,omitempty"`
	// ViolatedPolicies names the rate-limit policies exceeded (429 only),
	// as in the IETF RateLimit draft's quota-exceeded problem type.
	ViolatedPolicies []string `json:"violated-policies,omitempty"`
	// RecordID and CertificateURL name the existing record an
	// already_signed upload belongs to.
	RecordID       string `json:"record_id,omitempty"`
	CertificateURL string `json:"certificate_url,omitempty"`
	// RequestID is the request's id (the X-Request-Id response header), so
	// that a user can quote it to an operator.
	RequestID string `json:"request_id,omitempty"`
}

// FieldIssue is one invalid member of a request: its name and a
// client-safe sentence about it (which never echoes the submitted value).
type FieldIssue struct {
	Field  string `json:"field"`
	Detail string `json:"detail"`
}
