//go:build noc2pa

package facts

import (
	"time"

	"github.com/provenant/provenant/shared/wire"
)

// readC2PA, in a build without C2PA (the browser's verifier module, built
// with the tag noc2pa), reads nothing: that module's host gets the
// manifest's facts from the C2PA module (wasm/c2pa) and adds them, so
// that the module carries no CBOR, COSE or X.509 (docs/widget.md).
func readC2PA([]byte, time.Time) *wire.C2PAFacts { return nil }
