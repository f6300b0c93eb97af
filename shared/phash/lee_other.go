//go:build !wasm

package phash

func leeLowImpl(d *lee, in []float64, k int) { d.forwardLow(in, d.temp, len(in), 0, k) }
