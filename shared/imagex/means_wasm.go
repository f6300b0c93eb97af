package imagex

// blockMeans is blockMeansGo's assembly body (means_wasm.s). Its caller,
// blockSpec.row, has checked every block against col and wts
// (blockSpec.check) and dst against spec, so the body reads and writes
// without bounds checks; rows and every block's width are positive, so
// no divisor is zero.
//
//go:noescape
func blockMeans(dst []uint8, col []uint64, spec []int, wts []uint64, rows uint64)

// colSumsImpl runs weightedSumsImpl with every weight 1, in runs of at
// most 256 rows (sw.ones holds the weights), instead of a kernel of its
// own: the one kernel serves both area averages.
func colSumsImpl(col []uint64, pix []uint8, stride, rows int, sw *swar) {
	for len(sw.ones) < min(rows, 256) {
		sw.ones = append(sw.ones, 1)
	}
	for {
		n := min(rows, 256)
		weightedSumsImpl(col, pix, stride, sw.ones[:n])
		if rows -= n; rows == 0 {
			return
		}
		pix = pix[n*stride:]
	}
}

// weightedSumsImpl is weightedSumsGo's assembly body (means_wasm.s):
// the lane sums of swarSums, each row's word times its weight. weightedSums
// has checked the rows, and that the weights (at least one) add up to
// at most 256, so no 16-bit lane overflows.
//
//go:noescape
func weightedSumsImpl(col []uint64, pix []uint8, stride int, wts []int)
