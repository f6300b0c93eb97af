//go:build wasip1

// Command wasm is the verification core as one WebAssembly module (a
// GOOS=wasip1 reactor) that the browser widget loads through a small WASI
// shim and an edge loads in wazero. Its exports take and return JSON in
// linear memory: the host calls alloc, writes its input there, calls an
// export with (ptr, len), reads the packed (ptr<<32 | len) result and
// frees both buffers. docs/widget.md is the contract.
//
// Build: go build -buildmode=c-shared -ldflags='-s -w' -trimpath -o verifier.wasm ./wasm
// (GOOS=wasip1 GOARCH=wasm; `make wasm`). The host must call _initialize
// once after instantiation.
package main

import (
	"unsafe"

	"github.com/provenant/provenant/shared/clock"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/wasm/internal/abi"
)

func main() {}

// module holds the buffers handed to the host: Go's collector does not
// move objects, and keeping them referenced here stops it from collecting
// one the host still reads or writes.
type module struct {
	live map[uint32][]byte
	lim  limits.Limits
	// clock judges C2PA credentials: the host's wall clock, which the
	// runtime provides (a browser's Date.now, wazero's walltime when the
	// host enables it).
	clock clock.Clock
}

// mod is package state on purpose: the exports are plain functions the
// host calls, with nowhere to pass a value through, and the buffer table
// is the one thing they share. An instance is single-threaded, so it
// needs no lock.
var mod = &module{live: map[uint32][]byte{}, lim: limits.Default(), clock: clock.System{}}

// keep registers b as live and returns its address in linear memory.
func (m *module) keep(b []byte) uint32 {
	if len(b) == 0 {
		b = make([]byte, 1)[:0:1]
	}
	p := uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	m.live[p] = b
	return p
}

// input returns the live buffer at ptr, truncated to n bytes, or nil.
func (m *module) input(ptr, n uint32) []byte {
	b, ok := m.live[ptr]
	if !ok || int(n) > cap(b) {
		return nil
	}
	return b[:n]
}

// output keeps b live and returns it packed as ptr<<32 | len.
func (m *module) output(b []byte) uint64 {
	return uint64(m.keep(b))<<32 | uint64(len(b))
}

//go:wasmexport alloc
func alloc(size uint32) uint32 {
	return mod.keep(make([]byte, size))
}

//go:wasmexport free
func free(ptr uint32) {
	delete(mod.live, ptr)
}

//go:wasmexport analyze
func analyze(ptr, n uint32) uint64 {
	return mod.output(abi.Analyze(mod.input(ptr, n), mod.lim, mod.clock.Now()))
}

//go:wasmexport inspect
func inspect(ptr, n uint32) uint64 {
	return mod.output(abi.Inspect(mod.input(ptr, n), mod.lim, mod.clock.Now()))
}

//go:wasmexport sha256
func sha256Sum(ptr, n uint32) uint64 {
	return mod.output(abi.SHA256(mod.input(ptr, n)))
}

//go:wasmexport analyze_pixels
func analyzePixels(ptr, n uint32) uint64 {
	return mod.output(abi.AnalyzePixels(mod.input(ptr, n), mod.lim))
}

//go:wasmexport decide
func decide(ptr, n uint32) uint64 {
	return mod.output(abi.Decide(mod.input(ptr, n), mod.lim))
}

//go:wasmexport verify_proof
func verifyProof(ptr, n uint32) uint64 {
	return mod.output(abi.VerifyProof(mod.input(ptr, n), mod.lim))
}

//go:wasmexport verify_signature
func verifySignature(ptr, n uint32) uint64 {
	return mod.output(abi.VerifySignature(mod.input(ptr, n)))
}

//go:wasmexport present
func presentVerdict(ptr, n uint32) uint64 {
	return mod.output(abi.Present(mod.input(ptr, n)))
}
