//go:build !wasm

package imagex

// blockMeans is blockMeansGo.
func blockMeans(dst []uint8, col []uint64, spec []int, wts []uint64, rows uint64) {
	blockMeansGo(dst, col, spec, wts, rows)
}

// colSumsImpl is swarSums.
func colSumsImpl(col []uint64, pix []uint8, stride, rows int, sw *swar) {
	swarSums(col, pix, stride, rows, sw)
}

// weightedSumsImpl is weightedSumsGo.
func weightedSumsImpl(col []uint64, pix []uint8, stride int, wts []int) {
	weightedSumsGo(col, pix, stride, wts)
}
