package phash

// WebAssembly runs low's plan in lee_wasm.s: one call per transform
// instead of the recursion's few hundred. The plan is made by planBlock
// for the length of in and temp, so every step stays inside them and
// every cosine index inside divs.
func leeLowImpl(d *lee, in []float64, k int) {
	ops := d.plan(k)
	if len(ops) > 0 {
		leeOpsAsm(&in[0], &d.temp[0], &ops[0], uintptr(len(ops)/6), &d.divs[0])
	}
}

//go:noescape
func leeOpsAsm(in, temp *float64, ops *int, steps uintptr, divs *float64)
