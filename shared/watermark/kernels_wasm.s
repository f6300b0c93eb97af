#include "textflag.h"

// The bodies of the kernels in kernels.go for WebAssembly. Registers R0–R15
// are i64 locals and F16–F31 f64 locals; loops are WebAssembly's own Loop
// and BrIf, so an iteration costs no trip through Go's dispatch loop.
// Every complex product p×q is computed as Go computes it:
// real = pr*qr - pi*qi, imag = pr*qi + pi*qr, with no fused multiply-add.

// MULRE and MULIM push the real and the imaginary part of (pr+i·pi)(qr+i·qi).
#define MULRE(pr, pi, qr, qi) Get pr; Get qr; F64Mul; Get pi; Get qi; F64Mul; F64Sub
#define MULIM(pr, pi, qr, qi) Get pr; Get qi; F64Mul; Get pi; Get qr; F64Mul; F64Add

// LOADC loads the complex128 at the address in i64 register r into fr, fi.
#define LOADC(r, fr, fi) F64Load 0(r); Set fr; F64Load 8(r); Set fi

// STOREOP stores (ar op br, ai op bi) at the address in i64 register r.
#define STOREOP(r, ar, ai, br, bi, op) \
	Get r; I32WrapI64; Get ar; Get br; op; F64Store $0; \
	Get r; I32WrapI64; Get ai; Get bi; op; F64Store $8

// ADDTO sets r = r + s (i64).
#define ADDTO(r, s) Get r; Get s; I64Add; Set r

// func butterflies4Asm(p *complex128, d, m, groups, gstride uintptr, w1, w2, w3 *complex128, s1, s2, s3 uintptr)
// d, m, gstride and the strides s1–s3 are in bytes.
TEXT ·butterflies4Asm(SB), NOSPLIT, $0-88
	MOVD p+0(FP), R0
	MOVD d+8(FP), R1
	MOVD m+16(FP), R2
	MOVD groups+24(FP), R3
	MOVD gstride+32(FP), R4
	MOVD s1+64(FP), R5
	MOVD s2+72(FP), R6
	MOVD s3+80(FP), R7
	Get R1
	Get R1
	I64Add
	Set R8 // 2d
	Get R8
	Get R1
	I64Add
	Set R9 // 3d
	Loop
		Get R0
		Set R10 // i
		Get R0
		Get R2
		I64Add
		Set R11 // end of the group's run
		MOVD w1+40(FP), R12
		MOVD w2+48(FP), R13
		MOVD w3+56(FP), R14
		Loop
			LOADC(R12, F16, F17) // w1
			// b = x[i+d] * w1 -> F18, F19
			Get R10
			Get R1
			I64Add
			Set R15
			LOADC(R15, F26, F27)
			MULRE(F26, F27, F16, F17)
			Set F18
			MULIM(F26, F27, F16, F17)
			Set F19
			// d = x[i+3d] * w1 -> F20, F21
			Get R10
			Get R9
			I64Add
			Set R15
			LOADC(R15, F26, F27)
			MULRE(F26, F27, F16, F17)
			Set F20
			MULIM(F26, F27, F16, F17)
			Set F21
			// a -> F22, F23; c = x[i+2d] -> F24, F25 (R15 keeps i+2d)
			LOADC(R10, F22, F23)
			Get R10
			Get R8
			I64Add
			Set R15
			LOADC(R15, F24, F25)
			// a, b = a+b, a-b: a -> F26, F27, b -> F18, F19
			Get F22; Get F18; F64Add; Set F26
			Get F22; Get F18; F64Sub; Set F18
			Get F23; Get F19; F64Add; Set F27
			Get F23; Get F19; F64Sub; Set F19
			// c, d = c+d, c-d: c -> F22, F23, d -> F20, F21
			Get F24; Get F20; F64Add; Set F22
			Get F24; Get F20; F64Sub; Set F20
			Get F25; Get F21; F64Add; Set F23
			Get F25; Get F21; F64Sub; Set F21
			// c *= w2 -> F24, F25; d *= w3 -> F22, F23
			LOADC(R13, F28, F29)
			LOADC(R14, F30, F31)
			MULRE(F22, F23, F28, F29)
			Set F24
			MULIM(F22, F23, F28, F29)
			Set F25
			MULRE(F20, F21, F30, F31)
			Set F22
			MULIM(F20, F21, F30, F31)
			Set F23
			// x[i], x[i+2d] = a+c, a-c
			STOREOP(R10, F26, F27, F24, F25, F64Add)
			STOREOP(R15, F26, F27, F24, F25, F64Sub)
			// x[i+d], x[i+3d] = b+d, b-d
			Get R10
			Get R1
			I64Add
			Set R15
			STOREOP(R15, F18, F19, F22, F23, F64Add)
			Get R10
			Get R9
			I64Add
			Set R15
			STOREOP(R15, F18, F19, F22, F23, F64Sub)
			ADDTO(R12, R5)
			ADDTO(R13, R6)
			ADDTO(R14, R7)
			Get R10
			I64Const $16
			I64Add
			Tee R10
			Get R11
			I64LtU
			BrIf $0
		End
		ADDTO(R0, R4)
		Get R3
		I64Const $1
		I64Sub
		Tee R3
		I64Const $0
		I64Ne
		BrIf $0
	End
	RET

// func butterflies4OneAsm(p *complex128, d, m, groups, gstride uintptr, w3r, w3i float64)
// d, m and gstride are in bytes.
TEXT ·butterflies4OneAsm(SB), NOSPLIT, $0-56
	MOVD p+0(FP), R0
	MOVD d+8(FP), R1
	MOVD m+16(FP), R2
	MOVD groups+24(FP), R3
	MOVD gstride+32(FP), R4
	F64Load w3r+40(FP)
	Set F30
	F64Load w3i+48(FP)
	Set F31
	Get R1
	Get R1
	I64Add
	Set R8 // 2d
	Get R8
	Get R1
	I64Add
	Set R9 // 3d
	Loop
		Get R0
		Set R10 // i
		Get R0
		Get R2
		I64Add
		Set R11 // end of the group's run
		Loop
			LOADC(R10, F16, F17) // a
			Get R10
			Get R1
			I64Add
			Set R12
			LOADC(R12, F18, F19) // b
			Get R10
			Get R8
			I64Add
			Set R13
			LOADC(R13, F20, F21) // c
			Get R10
			Get R9
			I64Add
			Set R14
			LOADC(R14, F22, F23) // d
			// a, b = a+b, a-b: a -> F24, F25, b -> F18, F19
			Get F16; Get F18; F64Add; Set F24
			Get F16; Get F18; F64Sub; Set F18
			Get F17; Get F19; F64Add; Set F25
			Get F17; Get F19; F64Sub; Set F19
			// c, d = c+d, c-d: c -> F26, F27, d -> F22, F23
			Get F20; Get F22; F64Add; Set F26
			Get F20; Get F22; F64Sub; Set F22
			Get F21; Get F23; F64Add; Set F27
			Get F21; Get F23; F64Sub; Set F23
			// d *= w3 -> F20, F21
			MULRE(F22, F23, F30, F31)
			Set F20
			MULIM(F22, F23, F30, F31)
			Set F21
			STOREOP(R10, F24, F25, F26, F27, F64Add)
			STOREOP(R13, F24, F25, F26, F27, F64Sub)
			STOREOP(R12, F18, F19, F20, F21, F64Add)
			STOREOP(R14, F18, F19, F20, F21, F64Sub)
			Get R10
			I64Const $16
			I64Add
			Tee R10
			Get R11
			I64LtU
			BrIf $0
		End
		ADDTO(R0, R4)
		Get R3
		I64Const $1
		I64Sub
		Tee R3
		I64Const $0
		I64Ne
		BrIf $0
	End
	RET

// func butterflies2Asm(p *complex128, d, m, groups, gstride uintptr, w *complex128, s uintptr)
// d, m, gstride and s are in bytes.
TEXT ·butterflies2Asm(SB), NOSPLIT, $0-56
	MOVD p+0(FP), R0
	MOVD d+8(FP), R1
	MOVD m+16(FP), R2
	MOVD groups+24(FP), R3
	MOVD gstride+32(FP), R4
	MOVD s+48(FP), R5
	Loop
		Get R0
		Set R10 // i
		Get R0
		Get R2
		I64Add
		Set R11 // end of the group's run
		MOVD w+40(FP), R12
		Loop
			LOADC(R12, F16, F17) // w
			Get R10
			Get R1
			I64Add
			Set R15
			LOADC(R15, F18, F19) // x[i+d]
			MULRE(F18, F19, F16, F17)
			Set F20
			MULIM(F18, F19, F16, F17)
			Set F21
			LOADC(R10, F22, F23) // a
			STOREOP(R10, F22, F23, F20, F21, F64Add)
			STOREOP(R15, F22, F23, F20, F21, F64Sub)
			ADDTO(R12, R5)
			Get R10
			I64Const $16
			I64Add
			Tee R10
			Get R11
			I64LtU
			BrIf $0
		End
		ADDTO(R0, R4)
		Get R3
		I64Const $1
		I64Sub
		Tee R3
		I64Const $0
		I64Ne
		BrIf $0
	End
	RET

// func sumDiffAsm(p *complex128, d, m, groups, gstride uintptr)
// d, m and gstride are in bytes.
TEXT ·sumDiffAsm(SB), NOSPLIT, $0-40
	MOVD p+0(FP), R0
	MOVD d+8(FP), R1
	MOVD m+16(FP), R2
	MOVD groups+24(FP), R3
	MOVD gstride+32(FP), R4
	Loop
		Get R0
		Set R10 // i
		Get R0
		Get R2
		I64Add
		Set R11 // end of the group's run
		Loop
			Get R10
			Get R1
			I64Add
			Set R15
			LOADC(R10, F16, F17) // a
			LOADC(R15, F18, F19) // b
			STOREOP(R10, F16, F17, F18, F19, F64Add)
			STOREOP(R15, F16, F17, F18, F19, F64Sub)
			Get R10
			I64Const $16
			I64Add
			Tee R10
			Get R11
			I64LtU
			BrIf $0
		End
		ADDTO(R0, R4)
		Get R3
		I64Const $1
		I64Sub
		Tee R3
		I64Const $0
		I64Ne
		BrIf $0
	End
	RET

// SWAP8 swaps the 8 bytes at byte off of the addresses in R12 and R13
// (as integers, so every bit is kept), through R14 and R15.
#define SWAP8(off) \
	Get R12; I32WrapI64; I64Load $off; Set R14; \
	Get R13; I32WrapI64; I64Load $off; Set R15; \
	Get R12; I32WrapI64; Get R15; I64Store $off; \
	Get R13; I32WrapI64; Get R14; I64Store $off

// REVI sets R11 = rev[R10] & R8, with rev's address in R3.
#define REVI \
	Get R10; I64Const $3; I64Shl; Get R3; I64Add; I32WrapI64; I64Load $0; \
	Get R8; I64And; Set R11

// func permuteFirstStagesAsm(x *complex128, n, rows uintptr, rev *int, inverse uintptr)
// n is a power of two, at least 4; rows at least 1.
TEXT ·permuteFirstStagesAsm(SB), NOSPLIT, $0-40
	MOVD x+0(FP), R0
	MOVD n+8(FP), R1
	MOVD rows+16(FP), R2
	MOVD rev+24(FP), R3
	MOVD inverse+32(FP), R4
	Get R1
	I64Const $1
	I64Sub
	Set R8 // mask
	Get R1
	I64Const $4
	I64Shl
	Set R9 // bytes per row
	// b0 + t is u = (b0r + b1i, b0i - b1r) forward and v = (b0r - b1i,
	// b0i + b1r) inverse, b0 - t the other one: u goes to x[i+1] (byte 16)
	// forward and to x[i+3] (byte 48) inverse, v the other way round.
	I64Const $48
	I64Const $16
	Get R4
	I32WrapI64
	Select
	Set R5 // where u goes
	I64Const $16
	I64Const $48
	Get R4
	I32WrapI64
	Select
	Set R6 // where v goes
	Loop // rows
		I64Const $0
		Set R10
		Loop // the permutation
			REVI
			Get R10
			Get R11
			I64LtU
			If
				Get R10
				I64Const $4
				I64Shl
				Get R0
				I64Add
				Set R12
				Get R11
				I64Const $4
				I64Shl
				Get R0
				I64Add
				Set R13
				SWAP8(0)
				SWAP8(8)
			End
			Get R10
			I64Const $1
			I64Add
			Tee R10
			Get R1
			I64LtU
			BrIf $0
		End
		Get R0
		Get R9
		I64Add
		Set R13 // end of the row
		Loop // the first two stages, four values at a time
			F64Load 0(R0)
			Set F16
			F64Load 8(R0)
			Set F17 // a0
			F64Load 16(R0)
			Set F18
			F64Load 24(R0)
			Set F19 // b0
			F64Load 32(R0)
			Set F20
			F64Load 40(R0)
			Set F21 // a1
			F64Load 48(R0)
			Set F22
			F64Load 56(R0)
			Set F23 // b1
			// a0, b0 = a0+b0, a0-b0: a0 -> F24, F25, b0 -> F18, F19
			Get F16; Get F18; F64Add; Set F24
			Get F16; Get F18; F64Sub; Set F18
			Get F17; Get F19; F64Add; Set F25
			Get F17; Get F19; F64Sub; Set F19
			// a1, b1 = a1+b1, a1-b1: a1 -> F26, F27, b1 -> F22, F23
			Get F20; Get F22; F64Add; Set F26
			Get F20; Get F22; F64Sub; Set F22
			Get F21; Get F23; F64Add; Set F27
			Get F21; Get F23; F64Sub; Set F23
			// x[i], x[i+2] = a0+a1, a0-a1
			Get R0; I32WrapI64; Get F24; Get F26; F64Add; F64Store $0
			Get R0; I32WrapI64; Get F25; Get F27; F64Add; F64Store $8
			Get R0; I32WrapI64; Get F24; Get F26; F64Sub; F64Store $32
			Get R0; I32WrapI64; Get F25; Get F27; F64Sub; F64Store $40
			// u and v
			Get R0; Get R5; I64Add; Set R7
			Get R7; I32WrapI64; Get F18; Get F23; F64Add; F64Store $0
			Get R7; I32WrapI64; Get F19; Get F22; F64Sub; F64Store $8
			Get R0; Get R6; I64Add; Set R7
			Get R7; I32WrapI64; Get F18; Get F23; F64Sub; F64Store $0
			Get R7; I32WrapI64; Get F19; Get F22; F64Add; F64Store $8
			Get R0
			I64Const $64
			I64Add
			Tee R0
			Get R13
			I64LtU
			BrIf $0
		End
		Get R2
		I64Const $1
		I64Sub
		Tee R2
		I64Const $0
		I64Ne
		BrIf $0
	End
	RET

// func swapRowsAsm(data *complex128, n uintptr, rev *int)
// n is a power of two, at least 1.
TEXT ·swapRowsAsm(SB), NOSPLIT, $0-24
	MOVD data+0(FP), R0
	MOVD n+8(FP), R1
	MOVD rev+16(FP), R3
	Get R1
	I64Const $1
	I64Sub
	Set R8 // mask
	Get R1
	I64Const $4
	I64Shl
	Set R9 // bytes per row
	I64Const $0
	Set R10
	Loop
		REVI
		Get R10
		Get R11
		I64LtU
		If
			Get R10
			Get R9
			I64Mul
			Get R0
			I64Add
			Tee R12
			Get R9
			I64Add
			Set R7 // end of row i
			Get R11
			Get R9
			I64Mul
			Get R0
			I64Add
			Set R13
			Loop
				SWAP8(0)
				SWAP8(8)
				Get R13
				I64Const $16
				I64Add
				Set R13
				Get R12
				I64Const $16
				I64Add
				Tee R12
				Get R7
				I64LtU
				BrIf $0
			End
		End
		Get R10
		I64Const $1
		I64Add
		Tee R10
		Get R1
		I64LtU
		BrIf $0
	End
	RET

// func foldRowsAsm(acc *float64, rowBytes uintptr, src *float32, srcStride, nx uintptr, tx, ty *int, ny uintptr)
// rowBytes and srcStride are in bytes; nx and ny at least 1.
TEXT ·foldRowsAsm(SB), NOSPLIT, $0-64
	MOVD acc+0(FP), R0
	MOVD rowBytes+8(FP), R1
	MOVD src+16(FP), R2
	MOVD srcStride+24(FP), R3
	MOVD nx+32(FP), R4
	MOVD tx+40(FP), R5
	MOVD ty+48(FP), R6
	MOVD ny+56(FP), R7
	Get R4
	I64Const $3
	I64Shl
	Get R5
	I64Add
	Set R11 // end of tx
	Loop // rows
		MOVD 0(R6), R8
		Get R8
		Get R1
		I64Mul
		Get R0
		I64Add
		Set R8 // the bins' row
		Get R2
		Set R9 // pixel
		Get R5
		Set R10 // its bin
		Loop
			MOVD 0(R10), R12
			Get R12
			I64Const $3
			I64Shl
			Get R8
			I64Add
			Set R12
			Get R12
			I32WrapI64
			F64Load 0(R12)
			F32Load 0(R9)
			F64PromoteF32
			F64Add
			F64Store $0
			Get R9
			I64Const $4
			I64Add
			Set R9
			Get R10
			I64Const $8
			I64Add
			Tee R10
			Get R11
			I64LtU
			BrIf $0
		End
		ADDTO(R2, R3)
		Get R6
		I64Const $8
		I64Add
		Set R6
		Get R7
		I64Const $1
		I64Sub
		Tee R7
		I64Const $0
		I64Ne
		BrIf $0
	End
	RET

// func mulKernelAsm(dst, a, b *complex128, n uintptr)
// n is at least 1.
TEXT ·mulKernelAsm(SB), NOSPLIT, $0-32
	MOVD dst+0(FP), R0
	MOVD a+8(FP), R1
	MOVD b+16(FP), R2
	MOVD n+24(FP), R3
	Get R3
	I64Const $4
	I64Shl
	Get R1
	I64Add
	Set R3 // end of a
	Loop
		LOADC(R1, F16, F17)
		LOADC(R2, F18, F19)
		Get R0
		I32WrapI64
		MULRE(F16, F17, F18, F19)
		F64Store $0
		Get R0
		I32WrapI64
		MULIM(F16, F17, F18, F19)
		F64Store $8
		Get R0
		I64Const $16
		I64Add
		Set R0
		Get R2
		I64Const $16
		I64Add
		Set R2
		Get R1
		I64Const $16
		I64Add
		Tee R1
		Get R3
		I64LtU
		BrIf $0
	End
	RET

// func peakScanAsm(buf *complex128, n uintptr, sums *[6]float64, idx *[2]uint64)
// n is at least 1. The running maxima start at −Inf and move only on a
// strictly larger value (a NaN never moves them), as in peakScanGo.
TEXT ·peakScanAsm(SB), NOSPLIT, $0-32
	MOVD buf+0(FP), R0
	MOVD n+8(FP), R1
	F64Const $0.0
	Set F20 // sr
	F64Const $0.0
	Set F21 // si
	F64Const $0.0
	Set F22 // ssr
	F64Const $0.0
	Set F23 // ssi
	F64Const $(-1.0)
	F64Const $0.0
	F64Div
	Tee F24 // br = −Inf
	Set F25 // bi
	I64Const $0
	Set R2 // i
	I64Const $0
	Set R3 // idx of br
	I64Const $0
	Set R4 // idx of bi
	Loop
		LOADC(R0, F16, F17)
		Get F20; Get F16; F64Add; Set F20
		Get F21; Get F17; F64Add; Set F21
		Get F22; Get F16; Get F16; F64Mul; F64Add; Set F22
		Get F23; Get F17; Get F17; F64Mul; F64Add; Set F23
		// r > br: br, idx = r, i
		Get R2
		Get R3
		Get F16
		Get F24
		F64Gt
		Select
		Set R3
		Get F16
		Get F24
		Get F16
		Get F24
		F64Gt
		Select
		Set F24
		// im > bi
		Get R2
		Get R4
		Get F17
		Get F25
		F64Gt
		Select
		Set R4
		Get F17
		Get F25
		Get F17
		Get F25
		F64Gt
		Select
		Set F25
		Get R0
		I64Const $16
		I64Add
		Set R0
		Get R2
		I64Const $1
		I64Add
		Tee R2
		Get R1
		I64LtU
		BrIf $0
	End
	MOVD sums+16(FP), R5
	Get R5; I32WrapI64; Get F20; F64Store $0
	Get R5; I32WrapI64; Get F21; F64Store $8
	Get R5; I32WrapI64; Get F22; F64Store $16
	Get R5; I32WrapI64; Get F23; F64Store $24
	Get R5; I32WrapI64; Get F24; F64Store $32
	Get R5; I32WrapI64; Get F25; F64Store $40
	MOVD idx+24(FP), R5
	Get R5; I32WrapI64; Get R3; I64Store $0
	Get R5; I32WrapI64; Get R4; I64Store $8
	RET

// func satFoldAsm(acc *float64, rowBytes uintptr, sat *float64, strideBytes uintptr, xb, bx *int, nx uintptr, yb, by *int, ny uintptr)
// rowBytes and strideBytes are in bytes; nx and ny at least 1. Each band
// of rectangles reads its two table rows directly (the Go body copies
// them out first): the same values in the same operations.
TEXT ·satFoldAsm(SB), NOSPLIT, $0-80
	MOVD acc+0(FP), R0
	MOVD rowBytes+8(FP), R1
	MOVD sat+16(FP), R2
	MOVD strideBytes+24(FP), R3
	MOVD xb+32(FP), R4
	MOVD bx+40(FP), R5
	MOVD nx+48(FP), R6
	MOVD yb+56(FP), R7
	MOVD by+64(FP), R8
	MOVD ny+72(FP), R9
	Get R6
	I64Const $3
	I64Shl
	Get R5
	I64Add
	Set R6 // end of bx
	Loop // bands
		MOVD 0(R7), R10
		Get R10
		Get R3
		I64Mul
		Get R2
		I64Add
		Set R10 // top row of the table
		MOVD 8(R7), R11
		Get R11
		Get R3
		I64Mul
		Get R2
		I64Add
		Set R11 // bottom row
		MOVD 0(R8), R12
		Get R12
		Get R1
		I64Mul
		Get R0
		I64Add
		Set R12 // the bins' row
		Get R4
		Set R13 // column cursor
		Get R5
		Set R14 // bin cursor
		MOVD 0(R13), R15
		Get R15
		I64Const $3
		I64Shl
		Set R15
		Get R11
		Get R15
		I64Add
		Set R15
		F64Load 0(R15)
		Set F16 // bottom at the left column
		MOVD 0(R13), R15
		Get R15
		I64Const $3
		I64Shl
		Get R10
		I64Add
		Set R15
		F64Load 0(R15)
		Set F17 // top at the left column
		Loop
			MOVD 8(R13), R15
			Get R15
			I64Const $3
			I64Shl
			Set R15
			Get R11
			Get R15
			I64Add
			I32WrapI64
			F64Load $0
			Set F18 // bottom at the right column
			Get R10
			Get R15
			I64Add
			I32WrapI64
			F64Load $0
			Set F19 // top at the right column
			MOVD 0(R14), R15
			Get R15
			I64Const $3
			I64Shl
			Get R12
			I64Add
			Set R15
			Get R15
			I32WrapI64
			F64Load 0(R15)
			Get F18
			Get F16
			F64Sub
			Get F19
			F64Sub
			Get F17
			F64Add
			F64Add
			F64Store $0
			Get F18
			Set F16
			Get F19
			Set F17
			Get R13
			I64Const $8
			I64Add
			Set R13
			Get R14
			I64Const $8
			I64Add
			Tee R14
			Get R6
			I64LtU
			BrIf $0
		End
		Get R7
		I64Const $8
		I64Add
		Set R7
		Get R8
		I64Const $8
		I64Add
		Set R8
		Get R9
		I64Const $1
		I64Sub
		Tee R9
		I64Const $0
		I64Ne
		BrIf $0
	End
	RET

// func maxRunsAsm(dst, ext, pre, suf *float32, n, m, w uintptr)
// n, m and w at least 1, m = n+w-1. F0 and F1 are f32 locals; a kept
// value is replaced only when the new one is greater (Select on F32Gt),
// as the Go body's comparisons do.
TEXT ·maxRunsAsm(SB), NOSPLIT, $0-56
	MOVD dst+0(FP), R0
	MOVD ext+8(FP), R1
	MOVD pre+16(FP), R2
	MOVD suf+24(FP), R3
	MOVD n+32(FP), R4
	MOVD m+40(FP), R5
	MOVD w+48(FP), R6
	// Prefix maxima: R7 walks ext, R8 pre, R10 is j.
	Get R1
	Set R7
	Get R2
	Set R8
	Get R5
	I64Const $2
	I64Shl
	Get R1
	I64Add
	Set R9 // end of ext
	I64Const $0
	Set R10
	Loop
		F32Load 0(R7)
		Set F1
		Get F0
		Get F1
		Get F0
		Get F1
		F32Gt
		Get R10
		I64Eqz
		I32Eqz
		I32And
		Select
		Set F0
		Get R8
		I32WrapI64
		Get F0
		F32Store $0
		Get R10
		I64Const $1
		I64Add
		Set R10
		I64Const $0
		Get R10
		Get R10
		Get R6
		I64Eq
		Select
		Set R10
		Get R8
		I64Const $4
		I64Add
		Set R8
		Get R7
		I64Const $4
		I64Add
		Tee R7
		Get R9
		I64LtU
		BrIf $0
	End
	// Suffix maxima, from the end: R7 walks ext, R8 suf, R10 is j.
	Get R5
	I64Const $1
	I64Sub
	I64Const $2
	I64Shl
	Set R11 // offset of the last value
	Get R1
	Get R11
	I64Add
	Set R7
	Get R3
	Get R11
	I64Add
	Set R8
	F32Load 0(R7)
	Set F0
	Get R8
	I32WrapI64
	Get F0
	F32Store $0
	Get R5
	I64Const $1
	I64Sub
	Get R6
	I64RemU
	Set R10
	Get R6
	I64Const $1
	I64Sub
	Set R12 // w-1
	Get R5
	I64Const $1
	I64GtU
	If
		Loop
			Get R7
			I64Const $4
			I64Sub
			Set R7
			Get R8
			I64Const $4
			I64Sub
			Set R8
			Get R12
			Get R10
			I64Const $1
			I64Sub
			Get R10
			I64Eqz
			Select
			Set R10
			F32Load 0(R7)
			Set F1
			Get F0
			Get F1
			Get F0
			Get F1
			F32Gt
			Get R10
			Get R12
			I64Ne
			I32And
			Select
			Set F0
			Get R8
			I32WrapI64
			Get F0
			F32Store $0
			Get R7
			Get R1
			I64GtU
			BrIf $0
		End
	End
	// dst[x] = the larger of suf[x] and pre[x+w-1].
	Get R12
	I64Const $2
	I64Shl
	Get R2
	I64Add
	Set R8
	Get R3
	Set R7
	Get R4
	I64Const $2
	I64Shl
	Get R0
	I64Add
	Set R9 // end of dst
	Loop
		F32Load 0(R7)
		Set F0
		F32Load 0(R8)
		Set F1
		Get R0
		I32WrapI64
		Get F1
		Get F0
		Get F1
		Get F0
		F32Gt
		Select
		F32Store $0
		Get R7
		I64Const $4
		I64Add
		Set R7
		Get R8
		I64Const $4
		I64Add
		Set R8
		Get R0
		I64Const $4
		I64Add
		Tee R0
		Get R9
		I64LtU
		BrIf $0
	End
	RET
