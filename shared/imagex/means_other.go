//go:build !wasm

package imagex

// blockMeans is blockMeansGo.
func blockMeans(dst []uint8, col []uint64, spec []int, wts []uint64, rows uint64) {
	blockMeansGo(dst, col, spec, wts, rows)
}
