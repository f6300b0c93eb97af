//go:build !wasm

package imagex

// idct8Fast is idct8 (tmp is scratch for the WebAssembly body).
func idct8Fast(blk *[64]int32, dst []uint8, stride, cols int, _ *[64]int32) {
	idct8(blk, dst, stride, cols)
}

// idct4Fast is idct4.
func idct4Fast(blk *[64]int32, dst []uint8, stride, cols int, _ *[64]int32) {
	idct4(blk, dst, stride, cols)
}
