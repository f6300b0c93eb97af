#include "textflag.h"

// The body of leeLowImpl for WebAssembly (lee_wasm.go): the plan's steps in
// order (ext.go, leeSums … leeJoinAll), each with the floating-point
// operations of forwardLow in the same order. R0–R15 are i64 locals,
// F16–F31 f64 locals.

#define STEP(r, n) Get r; I64Const $n; I64Add; Set r
#define ADDR(i, k, base, r) Get i; I64Const $k; I64Shl; Get base; I64Add; Set r

// JOIN stores R12 values, v's, at every other float64 from R9, R11
// stepping one float64 a value.
#define JOIN(v) \
	Block; \
		Loop; \
			Get R12; I64Eqz; BrIf $1; \
			Get R9; I32WrapI64; v; F64Store $0; \
			STEP(R9, 16); \
			STEP(R11, 8); \
			Get R12; I64Const $1; I64Sub; Set R12; \
			Br $0; \
		End; \
	End

// func leeOpsAsm(in, temp *float64, ops *int, steps uintptr, divs *float64)
TEXT ·leeOpsAsm(SB), NOSPLIT, $0-40
	MOVD ops+16(FP), R2; MOVD steps+24(FP), R3; MOVD divs+32(FP), R4
	Loop
		// R5 = in, R6 = tmp (the block's first values), R7 = half in bytes.
		MOVD in+0(FP), R5; MOVD temp+8(FP), R6
		I64Load 8(R2); I64Eqz
		I32Eqz
		If
			Get R5; Get R6; Set R5; Set R6
		End
		I64Load 16(R2); I64Const $3; I64Shl; Set R8
		Get R5; Get R8; I64Add; Set R5
		Get R6; Get R8; I64Add; Set R6
		I64Load 24(R2); I64Const $3; I64Shl; Set R7
		I64Load 0(R2); Set R1
		Get R1; I64Const $2; I64LtU
		If
			// Split: R9 walks in up, R10 down from in[n−1], R11 tmp to
			// R12 = tmp+half, R13 tmp+half onwards and R14 the cosines.
			Get R5; Set R9
			Get R7; Get R7; I64Add; I64Const $8; I64Sub; Get R5; I64Add; Set R10
			Get R6; Set R11
			Get R6; Get R7; I64Add; Tee R12; Set R13
			I64Load 32(R2); I64Const $3; I64Shl; Get R4; I64Add; Set R14
			Get R1; I64Eqz
			If
				Loop
					Get R11; I32WrapI64; F64Load 0(R9); F64Load 0(R10); F64Add; F64Store $0
					STEP(R9, 8)
					Get R10; I64Const $8; I64Sub; Set R10
					Get R11; I64Const $8; I64Add; Tee R11; Get R12; I64LtU; BrIf $0
				End
			Else
				Loop
					F64Load 0(R9); Set F16; F64Load 0(R10); Set F17
					Get R11; I32WrapI64; Get F16; Get F17; F64Add; F64Store $0
					Get R13; I32WrapI64; Get F16; Get F17; F64Sub; F64Load 0(R14); F64Div; F64Store $0
					STEP(R9, 8)
					Get R10; I64Const $8; I64Sub; Set R10
					STEP(R13, 8)
					STEP(R14, 8)
					Get R11; I64Const $8; I64Add; Tee R11; Get R12; I64LtU; BrIf $0
				End
			End
		Else
			// Join: even outputs from tmp (a of them), odd ones from the
			// second half's neighbours (b of them).
			Get R5; Set R9
			Get R6; Set R11
			I64Load 32(R2); Set R12
			JOIN(F64Load 0(R11))
			Get R5; I64Const $8; I64Add; Set R9
			Get R6; Get R7; I64Add; Set R11
			I64Load 40(R2); Set R12
			JOIN(F64Load 0(R11); F64Load 8(R11); F64Add)
			Get R1; I64Const $3; I64Eq
			If
				// in[n−1] = tmp[n−1].
				Get R7; Get R7; I64Add; I64Const $8; I64Sub; Set R8
				Get R5; Get R8; I64Add; I32WrapI64
				Get R6; Get R8; I64Add; Set R8; F64Load 0(R8)
				F64Store $0
			End
		End
		STEP(R2, 48)
		Get R3; I64Const $1; I64Sub; Tee R3; I64Eqz; I32Eqz; BrIf $0
	End
	RET
