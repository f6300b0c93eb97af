package wasmtest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/c2pa/c2pafacts"
	"github.com/provenant/provenant/shared/c2pa/c2patest"
	"github.com/provenant/provenant/wasm/wasmtest"
)

// TestVerifierModuleLeavesC2PAOut: the verifier module, built as `make
// wasm` builds it, links none of the packages C2PA verification needs
// (they are the C2PA module's), so its size does not creep back.
func TestVerifierModuleLeavesC2PAOut(t *testing.T) {
	deps := moduleDeps(t, "./wasm", wasmtest.VerifierTags)
	for _, p := range []string{"crypto/x509", "crypto/ecdsa", "crypto/rsa", "encoding/asn1", "github.com/fxamacker/cbor/v2",
		"github.com/veraison/go-cose", "github.com/provenant/provenant/shared/c2pa", "github.com/provenant/provenant/shared/c2pa/c2pafacts"} {
		if slices.Contains(deps, p) {
			t.Errorf("the verifier module links %s", p)
		}
	}
}

// TestC2PAModuleExportsAndImports: the C2PA module exports what its hosts
// call and imports nothing the browser's WASI shim (shimImports) does not
// provide.
func TestC2PAModuleExportsAndImports(t *testing.T) {
	b, err := wasmtest.BuildC2PAFromCheckout()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	m, err := wasmtest.Load(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(ctx)
	for _, want := range []string{"_initialize", "alloc", "free", "c2pa_read", "c2pa_member"} {
		if !slices.Contains(m.Exports(), want) {
			t.Errorf("exports %v lack %q", m.Exports(), want)
		}
	}
	got, err := wasmtest.Imports(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range got {
		mod, name, _ := strings.Cut(imp, ".")
		if mod != "wasi_snapshot_preview1" || !slices.Contains(shimImports, name) {
			t.Errorf("the C2PA module imports %s, which the shim does not provide", imp)
		}
	}
	if out, err := m.Call(ctx, "c2pa_read", []byte("not a picture")); err != nil || string(out) != `{"ok":true,"c2pa":null}` {
		t.Errorf("c2pa_read of a non-picture: %s (%v)", out, err)
	}
}

// BenchmarkC2PARead times what a manifest costs a host that reads it
// itself: the C2PA module's c2pa_read (extract, parse, the hard binding's
// hash over the file, the signature) and c2pa_member (the certificate
// against the CA) in wazero, and the same code natively
// (c2pafacts.Read and Member), on a 1 and a 4 MP JPEG carrying a
// manifest. The lookup's c2pa member spares exactly this for the
// service's own signed output (docs/widget.md).
//
//	go test -run '^$' -bench C2PARead -count 3 ./wasm/wasmtest
func BenchmarkC2PARead(b *testing.B) {
	ctx := context.Background()
	mb, err := wasmtest.BuildC2PAFromCheckout()
	if err != nil {
		b.Fatal(err)
	}
	m, err := wasmtest.Load(ctx, mb)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close(ctx)
	ca := c2patest.NewCA(b, "Provenant C2PA CA")
	signer := ca.Signer(b, c2patest.CertOptions{Org: "Example News"})
	caPEM := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Cert.Raw}))
	for _, mp := range []float64{1, 4} {
		file, _, _, err := c2pa.Embed(benchJPEG(b, mp), c2pa.Manifest{ClaimGenerator: "Provenant/1.0", Format: "image/jpeg"}, signer)
		if err != nil {
			b.Fatal(err)
		}
		f := c2pafacts.Read(file, time.Now())
		if f == nil || f.ValidationState != "valid" {
			b.Fatalf("manifest facts %+v", f)
		}
		member, err := json.Marshal(map[string]any{"c2pa": f, "ca": caPEM})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%.0fMP/native", mp), func(b *testing.B) {
			for b.Loop() {
				if m := c2pafacts.Member(c2pafacts.Read(file, time.Now()), caPEM); m == nil || !m.Trusted {
					b.Fatalf("member %+v", m)
				}
			}
		})
		b.Run(fmt.Sprintf("%.0fMP/wazero", mp), func(b *testing.B) {
			for b.Loop() {
				out, err := m.Call(ctx, "c2pa_read", file)
				if err != nil || !bytes.Contains(out, []byte(`"validation_state":"valid"`)) {
					b.Fatalf("c2pa_read: %.300s %v", out, err)
				}
				out, err = m.Call(ctx, "c2pa_member", member)
				if err != nil || !bytes.Contains(out, []byte(`"trusted":true`)) {
					b.Fatalf("c2pa_member: %.300s %v", out, err)
				}
			}
		})
	}
}
