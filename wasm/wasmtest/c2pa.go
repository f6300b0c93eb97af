package wasmtest

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/provenant/provenant/shared/wire"
)

// AddC2PA does what every host of the verifier module does after analyze
// (or inspect) said "c2pa_manifest": it reads the file's manifest with the
// C2PA module's c2pa_read and sets the facts' c2pa. c2pa is loaded by
// load only then (nil is fine for a file that carries none).
func AddC2PA(ctx context.Context, manifest bool, load func() (*Module, error), file []byte, f *wire.Facts) error {
	if !manifest {
		return nil
	}
	return callC2PA(ctx, load, "c2pa_read", file, &f.C2PA)
}

// SetC2PAMember does what every host does after decide for facts that
// carry a manifest: the C2PA module's c2pa_member, with the lookup
// answer's CA, gives the verify response's c2pa member.
func SetC2PAMember(ctx context.Context, load func() (*Module, error), f wire.Facts, caPEM string, v *wire.VerifyResponse) error {
	if f.C2PA == nil {
		return nil
	}
	in, err := json.Marshal(map[string]any{"c2pa": f.C2PA, "ca": caPEM})
	if err != nil {
		return err
	}
	return callC2PA(ctx, load, "c2pa_member", in, &v.C2PA)
}

// callC2PA loads the C2PA module, calls its export with in and sets dst
// to the answer's c2pa member (nil for null); on an error or a failure it
// leaves dst as it is.
func callC2PA[T any](ctx context.Context, load func() (*Module, error), export string, in []byte, dst **T) error {
	m, err := load()
	if err != nil {
		return err
	}
	out, err := m.Call(ctx, export, in)
	if err != nil {
		return err
	}
	var r struct {
		OK   bool `json:"ok"`
		C2PA *T   `json:"c2pa"`
	}
	if err := json.Unmarshal(out, &r); err != nil || !r.OK {
		return fmt.Errorf("wasmtest: %s: %s (%v)", export, out, err)
	}
	*dst = r.C2PA
	return nil
}
