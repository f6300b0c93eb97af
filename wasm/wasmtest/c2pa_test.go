package wasmtest_test

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/provenant/provenant/wasm/wasmtest"
)

// TestVerifierModuleLeavesC2PAOut: the verifier module, built as `make
// wasm` builds it, links none of the packages C2PA verification needs
// (they are the C2PA module's), so its size does not creep back.
func TestVerifierModuleLeavesC2PAOut(t *testing.T) {
	root, err := wasmtest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-deps", "-tags="+wasmtest.VerifierTags, "./wasm")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	deps := strings.Fields(string(out))
	for _, p := range []string{"crypto/x509", "crypto/ecdsa", "crypto/rsa", "encoding/asn1", "github.com/fxamacker/cbor/v2",
		"github.com/veraison/go-cose", "github.com/provenant/provenant/shared/c2pa", "github.com/provenant/provenant/shared/c2pa/c2pafacts"} {
		if slices.Contains(deps, p) {
			t.Errorf("the verifier module links %s", p)
		}
	}
}

// TestC2PAModuleExportsAndImports: the C2PA module exports what its hosts
// call and imports nothing the browser's WASI shim (the verifier module's
// import set) does not provide.
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
	have, err := wasmtest.Imports(ctx, module)
	if err != nil {
		t.Fatal(err)
	}
	got, err := wasmtest.Imports(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range got {
		if !slices.Contains(have, imp) {
			t.Errorf("the C2PA module imports %s, which the shim does not provide", imp)
		}
	}
	if out, err := m.Call(ctx, "c2pa_read", []byte("not a picture")); err != nil || string(out) != `{"ok":true,"c2pa":null}` {
		t.Errorf("c2pa_read of a non-picture: %s (%v)", out, err)
	}
}
