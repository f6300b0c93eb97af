// Package c2paabi is what the C2PA module's exports do (wasm/c2pa), as
// plain functions of bytes (JSON out) so that they are tested natively and
// through the module alike. docs/widget.md documents every shape.
package c2paabi

import (
	"time"

	"github.com/provenant/provenant/shared/c2pa/c2pafacts"
	"github.com/provenant/provenant/shared/wire"
	"github.com/provenant/provenant/wasm/internal/reply"
)

type readOut struct {
	OK bool `json:"ok"`
	// C2PA is null when the file carries no manifest.
	C2PA *wire.C2PAFacts `json:"c2pa"`
}

// Read returns {"ok":true,"c2pa":wire.C2PAFacts or null}: what verify
// reports of the manifest the file in carries (c2pafacts.Read), its
// credentials judged at the time at. The verifier module's host calls it
// when inspect or analyze says "c2pa_manifest", and puts the answer in the
// facts as the "c2pa" member.
func Read(in []byte, at time.Time) []byte {
	if in == nil {
		return reply.Fail(reply.CodeBadInput, reply.ErrNoInput.Error())
	}
	return reply.OK(readOut{OK: true, C2PA: c2pafacts.Read(in, at)})
}

type memberIn struct {
	C2PA *wire.C2PAFacts `json:"c2pa"`
	// CA is the lookup answer's c2pa_ca: the origin's Provenant CA (PEM).
	CA string `json:"ca"`
}

type memberOut struct {
	OK   bool       `json:"ok"`
	C2PA *wire.C2PA `json:"c2pa"`
}

// Member takes {"c2pa":wire.C2PAFacts,"ca":PEM} (the facts' c2pa and the
// lookup answer's c2pa_ca) and returns {"ok":true,"c2pa":wire.C2PA or
// null}: the verify response's c2pa member with its trust decided
// (c2pafacts.Member), which the host sets as decide's result.c2pa.
func Member(in []byte) []byte {
	var req memberIn
	if err := reply.DecodeStrict(in, &req); err != nil {
		return reply.Fail(reply.CodeBadInput, err.Error())
	}
	return reply.OK(memberOut{OK: true, C2PA: c2pafacts.Member(req.C2PA, req.CA)})
}
