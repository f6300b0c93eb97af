#include "textflag.h"

// The body of blockMeansGo (downscale.go) for WebAssembly: the same exact
// integer sums and rounded division, in WebAssembly's own loops, without
// the bounds checks blockSpec.check has made unneeded. R0 walks dst, R1
// counts the output pixels down, R3 walks the block table (four 8-byte
// ints per pixel).

// func blockMeans(dst []uint8, col []uint64, spec []int, wts []uint64, rows uint64)
TEXT ·blockMeans(SB), NOSPLIT, $0-104
	MOVD dst_base+0(FP), R0; MOVD dst_len+8(FP), R1; MOVD col_base+24(FP), R2
	MOVD spec_base+48(FP), R3; MOVD wts_base+72(FP), R4; MOVD rows+96(FP), R5
	Get R1; I64Eqz
	If
		RET
	End
	Loop
		// R10 = &col[first], R11 = &wts[offset], R7 = count, R12 = sum.
		I64Load 0(R3); I64Const $3; I64Shl; Get R2; I64Add; Set R10
		I64Load 16(R3); I64Const $3; I64Shl; Get R4; I64Add; Set R11
		I64Load 8(R3); Set R7
		I64Const $0; Set R12
		Loop
			I64Load 0(R11); I64Load 0(R10); I64Mul; Get R12; I64Add; Set R12
			Get R10; I64Const $8; I64Add; Set R10
			Get R11; I64Const $8; I64Add; Set R11
			Get R7; I64Const $1; I64Sub; Tee R7; I64Eqz; I32Eqz; BrIf $0
		End
		// dst = (sum + n/2) / n with n = rows × the block's full width.
		I64Load 24(R3); Get R5; I64Mul; Set R9
		Get R0; I32WrapI64
		Get R12; Get R9; I64Const $1; I64ShrU; I64Add; Get R9; I64DivU
		I64Store8 $0
		Get R0; I64Const $1; I64Add; Set R0
		Get R3; I64Const $32; I64Add; Set R3
		Get R1; I64Const $1; I64Sub; Tee R1; I64Eqz; I32Eqz; BrIf $0
	End
	RET
