// Package c2pafacts turns the C2PA manifest a file carries into what
// verification reports of it: the facts a host computes from the file
// ([Read]) and the verify response's c2pa member with its trust decided
// ([Member]). It is the one source of both for every host: the origin and
// the edge call it through shared/facts and shared/lookup, the browser
// through the C2PA module (wasm/c2pa), which the verifier module leaves
// this work to so that its own download carries no CBOR, COSE or X.509.
package c2pafacts

import (
	"encoding/base64"
	"errors"
	"time"

	"github.com/fxamacker/cbor/v2"

	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/wire"
)

// RecordAssertion is the label of the assertion naming a Provenant record
// (shared/facts.RecordAssertion; a test holds the two equal).
const RecordAssertion = "com.provenant.record"

// maxList bounds the actions and ingredients reported.
const maxList = 32

// Read reads the C2PA manifest store file carries and returns what verify
// reports of it, nil when the file carries none. A store that cannot be
// read at all is reported invalid with the code claim.malformed. Trust is
// not decided here (see [Member]): only the carried chain is used, its
// certificates' validity judged at the time at (the caller's clock).
func Read(file []byte, at time.Time) *wire.C2PAFacts {
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
		if i == maxList {
			break
		}
		w := wire.C2PAAction{Action: a.Action, DigitalSourceType: a.DigitalSourceType, SoftwareAgent: a.SoftwareAgent}
		if !a.When.IsZero() {
			w.When = a.When.UTC().Format(time.RFC3339)
		}
		f.Actions = append(f.Actions, w)
	}
	for i, in := range rep.Ingredients {
		if i == maxList {
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
		var l struct {
			RecordID string `cbor:"record_id"`
		}
		if cbor.Unmarshal(raw, &l) == nil {
			f.RecordID = l.RecordID
		}
	}
	return f
}
