//go:build !noc2pa

package lookup

import (
	"github.com/provenant/provenant/shared/c2pa/c2pafacts"
	"github.com/provenant/provenant/shared/wire"
)

// c2paMember is the verify response's c2pa member for the manifest f the
// file carries, with trust decided against the origin's Provenant CA
// (c2pafacts.Member).
func c2paMember(f *wire.C2PAFacts, caPEM string) *wire.C2PA { return c2pafacts.Member(f, caPEM) }
