//go:build noc2pa

package lookup

import "github.com/provenant/provenant/shared/wire"

// c2paMember, in a build without C2PA (the browser's verifier module,
// built with the tag noc2pa), leaves the member out: deciding its trust
// takes X.509, which that module does not carry, so its host asks the
// C2PA module (wasm/c2pa, c2pafacts.Member) and sets the member itself.
func c2paMember(*wire.C2PAFacts, string) *wire.C2PA { return nil }
