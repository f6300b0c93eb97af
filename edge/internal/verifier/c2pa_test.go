package verifier

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"reflect"
	"sync"
	"testing"

	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/c2pa/c2patest"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/wasm/wasmtest"
)

// c2paModule builds c2pa.wasm from this checkout once per test binary.
var c2paModule = sync.OnceValues(wasmtest.BuildC2PAFromCheckout)

// TestEnginesAgreeOnC2PA: for a picture carrying a C2PA manifest, the
// module in wazero (with its C2PA module) and the compiled-in core give
// the same facts and the same verdict, the manifest's trust decided
// against the CA the lookup answer names (trusted for the CA that issued
// the signer, not for another); by default Analyze leaves the manifest
// to the lookup (C2PAUnread, no call of the C2PA module) and ReadC2PA
// reads it into the same facts; without a C2PA module the engine refuses
// such a file with CodeNoC2PAModule, and with one still compiling it
// answers ErrNotReady, so that the edge passes it on either way.
func TestEnginesAgreeOnC2PA(t *testing.T) {
	if raceEnabled {
		t.Skip("no concurrency to check under -race; run without it")
	}
	ctx := context.Background()
	cb, err := c2paModule()
	if err != nil {
		t.Fatal(err)
	}
	w := newWasm(t, WasmConfig{C2PAModule: cb, ReadC2PAFirst: true})
	if err := w.WaitC2PA(ctx); err != nil {
		t.Fatal(err)
	}
	lazy := newWasm(t, WasmConfig{C2PAModule: cb})
	if err := lazy.WaitC2PA(ctx); err != nil {
		t.Fatal(err)
	}
	n := Native{Limits: limits.Default()}
	ca := c2patest.NewCA(t, "Provenant")
	file, _, _, err := c2pa.Embed(noise(t, 640, 480), c2pa.Manifest{ClaimGenerator: "Camera/1.0", Format: "image/jpeg",
		Actions: []c2pa.Action{{Action: "c2pa.created"}}}, ca.Signer(t, c2patest.CertOptions{Org: "Example News"}))
	if err != nil {
		t.Fatal(err)
	}
	wa, werr := w.Analyze(ctx, file)
	na, nerr := n.Analyze(ctx, file)
	if werr != nil || nerr != nil {
		t.Fatalf("wasm %v, native %v", werr, nerr)
	}
	if wa.Facts.C2PA == nil || wa.Facts.C2PA.ValidationState != "valid" {
		t.Fatalf("wasm c2pa facts %+v", wa.Facts.C2PA)
	}
	if !reflect.DeepEqual(wa, na) {
		t.Fatalf("facts differ:\nwasm   %+v\nnative %+v", wa.Facts.C2PA, na.Facts.C2PA)
	}
	// By default the manifest is left to the lookup, and read on demand
	// into the same facts; the C2PA module runs only then.
	la, err := lazy.Analyze(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	if !la.C2PAUnread || la.Facts.C2PA != nil || lazy.C2PACalls() != 0 {
		t.Fatalf("default analyze: unread %v, c2pa %+v, %d C2PA module calls; want the manifest left unread", la.C2PAUnread, la.Facts.C2PA, lazy.C2PACalls())
	}
	if la.Facts.C2PA, err = lazy.ReadC2PA(ctx, file); err != nil {
		t.Fatal(err)
	}
	if la.C2PAUnread = false; !reflect.DeepEqual(la, na) || lazy.C2PACalls() != 1 {
		t.Fatalf("read on demand (%d calls):\nwasm   %+v\nnative %+v", lazy.C2PACalls(), la.Facts.C2PA, na.Facts.C2PA)
	}
	if c, err := n.ReadC2PA(ctx, file); err != nil || !reflect.DeepEqual(c, na.Facts.C2PA) {
		t.Fatalf("native read on demand %+v (%v), its analyze %+v", c, err, na.Facts.C2PA)
	}
	if c, err := lazy.ReadC2PA(ctx, noise(t, 320, 240)); c != nil || err != nil {
		t.Fatalf("a file without a manifest read: %+v, %v", c, err)
	}
	other := c2patest.NewCA(t, "Somebody Else")
	for _, tc := range []struct {
		name    string
		ca      []byte
		trusted bool
	}{{"issuing CA", ca.Cert.Raw, true}, {"another CA", other.Cert.Raw, false}, {"no CA", nil, false}} {
		t.Run(tc.name, func(t *testing.T) {
			l := map[string]any{"candidates": []any{}}
			if tc.ca != nil {
				l["c2pa_ca"] = string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tc.ca}))
			}
			lookup, _ := json.Marshal(l)
			wv, werr := w.Decide(ctx, wa, lookup)
			nv, nerr := n.Decide(ctx, na, lookup)
			if werr != nil || nerr != nil {
				t.Fatalf("decide: wasm %v, native %v", werr, nerr)
			}
			if !reflect.DeepEqual(wv, nv) {
				t.Fatalf("verdicts differ:\nwasm   %+v\nnative %+v", wv.C2PA, nv.C2PA)
			}
			if wv.C2PA == nil || wv.C2PA.Trusted != tc.trusted {
				t.Fatalf("c2pa member %+v, want trusted=%v", wv.C2PA, tc.trusted)
			}
		})
	}

	// A C2PA module that never compiles (not WebAssembly): never ready.
	broken := newWasm(t, WasmConfig{C2PAModule: []byte("not wasm"), ReadC2PAFirst: true})
	if err := broken.WaitC2PA(ctx); err == nil {
		t.Fatal("a broken C2PA module compiled")
	}
	if _, err := broken.Analyze(ctx, file); !errors.Is(err, ErrNotReady) {
		t.Fatalf("with no C2PA module ready: %v, want ErrNotReady", err)
	}

	if _, err := newWasm(t, WasmConfig{C2PAModule: []byte("not wasm")}).Analyze(ctx, file); !errors.Is(err, ErrNotReady) {
		t.Fatalf("with no C2PA module ready, manifest left to the lookup: %v, want ErrNotReady", err)
	}

	bare := newWasm(t, WasmConfig{})
	var ae *AnalyzeError
	if _, err := bare.Analyze(ctx, file); !errors.As(err, &ae) || ae.Code != CodeNoC2PAModule {
		t.Fatalf("without a C2PA module: %v, want code %s", err, CodeNoC2PAModule)
	}
	if _, err := bare.Analyze(ctx, noise(t, 320, 240)); err != nil {
		t.Fatalf("a file without a manifest needs no C2PA module: %v", err)
	}
}
