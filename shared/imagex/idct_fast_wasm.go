package imagex

// idct8Fast runs idct8's assembly body (idct_wasm.s). The body writes
// only the 8×8 bytes at dst[0], stride apart, checked here, and reads
// and writes tmp, which need not be zeroed: it writes every entry before
// reading it.
func idct8Fast(blk *[64]int32, dst []uint8, stride, cols int, tmp *[64]int32) {
	_ = dst[7*stride+7]
	idct8Asm(blk, &dst[0], uintptr(stride), uintptr(min(max(cols, 0), 8)), tmp)
}

// idct4Fast runs idct4's assembly body (idct_wasm.s), which writes only
// the 4×4 bytes at dst[0], stride apart, checked here, and uses tmp as
// idct8Fast does.
func idct4Fast(blk *[64]int32, dst []uint8, stride, cols int, tmp *[64]int32) {
	_ = dst[3*stride+3]
	idct4Asm(blk, &dst[0], uintptr(stride), uintptr(min(max(cols, 0), 8)), tmp)
}

//go:noescape
func idct4Asm(blk *[64]int32, dst *uint8, stride, cols uintptr, tmp *[64]int32)

//go:noescape
func idct8Asm(blk *[64]int32, dst *uint8, stride, cols uintptr, tmp *[64]int32)
