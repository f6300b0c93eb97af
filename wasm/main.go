//go:build wasip1

// Command wasm is the verification core as one WebAssembly module (a
// GOOS=wasip1 reactor) that the browser widget loads through a small WASI
// shim and an edge loads in wazero. Its exports take and return JSON in
// linear memory: the host calls alloc, writes its input there, calls an
// export with (ptr, len), reads the packed (ptr<<32 | len) result and
// frees both buffers. docs/widget.md is the contract.
//
// Build: go build -tags noc2pa,verifyonly -buildmode=c-shared -ldflags='-s -w' -trimpath
// -gcflags=all=-l -gcflags=github.com/provenant/provenant/...=
// -gcflags=filippo.io/edwards25519/field= -gcflags=math/bits=
// -gcflags=crypto/internal/fips140/nistec/...= -gcflags=crypto/internal/fips140/bigmod= -o verifier.wasm ./wasm
// (GOOS=wasip1 GOARCH=wasm; `make wasm`). The tag noc2pa leaves C2PA out
// of the module (shared/facts, shared/lookup): the host gets a manifest's
// facts and trust from the C2PA module (./wasm/c2pa) when analyze or
// inspect says "c2pa_manifest". The tag verifyonly builds shared/digest
// and shared/record without crypto/sha256 and crypto/ed25519 (same
// digests, same signature verdicts; the module cannot sign), 46 KB less
// brotli. The host must call _initialize
// once after instantiation.
package main

import (
	"github.com/provenant/provenant/shared/clock"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/wasm/internal/abi"
	"github.com/provenant/provenant/wasm/internal/linear"
)

func main() {}

// mod is package state on purpose: the exports are plain functions the
// host calls, with nowhere to pass a value through.
var mod = struct {
	buf *linear.Table
	lim limits.Limits
	// clock is the host's wall clock (a browser's Date.now, wazero's
	// walltime when the host enables it). It is the concrete type, not a
	// clock.Clock: a time.Time method reached through an interface would
	// make every time.Time method reachable, linking time.Time.String and
	// with it Go's whole layout formatter (docs/widget.md, "Size").
	clock clock.System
}{buf: linear.New(), lim: limits.Default(), clock: clock.System{}}

// in is the input the host wrote at ptr (n bytes, from alloc).
func in(ptr, n uint32) []byte { return mod.buf.Input(ptr, n) }

// out hands an export's output back to the host as its address and
// length, so that each export is one line.
func out(b []byte) uint64 { return mod.buf.Output(b) }

//go:wasmexport alloc
func alloc(size uint32) uint32 { return mod.buf.Alloc(size) }

//go:wasmexport free
func free(ptr uint32) { mod.buf.Free(ptr) }

//go:wasmexport analyze
func analyze(ptr, n uint32) uint64 { return out(abi.Analyze(in(ptr, n), mod.lim, mod.clock.Now())) }

//go:wasmexport analyze_hashed
func analyzeHashed(ptr, n uint32) uint64 {
	return out(abi.AnalyzeHashed(in(ptr, n), mod.lim, mod.clock.Now()))
}

//go:wasmexport analyze_decoded
func analyzeDecoded(ptr, n uint32) uint64 { return out(abi.AnalyzeDecoded(in(ptr, n), mod.lim)) }

//go:wasmexport inspect
func inspect(ptr, n uint32) uint64 { return out(abi.Inspect(in(ptr, n), mod.lim)) }

//go:wasmexport sha256
func sha256Sum(ptr, n uint32) uint64 { return out(abi.SHA256(in(ptr, n))) }

//go:wasmexport analyze_pixels
func analyzePixels(ptr, n uint32) uint64 { return out(abi.AnalyzePixels(in(ptr, n), mod.lim)) }

//go:wasmexport decide
func decide(ptr, n uint32) uint64 { return out(abi.Decide(in(ptr, n), mod.lim)) }

//go:wasmexport verify_proof
func verifyProof(ptr, n uint32) uint64 { return out(abi.VerifyProof(in(ptr, n), mod.lim)) }

//go:wasmexport verify_signature
func verifySignature(ptr, n uint32) uint64 { return out(abi.VerifySignature(in(ptr, n))) }

//go:wasmexport present
func presentVerdict(ptr, n uint32) uint64 { return out(abi.Present(in(ptr, n))) }
