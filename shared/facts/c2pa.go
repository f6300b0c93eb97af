package facts

import (
	"encoding/base64"
	"errors"
	"time"

	"github.com/fxamacker/cbor/v2"

	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/wire"
)

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

// maxC2PAList bounds the actions and ingredients reported.
const maxC2PAList = 32

// C2PA reads the C2PA manifest store file carries and returns what verify
// reports of it, nil when the file carries none. A store that cannot be
// read at all is reported invalid with the code claim.malformed. Trust is
// not decided here (see shared/lookup): only the carried chain is used,
// its certificates' validity judged at the time at (the caller's clock).
func C2PA(file []byte, at time.Time) *wire.C2PAFacts {
	malformed := &wire.C2PAFacts{C2PAManifest: wire.C2PAManifest{ValidationState: "invalid", ValidationCodes: []string{"claim.malformed"}, Actions: []wire.C2PAAction{}}}
	store, err := c2pa.Extract(file)
	if errors.Is(err, c2pa.ErrMalformed) {
		return malformed
	}
	if err != nil || len(store) == 0 {
		return nil
	}
	rep, err := c2pa.ReadStore(store, file, at)
	if err != nil {
		if errors.Is(err, c2pa.ErrNoManifest) {
			return nil
		}
		return malformed
	}
	return FromReport(rep)
}

// FromReport is the wire form of a reader's report.
func FromReport(rep *c2pa.Report) *wire.C2PAFacts {
	f := &wire.C2PAFacts{C2PAManifest: wire.C2PAManifest{
		ActiveManifest: rep.ActiveManifest, ClaimGenerator: rep.ClaimGenerator, Signer: rep.Signer, Issuer: rep.Issuer,
		ValidationState: rep.State, ValidationCodes: rep.Codes, Actions: []wire.C2PAAction{},
	}}
	for i, a := range rep.Actions {
		if i == maxC2PAList {
			break
		}
		w := wire.C2PAAction{Action: a.Action, DigitalSourceType: a.DigitalSourceType, SoftwareAgent: a.SoftwareAgent}
		if !a.When.IsZero() {
			w.When = a.When.UTC().Format(time.RFC3339)
		}
		f.Actions = append(f.Actions, w)
	}
	for i, in := range rep.Ingredients {
		if i == maxC2PAList {
			break
		}
		f.Ingredients = append(f.Ingredients, wire.C2PAIngredient{Title: in.Title, Relationship: in.Relationship, ManifestID: in.ManifestID})
	}
	for i, c := range rep.Chain {
		if i == 4 {
			break
		}
		f.Chain = append(f.Chain, base64.StdEncoding.EncodeToString(c.Raw))
	}
	if raw, ok := rep.Assertions[RecordAssertion]; ok {
		var l RecordLink
		if cbor.Unmarshal(raw, &l) == nil {
			f.RecordID = l.RecordID
		}
	}
	return f
}
