// Package wasmtest builds the verifier module and runs it in wazero, for
// tests and benchmarks that call the module the way a host does: alloc,
// write, call, read the packed result, free.
package wasmtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// BuildArgs are the go build arguments of the release modules (the
// Makefile's `wasm` target uses the same). The standard library and the
// runtime are compiled without inlining and this module's packages with
// it: that keeps the hot loops as they were and makes the verifier module
// about 6 % smaller as served (docs/widget.md, "Size"). The field
// arithmetic of Ed25519 and P-256, and math/bits, keep their inlining:
// it halves decide's CPU (a record's signature check was most of it) and
// cuts the C2PA module's read by two thirds (its ECDSA check).
var BuildArgs = []string{"build", "-buildmode=c-shared", "-ldflags=-s -w", "-trimpath",
	"-gcflags=all=-l", "-gcflags=github.com/provenant/provenant/...=",
	"-gcflags=filippo.io/edwards25519/field=", "-gcflags=math/bits=",
	"-gcflags=crypto/internal/fips140/nistec/...=", "-gcflags=crypto/internal/fips140/bigmod="}

// VerifierTags are the build tags of the verifier module: noc2pa leaves
// C2PA to the C2PA module; verifyonly leaves out crypto/ed25519 and
// crypto/sha256, whose initialisers link the FIPS module's self-tests
// (shared/digest, shared/record).
const VerifierTags = "noc2pa,verifyonly"

// Build compiles the verifier module (./wasm, tags VerifierTags) of the
// module rooted at root into dir as verifier.wasm and returns its bytes.
// It needs the go command.
func Build(root, dir string) ([]byte, error) {
	return build(root, filepath.Join(dir, "verifier.wasm"), "./wasm", "-tags="+VerifierTags)
}

// BuildC2PA compiles the C2PA module (./wasm/c2pa) into dir as c2pa.wasm
// and returns its bytes.
func BuildC2PA(root, dir string) ([]byte, error) {
	return build(root, filepath.Join(dir, "c2pa.wasm"), "./wasm/c2pa")
}

func build(root, out, pkg string, flags ...string) ([]byte, error) {
	args := append(append(append([]string{}, BuildArgs...), flags...), "-o", out, pkg)
	cmd := exec.Command(goCmd(), args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("wasmtest: go build: %w\n%s", err, b)
	}
	return os.ReadFile(out)
}

// BuildFromCheckout builds the module of the checkout holding the working
// directory (see RepoRoot) in a temporary directory it removes, and
// returns the module's bytes: what a test that needs the module but not
// the file calls once per test binary (sync.OnceValues).
func BuildFromCheckout() ([]byte, error) { return fromCheckout("verifier-wasm", Build) }

// BuildC2PAFromCheckout is BuildFromCheckout for the C2PA module.
func BuildC2PAFromCheckout() ([]byte, error) { return fromCheckout("c2pa-wasm", BuildC2PA) }

// fromCheckout runs build on the checkout's root and a temporary
// directory named after pattern, which it removes.
func fromCheckout(pattern string, build func(root, dir string) ([]byte, error)) ([]byte, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	return build(root, dir)
}

// goCmd is the go command: `go test` puts its own GOROOT/bin first on
// the PATH of the tests it runs, so this is the toolchain testing us.
func goCmd() string { return "go" }

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// RepoRoot returns the directory holding go.mod, searching up from the
// working directory (a test's package directory).
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if fileExists(filepath.Join(dir, "go.mod")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("wasmtest: go.mod not found")
		}
		dir = parent
	}
}

// ReadRepoFile reads the file at rel (slash-separated) below the root of
// the checkout holding the working directory (RepoRoot), wherever below
// it a test runs.
func ReadRepoFile(rel string) ([]byte, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	return os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
}

// Module is one instance of the verifier. It is not safe for concurrent
// use (neither is a WebAssembly instance).
type Module struct {
	rt  wazero.Runtime
	mod api.Module
}

// Load compiles and instantiates the module with WASI (args, environment,
// clock, random) and calls _initialize, as every host must.
func Load(ctx context.Context, wasm []byte) (*Module, error) {
	rt := wazero.NewRuntime(ctx)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		rt.Close(ctx)
		return nil, err
	}
	cfg := wazero.NewModuleConfig().WithStartFunctions().WithSysWalltime().WithSysNanotime().
		WithRandSource(randReader{}).WithStderr(os.Stderr)
	mod, err := rt.InstantiateWithConfig(ctx, wasm, cfg)
	if err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("wasmtest: instantiate: %w", err)
	}
	if _, err := mod.ExportedFunction("_initialize").Call(ctx); err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("wasmtest: _initialize: %w", err)
	}
	return &Module{rt: rt, mod: mod}, nil
}

// Close releases the runtime.
func (m *Module) Close(ctx context.Context) error { return m.rt.Close(ctx) }

// Imports lists the module's imported functions as "module.name".
func Imports(ctx context.Context, wasm []byte) ([]string, error) {
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	cm, err := rt.CompileModule(ctx, wasm)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range cm.ImportedFunctions() {
		mod, name, _ := f.Import()
		out = append(out, mod+"."+name)
	}
	return out, nil
}

// Exports lists the module's exported function names.
func (m *Module) Exports() []string {
	var out []string
	for name := range m.mod.ExportedFunctionDefinitions() {
		out = append(out, name)
	}
	return out
}

// Call copies in into the module (alloc), calls export with (ptr, len),
// copies the result out and frees both buffers.
func (m *Module) Call(ctx context.Context, export string, in []byte) ([]byte, error) {
	fn := m.mod.ExportedFunction(export)
	if fn == nil {
		return nil, fmt.Errorf("wasmtest: no export %q", export)
	}
	res, err := m.mod.ExportedFunction("alloc").Call(ctx, uint64(len(in)))
	if err != nil {
		return nil, fmt.Errorf("wasmtest: alloc: %w", err)
	}
	ptr := uint32(res[0])
	if !m.mod.Memory().Write(ptr, in) {
		return nil, fmt.Errorf("wasmtest: write %d bytes at %#x: out of range", len(in), ptr)
	}
	res, err = fn.Call(ctx, uint64(ptr), uint64(len(in)))
	if err != nil {
		return nil, fmt.Errorf("wasmtest: %s: %w", export, err)
	}
	if _, err := m.mod.ExportedFunction("free").Call(ctx, uint64(ptr)); err != nil {
		return nil, fmt.Errorf("wasmtest: free: %w", err)
	}
	optr, olen := uint32(res[0]>>32), uint32(res[0])
	b, ok := m.mod.Memory().Read(optr, olen)
	if !ok {
		return nil, fmt.Errorf("wasmtest: read %d bytes at %#x: out of range", olen, optr)
	}
	out := append([]byte(nil), b...)
	if _, err := m.mod.ExportedFunction("free").Call(ctx, uint64(optr)); err != nil {
		return nil, fmt.Errorf("wasmtest: free: %w", err)
	}
	return out, nil
}

// MemoryBytes is the size of the module's linear memory.
func (m *Module) MemoryBytes() uint32 { return m.mod.Memory().Size() }
