//go:build !wasm

package imagex

func acRun(r *bitReader, fast *[1 << lutBits]int32, q, blk *[64]int32, k, last int) (int, bool, int) {
	return acRunGo(r, fast, q, blk, k, last)
}
