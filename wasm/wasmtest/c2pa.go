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
	m, err := load()
	if err != nil {
		return err
	}
	out, err := m.Call(ctx, "c2pa_read", file)
	if err != nil {
		return err
	}
	var r struct {
		OK   bool            `json:"ok"`
		C2PA *wire.C2PAFacts `json:"c2pa"`
	}
	if err := json.Unmarshal(out, &r); err != nil || !r.OK {
		return fmt.Errorf("wasmtest: c2pa_read: %s (%v)", out, err)
	}
	f.C2PA = r.C2PA
	return nil
}

// SetC2PAMember does what every host does after decide for facts that
// carry a manifest: the C2PA module's c2pa_member, with the lookup
// answer's CA, gives the verify response's c2pa member.
func SetC2PAMember(ctx context.Context, load func() (*Module, error), f wire.Facts, caPEM string, v *wire.VerifyResponse) error {
	if f.C2PA == nil {
		return nil
	}
	m, err := load()
	if err != nil {
		return err
	}
	in, err := json.Marshal(map[string]any{"c2pa": f.C2PA, "ca": caPEM})
	if err != nil {
		return err
	}
	out, err := m.Call(ctx, "c2pa_member", in)
	if err != nil {
		return err
	}
	var r struct {
		OK   bool       `json:"ok"`
		C2PA *wire.C2PA `json:"c2pa"`
	}
	if err := json.Unmarshal(out, &r); err != nil || !r.OK {
		return fmt.Errorf("wasmtest: c2pa_member: %s (%v)", out, err)
	}
	v.C2PA = r.C2PA
	return nil
}
