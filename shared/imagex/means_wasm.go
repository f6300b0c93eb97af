package imagex

// blockMeans runs blockMeansGo's assembly body (means_wasm.s). Its
// caller, blockSpec.row, has checked every block against col and wts
// (blockSpec.check) and dst against spec, so the body reads and writes
// without bounds checks; rows and every block's width are positive, so
// no divisor is zero.
func blockMeans(dst []uint8, col []uint64, spec []int, wts []uint64, rows uint64) {
	if len(dst) == 0 {
		return
	}
	blockMeansAsm(&dst[0], uintptr(len(dst)), &col[0], &spec[0], &wts[0], uintptr(rows))
}

//go:noescape
func blockMeansAsm(dst *uint8, n uintptr, col *uint64, spec *int, wts *uint64, rows uintptr)
