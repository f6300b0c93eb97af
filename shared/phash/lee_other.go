//go:build !wasm

package phash

func leeSplitImpl(in, tmp, div []float64, n int) { leeSplitGo(in, tmp, div, n) }

func leeSumImpl(in, tmp []float64, n int) { leeSumGo(in, tmp, n) }
