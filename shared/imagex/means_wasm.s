#include "textflag.h"

// The area average's two kernels for WebAssembly (downscale.go,
// reduced.go): the same exact integer sums as their Go bodies, in
// WebAssembly's own loops, without the bounds checks their Go callers'
// checks have made unneeded.

// blockMeansGo's body. R0 walks dst, R1 counts the output pixels down, R3
// walks the block table (four 8-byte ints per pixel).
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

// ADDLANE adds the 16-bit lane of v at bit sh to the uint64 at byte off
// of R8.
#define ADDLANE(off, v, sh) Get R8; I32WrapI64; I64Load off(R8); Get v; I64Const $sh; I64ShrU; I64Const $0xFFFF; I64And; I64Add; I64Store $off

// COUNT subtracts 1 from r and goes round the enclosing Loop again while
// r is not 0.
#define COUNT(r) Get r; I64Const $1; I64Sub; Tee r; I64Eqz; I32Eqz; BrIf $0

// weightedSumsGo's body: for each group of eight columns (R7 its pixels,
// R8 its sums, R9 counting the groups down) the lane sums of its even and
// odd bytes (R12, R13) over all the rows, each row's word times its
// weight; then the last len%8 columns a byte at a time. R6 walks the
// weights, R11 counts the rows down.
// func weightedSumsImpl(col []uint64, pix []uint8, stride int, wts []int)
TEXT ·weightedSumsImpl(SB), NOSPLIT, $0-80
	MOVD col_base+0(FP), R0; MOVD col_len+8(FP), R1; MOVD pix_base+24(FP), R2
	MOVD stride+48(FP), R3; MOVD wts_base+56(FP), R4; MOVD wts_len+64(FP), R5
	I64Const $0x00FF00FF00FF00FF; Set R15
	Get R2; Set R7; Get R0; Set R8
	Get R1; I64Const $3; I64ShrU; Set R9
	Block
		Get R9; I64Eqz; BrIf $0
		Loop
			Get R7; Set R10; Get R4; Set R6; Get R5; Set R11
			I64Const $0; Set R12; I64Const $0; Set R13
			Loop
				I64Load 0(R10); Set R14
				Get R14; Get R15; I64And; I64Load 0(R6); I64Mul; Get R12; I64Add; Set R12
				Get R14; I64Const $8; I64ShrU; Get R15; I64And; I64Load 0(R6); I64Mul; Get R13; I64Add; Set R13
				Get R10; Get R3; I64Add; Set R10
				Get R6; I64Const $8; I64Add; Set R6
				COUNT(R11)
			End
			ADDLANE(0, R12, 0); ADDLANE(8, R13, 0); ADDLANE(16, R12, 16); ADDLANE(24, R13, 16)
			ADDLANE(32, R12, 32); ADDLANE(40, R13, 32); ADDLANE(48, R12, 48); ADDLANE(56, R13, 48)
			Get R7; I64Const $8; I64Add; Set R7
			Get R8; I64Const $64; I64Add; Set R8
			COUNT(R9)
		End
	End
	// The last len%8 columns, a byte at a time.
	Get R1; I64Const $7; I64And; Set R9
	Block
		Get R9; I64Eqz; BrIf $0
		Loop
			Get R7; Set R10; Get R4; Set R6; Get R5; Set R11; I64Const $0; Set R12
			Loop
				I64Load8U 0(R10); I64Load 0(R6); I64Mul; Get R12; I64Add; Set R12
				Get R10; Get R3; I64Add; Set R10
				Get R6; I64Const $8; I64Add; Set R6
				COUNT(R11)
			End
			Get R8; I32WrapI64; I64Load 0(R8); Get R12; I64Add; I64Store $0
			Get R7; I64Const $1; I64Add; Set R7
			Get R8; I64Const $8; I64Add; Set R8
			COUNT(R9)
		End
	End
	RET
