package wire

// C2PAManifest is what a file's C2PA manifest store says, as the reader
// found it (docs/c2pa.md, "What verify reports"): the active manifest's
// claim, its validation by structure, hashes and signature against the
// certificate chain it carries (not a trust list), and the record it
// names when it is a Provenant manifest. Both [C2PAFacts] and [C2PA]
// carry it, flattened into their JSON.
type C2PAManifest struct {
	ActiveManifest string `json:"active_manifest"`
	ClaimGenerator string `json:"claim_generator"`
	// Signer is the signing certificate's subject, Issuer its issuer.
	Signer      string           `json:"signer"`
	Issuer      string           `json:"issuer"`
	Actions     []C2PAAction     `json:"actions"`
	Ingredients []C2PAIngredient `json:"ingredients,omitempty"`
	// ValidationState is "valid" or "invalid" (with ValidationCodes, the
	// C2PA status codes of what failed).
	ValidationState string   `json:"validation_state"`
	ValidationCodes []string `json:"validation_codes,omitempty"`
	// RecordID is the record a Provenant manifest names
	// (com.provenant.record assertion).
	RecordID string `json:"record_id,omitempty"`
}

// C2PAFacts is the manifest as analyze reports it, with the chain the
// trust decision needs. Every host computes it with the same shared code,
// so the origin, an edge and the browser module agree.
type C2PAFacts struct {
	C2PAManifest
	// Chain is the signing certificate chain, leaf first, DER in base64
	// (std, padded), for the trust decision the lookup side makes.
	Chain []string `json:"chain,omitempty"`
}

// C2PAAction is one c2pa.actions entry.
type C2PAAction struct {
	Action            string `json:"action"`
	DigitalSourceType string `json:"digital_source_type,omitempty"`
	SoftwareAgent     string `json:"software_agent,omitempty"`
	When              string `json:"when,omitempty"`
}

// C2PAIngredient is one ingredient of the active manifest.
type C2PAIngredient struct {
	Title        string `json:"title,omitempty"`
	Relationship string `json:"relationship"`
	ManifestID   string `json:"manifest_id,omitempty"`
}

// C2PA is the verify response's c2pa member: the manifest the file
// carries beside the four checks (informational: it changes no check).
// Trusted says the signing certificate was issued by this origin's
// Provenant CA and the manifest validates; Ours that it is, moreover, a
// Provenant manifest naming a record.
type C2PA struct {
	C2PAManifest
	Ours    bool `json:"ours"`
	Trusted bool `json:"trusted"`
	// Details says in words what was found and why it is or is not trusted.
	Details string `json:"details"`
}
