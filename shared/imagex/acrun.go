package imagex

// The fast path of the AC coefficient loop (T.81 F.2.2.2) as a leaf
// kernel: WebAssembly runs an assembly body (acrun_wasm.s) whose loop is
// WebAssembly's own, so a coefficient costs no trip through the
// dispatch loop Go's WebAssembly code sends every jump through; other
// architectures run acRunGo. Both read the same bits, write the same
// coefficients and stop at the same place (TestACRunMatchesGo and the
// decoder's goldens, run natively and in wazero).

// acRun's outcomes.
const (
	acDone   = iota // k reached 64
	acSlow          // the next code has no fast entry: decode it the long way
	acPast63        // a run went past coefficient 63
)

// acRunGo decodes AC coefficients from k on while the next code has a
// fast entry in fast: each one's run is skipped, and, when its position is
// at most last, its value times q[k] is stored at blk[zigzag[k]] and
// hasAC set. Before each code it tops r up to 32 bits, as the decoder's
// slow path needs, so on acSlow r holds at least 32 bits. It returns the
// next position and the outcome.
func acRunGo(r *bitReader, fast *[1 << lutBits]int32, q, blk *[64]int32, k, last int) (int, bool, int) {
	hasAC := false
	for k < 64 {
		if r.n < 32 {
			r.fill()
		}
		peek := (r.acc >> (r.n - lutBits)) & (1<<lutBits - 1)
		f := fast[peek]
		if f == 0 {
			return k, hasAC, acSlow
		}
		r.n -= uint(f & 0xFF)
		k += int(f >> 8 & 0xFF)
		if k > 63 {
			return k, hasAC, acPast63
		}
		if k <= last {
			blk[zigzag[k]] = (f >> 16) * q[k]
			hasAC = true
		}
		k++
	}
	return k, hasAC, acDone
}
