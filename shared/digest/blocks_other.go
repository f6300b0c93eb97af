//go:build !wasm

package digest

func blocks256Impl(h *[8]uint32, p []byte) { blocks256Go(h, p) }
