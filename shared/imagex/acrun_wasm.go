package imagex

// acRun runs the assembly body, which tops the bit reader up itself when
// the next eight bytes hold no 0xFF (fill's fast path) and hands back to
// fill otherwise (a stuffed byte, a marker, the end of the data).
func acRun(r *bitReader, fast *[1 << lutBits]int32, q, blk *[64]int32, k, last int) (int, bool, int) {
	if k < 1 || k > 63 {
		return acRunGo(r, fast, q, blk, k, last)
	}
	hasAC := false
	for {
		out := acRunAsm(r, fast, q, blk, k, last, &zigzag)
		k = int(out & 0xFFFF)
		hasAC = hasAC || out>>16&1 != 0
		st := int(out >> 32)
		if st != acNeedFill {
			return k, hasAC, st
		}
		r.fill()
	}
}

// acNeedFill is the assembly body's fourth outcome: fill's slow path is
// needed before the next code.
const acNeedFill = 3

// acRunAsm returns k | hasAC<<16 | outcome<<32. k is in 1..63 on entry.
//
//go:noescape
func acRunAsm(r *bitReader, fast *[1 << lutBits]int32, q, blk *[64]int32, k, last int, zz *[64]uint8) uint64
