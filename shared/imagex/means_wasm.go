package imagex

// blockMeans is blockMeansGo's assembly body (means_wasm.s). Its caller,
// blockSpec.row, has checked every block against col and wts
// (blockSpec.check) and dst against spec, so the body reads and writes
// without bounds checks; rows and every block's width are positive, so
// no divisor is zero.
//
//go:noescape
func blockMeans(dst []uint8, col []uint64, spec []int, wts []uint64, rows uint64)

// colSumsImpl is swarSums's assembly body (means_wasm.s), which keeps the
// lane sums of each group of eight columns in locals down all the rows
// instead of in memory; colSums has checked the rows it reads. The
// portable body's scratch is not used.
//
//go:noescape
func colSumsImpl(col []uint64, pix []uint8, stride, rows int, _ *swar)

// weightedSumsImpl is weightedSumsGo's assembly body (means_wasm.s):
// colSumsImpl's lane sums, each row's word times its weight. weightedSums
// has checked the rows, and that the weights (at least one) add up to
// at most 256, so no 16-bit lane overflows.
//
//go:noescape
func weightedSumsImpl(col []uint64, pix []uint8, stride int, wts []int)
