//go:build wasip1

// Command c2pa is the C2PA module: the reading of a file's C2PA manifest
// and the trust decision over it, as a WebAssembly module (a GOOS=wasip1
// reactor) apart from the verifier module (wasm/), which leaves this work
// to it so that its own download carries no CBOR, COSE or X.509. A host
// loads it only for a file whose inspect or analyze says
// "c2pa_manifest". The calling convention is the verifier module's (alloc,
// write, call with (ptr, len), read the packed ptr<<32 | len, free);
// docs/widget.md is the contract.
//
// Build: go build -buildmode=c-shared -ldflags='-s -w' -trimpath
// -gcflags=all=-l -gcflags=github.com/provenant/provenant/...=
// -gcflags=filippo.io/edwards25519/field= -gcflags=math/bits=
// -gcflags=crypto/internal/fips140/nistec/...= -gcflags=crypto/internal/fips140/bigmod= -o c2pa.wasm ./wasm/c2pa
// (GOOS=wasip1 GOARCH=wasm; `make wasm`). The host must call _initialize
// once after instantiation.
package main

import (
	"github.com/provenant/provenant/shared/clock"
	"github.com/provenant/provenant/wasm/internal/c2paabi"
	"github.com/provenant/provenant/wasm/internal/linear"
)

func main() {}

// buffers and clk are package state on purpose: the exports are plain
// functions the host calls, with nowhere to pass a value through.
var (
	buffers = linear.New()
	// clk judges C2PA credentials: the host's wall clock.
	clk clock.Clock = clock.System{}
)

//go:wasmexport alloc
func alloc(size uint32) uint32 { return buffers.Alloc(size) }

//go:wasmexport free
func free(ptr uint32) { buffers.Free(ptr) }

//go:wasmexport c2pa_read
func c2paRead(ptr, n uint32) uint64 {
	return buffers.Output(c2paabi.Read(buffers.Input(ptr, n), clk.Now()))
}

//go:wasmexport c2pa_member
func c2paMember(ptr, n uint32) uint64 {
	return buffers.Output(c2paabi.Member(buffers.Input(ptr, n)))
}
