//go:build !noc2pa

package facts

import (
	"time"

	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/c2pa/c2pafacts"
	"github.com/provenant/provenant/shared/wire"
)

// C2PA reads the C2PA manifest store file carries and returns what verify
// reports of it, nil when the file carries none (shared/c2pa/c2pafacts.Read,
// which says how a store that cannot be read is reported). Trust is not
// decided here (see shared/lookup): only the carried chain is used, its
// certificates' validity judged at the time at (the caller's clock).
func C2PA(file []byte, at time.Time) *wire.C2PAFacts { return c2pafacts.Read(file, at) }

// FromReport is the wire form of a reader's report.
func FromReport(rep *c2pa.Report) *wire.C2PAFacts { return c2pafacts.FromReport(rep) }

// readC2PA is what Analyze reports of the file's manifest.
func readC2PA(file []byte, at time.Time) *wire.C2PAFacts { return c2pafacts.Read(file, at) }
