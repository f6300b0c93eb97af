#include "textflag.h"

// The bodies of the kernels in kernels.go for WebAssembly. Registers R0–R15
// are i64 locals and F16–F31 f64 locals; loops are WebAssembly's own Loop
// and BrIf, so an iteration costs no trip through Go's dispatch loop.
// Every complex product p×q is computed as Go computes it:
// real = pr*qr - pi*qi, imag = pr*qi + pi*qr, with no fused multiply-add.

// MULRE and MULIM push the real and the imaginary part of (pr+i·pi)(qr+i·qi).
#define MULRE(pr, pi, qr, qi) Get pr; Get qr; F64Mul; Get pi; Get qi; F64Mul; F64Sub
#define MULIM(pr, pi, qr, qi) Get pr; Get qi; F64Mul; Get pi; Get qr; F64Mul; F64Add

// CMUL sets (dr, di) = (pr+i·pi)(qr+i·qi).
#define CMUL(pr, pi, qr, qi, dr, di) MULRE(pr, pi, qr, qi); Set dr; MULIM(pr, pi, qr, qi); Set di

// LOADC loads the complex128 at the address in i64 register r into fr, fi.
#define LOADC(r, fr, fi) F64Load 0(r); Set fr; F64Load 8(r); Set fi

// STORE1 stores the f64 a op b at byte off of the address in i64 register r.
#define STORE1(r, off, a, b, op) Get r; I32WrapI64; Get a; Get b; op; F64Store $off

// STOREOP stores (ar op br, ai op bi) at byte off of the address in r.
#define STOREOP(r, off, ar, ai, br, bi, op) \
	STORE1(r, off, ar, br, op); STORE1(r, (off+8), ai, bi, op)

// BFLY sets (sr, si) = a + b and (br, bi) = a − b, on f64 registers.
#define BFLY(ar, ai, br, bi, sr, si) \
	Get ar; Get br; F64Add; Set sr; Get ar; Get br; F64Sub; Set br; \
	Get ai; Get bi; F64Add; Set si; Get ai; Get bi; F64Sub; Set bi

// SUM sets c = a + b (i64); ADDTO sets r = r + s.
#define SUM(a, b, c) Get a; Get b; I64Add; Set c
#define ADDTO(r, s) SUM(r, s, r)

// STEP adds the constant n to the i64 register r.
#define STEP(r, n) Get r; I64Const $n; I64Add; Set r

// NEXT adds the constant n to r and goes round the enclosing Loop again
// while r < end (unsigned).
#define NEXT(r, n, end) Get r; I64Const $n; I64Add; Tee r; Get end; I64LtU; BrIf $0

// COUNTDOWN subtracts 1 from r and goes round the enclosing Loop again
// while r is not 0.
#define COUNTDOWN(r) Get r; I64Const $1; I64Sub; Tee r; I64Const $0; I64Ne; BrIf $0

// The radix kernels share their first five arguments (p, d, m, groups,
// gstride in R0–R4) and their two loops: over the groups (R0 the group's
// start, R3 counting down) and over a group's run (R10 from R0 by 16 bytes
// up to R11 = R0 + m). GROUPARGS loads the arguments, GROUPS opens both
// loops after the per-group lines in between, GROUPSEND closes them.
#define GROUPARGS \
	MOVD p+0(FP), R0; MOVD d+8(FP), R1; MOVD m+16(FP), R2; \
	MOVD groups+24(FP), R3; MOVD gstride+32(FP), R4
#define GROUPSTART Get R0; Set R10; SUM(R0, R2, R11)
#define GROUPSEND NEXT(R10, 16, R11); End; ADDTO(R0, R4); COUNTDOWN(R3); End; RET

// D23 sets R8 = 2d and R9 = 3d from d in R1.
#define D23 SUM(R1, R1, R8); SUM(R8, R1, R9)

// FOLD1 adds pixel pb bytes from R9 into the bin whose index is tb bytes
// from R10, in the bins' row R8 (foldRowsAsm).
#define FOLD1(tb, pb) \
	I64Load tb(R10); I64Const $3; I64Shl; Get R8; I64Add; Set R12; \
	Get R12; I32WrapI64; F64Load 0(R12); F32Load pb(R9); F64PromoteF32; F64Add; F64Store $0

// TAKE stores to dst (R0) output k of a group of the vertical filter: wt
// (F0) times lane sh of the sums' word w, plus wa (F1) times byte k of a
// (R6), plus wb (F2) times byte k of b (R7).
#define TAKE(k, w, sh) \
	Get R0; I32WrapI64; \
	Get F0; Get w; I64Const $sh; I64ShrU; I64Const $0xFFFF; I64And; F32ConvertI64U; F32Mul; \
	Get F1; I64Load8U k(R6); F32ConvertI64U; F32Mul; F32Add; \
	Get F2; I64Load8U k(R7); F32ConvertI64U; F32Mul; F32Add; \
	F32Store $(4*k)

// GATHER fills ext (R4, m values, end R15) with the line whose k-th value
// is at R11 + k·R12, k starting at k0 (R9) and wrapping at T (R7): R13
// walks the line and goes back to R11 at R10, its end.
#define GATHER \
	Get R9; Get R12; I64Mul; Get R11; I64Add; Set R13; \
	Get R7; Get R12; I64Mul; Get R11; I64Add; Set R10; \
	Get R4; Set R14; ADDR(R8, 2, R4, R15); \
	Loop; \
		Get R14; I32WrapI64; F32Load 0(R13); F32Store $0; \
		Get R13; Get R12; I64Add; Set R13; \
		Get R11; Get R13; Get R13; Get R10; I64Eq; Select; Set R13; \
		NEXT(R14, 4, R15); \
	End

// RUNS calls maxRunsAsm(dst, ext, pre, suf, T, m, m-T+1) (a leaf that
// never unwinds the stack).
#define RUNS(dst) \
	MOVD dst, 0(SP); MOVD R4, 8(SP); MOVD R5, 16(SP); MOVD R6, 24(SP); \
	MOVD R7, 32(SP); MOVD R8, 40(SP); \
	Get R8; Get R7; I64Sub; I64Const $1; I64Add; Set R15; MOVD R15, 48(SP); \
	CALLNORESUME ·maxRunsAsm(SB)

// BF4 is butterflies4Asm's step on the four values from R10 (d = R1, 2d
// = R8, 3d = R9 bytes apart), with the twiddles w1 in F16, F17, w2 in
// F28, F29 and w3 in F30, F31.
#define BF4 \
	/* b = x[i+d] * w1 -> F18, F19 */ \
	SUM(R10, R1, R15); LOADC(R15, F26, F27); CMUL(F26, F27, F16, F17, F18, F19); \
	/* d = x[i+3d] * w1 -> F20, F21 */ \
	SUM(R10, R9, R15); LOADC(R15, F26, F27); CMUL(F26, F27, F16, F17, F20, F21); \
	/* a -> F22, F23; c = x[i+2d] -> F24, F25 (R15 keeps i+2d) */ \
	LOADC(R10, F22, F23); SUM(R10, R8, R15); LOADC(R15, F24, F25); \
	/* a, b = a+b, a-b: a -> F26, F27, b -> F18, F19 */ \
	BFLY(F22, F23, F18, F19, F26, F27); \
	/* c, d = c+d, c-d: c -> F22, F23, d -> F20, F21 */ \
	BFLY(F24, F25, F20, F21, F22, F23); \
	/* c *= w2 -> F24, F25; d *= w3 -> F22, F23 */ \
	CMUL(F22, F23, F28, F29, F24, F25); CMUL(F20, F21, F30, F31, F22, F23); \
	/* x[i], x[i+2d] = a+c, a-c */ \
	STOREOP(R10, 0, F26, F27, F24, F25, F64Add); STOREOP(R15, 0, F26, F27, F24, F25, F64Sub); \
	/* x[i+d], x[i+3d] = b+d, b-d */ \
	SUM(R10, R1, R15); STOREOP(R15, 0, F18, F19, F22, F23, F64Add); \
	SUM(R10, R9, R15); STOREOP(R15, 0, F18, F19, F22, F23, F64Sub)

// func butterflies4Asm(p *complex128, d, m, groups, gstride uintptr, w1, w2, w3 *complex128, s1, s2, s3 uintptr)
// d, m, gstride and the strides s1–s3 are in bytes.
TEXT ·butterflies4Asm(SB), NOSPLIT, $0-88
	GROUPARGS
	MOVD s1+64(FP), R5; MOVD s2+72(FP), R6; MOVD s3+80(FP), R7
	D23
	Loop
		GROUPSTART
		MOVD w1+40(FP), R12; MOVD w2+48(FP), R13; MOVD w3+56(FP), R14
		Loop
			LOADC(R12, F16, F17)
			LOADC(R13, F28, F29)
			LOADC(R14, F30, F31)
			BF4
			ADDTO(R12, R5); ADDTO(R13, R6); ADDTO(R14, R7)
	GROUPSEND

// func butterflies4ConstAsm(p *complex128, d, m, groups, gstride uintptr, w1, w2, w3 *complex128)
// butterflies4Asm with the same twiddles for every value (the column
// passes): loaded once.
TEXT ·butterflies4ConstAsm(SB), NOSPLIT, $0-64
	GROUPARGS
	D23
	MOVD w1+40(FP), R12; MOVD w2+48(FP), R13; MOVD w3+56(FP), R14
	LOADC(R12, F16, F17)
	LOADC(R13, F28, F29)
	LOADC(R14, F30, F31)
	Loop
		GROUPSTART
		Loop
			BF4
	GROUPSEND

// func butterflies4OneAsm(p *complex128, d, m, groups, gstride uintptr, w3r, w3i float64)
// d, m and gstride are in bytes.
TEXT ·butterflies4OneAsm(SB), NOSPLIT, $0-56
	GROUPARGS
	F64Load w3r+40(FP); Set F30; F64Load w3i+48(FP); Set F31
	D23
	Loop
		GROUPSTART
		Loop
			LOADC(R10, F16, F17) // a
			SUM(R10, R1, R12)
			LOADC(R12, F18, F19) // b
			SUM(R10, R8, R13)
			LOADC(R13, F20, F21) // c
			SUM(R10, R9, R14)
			LOADC(R14, F22, F23) // d
			// a, b = a+b, a-b: a -> F24, F25, b -> F18, F19
			BFLY(F16, F17, F18, F19, F24, F25)
			// c, d = c+d, c-d: c -> F26, F27, d -> F22, F23
			BFLY(F20, F21, F22, F23, F26, F27)
			// d *= w3 -> F20, F21
			CMUL(F22, F23, F30, F31, F20, F21)
			STOREOP(R10, 0, F24, F25, F26, F27, F64Add)
			STOREOP(R13, 0, F24, F25, F26, F27, F64Sub)
			STOREOP(R12, 0, F18, F19, F20, F21, F64Add)
			STOREOP(R14, 0, F18, F19, F20, F21, F64Sub)
	GROUPSEND

// func butterflies2Asm(p *complex128, d, m, groups, gstride uintptr, w *complex128, s uintptr)
// d, m, gstride and s are in bytes.
TEXT ·butterflies2Asm(SB), NOSPLIT, $0-56
	GROUPARGS
	MOVD s+48(FP), R5
	Loop
		GROUPSTART
		MOVD w+40(FP), R12
		Loop
			LOADC(R12, F16, F17) // w
			SUM(R10, R1, R15)
			LOADC(R15, F18, F19) // x[i+d]
			CMUL(F18, F19, F16, F17, F20, F21)
			LOADC(R10, F22, F23) // a
			STOREOP(R10, 0, F22, F23, F20, F21, F64Add)
			STOREOP(R15, 0, F22, F23, F20, F21, F64Sub)
			ADDTO(R12, R5)
	GROUPSEND

// func sumDiffAsm(p *complex128, d, m, groups, gstride uintptr)
// d, m and gstride are in bytes.
TEXT ·sumDiffAsm(SB), NOSPLIT, $0-40
	GROUPARGS
	Loop
		GROUPSTART
		Loop
			SUM(R10, R1, R15)
			LOADC(R10, F16, F17) // a
			LOADC(R15, F18, F19) // b
			STOREOP(R10, 0, F16, F17, F18, F19, F64Add)
			STOREOP(R15, 0, F16, F17, F18, F19, F64Sub)
	GROUPSEND

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

// ROWMASK sets R8 = n−1 (the index mask) and R9 = 16n (the bytes in a
// row of n complex128) from n in R1.
#define ROWMASK Get R1; I64Const $1; I64Sub; Set R8; Get R1; I64Const $4; I64Shl; Set R9

// ADDR sets r = base + i<<k (i64): the address of element i of an array
// of 1<<k-byte elements.
#define ADDR(i, k, base, r) Get i; I64Const $k; I64Shl; Get base; I64Add; Set r

// MULADD sets r = a*b + c (i64).
#define MULADD(a, b, c, r) Get a; Get b; I64Mul; Get c; I64Add; Set r

// PUT stores register v with the store instruction st at byte off of the
// address in r.
#define PUT(r, off, v, st) Get r; I32WrapI64; Get v; st $off

// func permuteFirstStagesAsm(x *complex128, n, rows uintptr, swaps *int, nswaps, inverse uintptr)
// n is a power of two, at least 4; rows at least 1; swaps holds nswaps
// indices, pairs to swap in order.
TEXT ·permuteFirstStagesAsm(SB), NOSPLIT, $0-48
	MOVD x+0(FP), R0; MOVD n+8(FP), R1; MOVD rows+16(FP), R2
	MOVD swaps+24(FP), R3; MOVD nswaps+32(FP), R11; MOVD inverse+40(FP), R4
	ADDR(R11, 3, R3, R11) // end of swaps
	ROWMASK
	// b0 + t is u = (b0r + b1i, b0i - b1r) forward and v = (b0r - b1i,
	// b0i + b1r) inverse, b0 - t the other one: u goes to x[i+1] (byte 16)
	// forward and to x[i+3] (byte 48) inverse, v the other way round.
	I64Const $48; I64Const $16; Get R4; I32WrapI64; Select; Set R5 // where u goes
	I64Const $16; I64Const $48; Get R4; I32WrapI64; Select; Set R6 // where v goes
	Loop // rows
		Get R3
		Set R10
		Block
			Loop // the permutation, a swap at a time
				Get R10; Get R11; I64GeU; BrIf $1
				I64Load 0(R10); I64Const $4; I64Shl; Get R0; I64Add; Set R12
				I64Load 8(R10); I64Const $4; I64Shl; Get R0; I64Add; Set R13
				SWAP8(0)
				SWAP8(8)
				STEP(R10, 16)
				Br $0
			End
		End
		SUM(R0, R9, R13) // end of the row
		Loop // the first two stages, four values at a time
			F64Load 0(R0); Set F16; F64Load 8(R0); Set F17 // a0
			F64Load 16(R0); Set F18; F64Load 24(R0); Set F19 // b0
			F64Load 32(R0); Set F20; F64Load 40(R0); Set F21 // a1
			F64Load 48(R0); Set F22; F64Load 56(R0); Set F23 // b1
			// a0, b0 = a0+b0, a0-b0: a0 -> F24, F25, b0 -> F18, F19
			BFLY(F16, F17, F18, F19, F24, F25)
			// a1, b1 = a1+b1, a1-b1: a1 -> F26, F27, b1 -> F22, F23
			BFLY(F20, F21, F22, F23, F26, F27)
			// x[i], x[i+2] = a0+a1, a0-a1
			STOREOP(R0, 0, F24, F25, F26, F27, F64Add)
			STOREOP(R0, 32, F24, F25, F26, F27, F64Sub)
			// u and v
			SUM(R0, R5, R7)
			STORE1(R7, 0, F18, F23, F64Add)
			STORE1(R7, 8, F19, F22, F64Sub)
			SUM(R0, R6, R7)
			STORE1(R7, 0, F18, F23, F64Sub)
			STORE1(R7, 8, F19, F22, F64Add)
			NEXT(R0, 64, R13)
		End
		COUNTDOWN(R2)
	End
	RET

// func swapRowsAsm(data *complex128, n uintptr, rev *int)
// n is a power of two, at least 1.
TEXT ·swapRowsAsm(SB), NOSPLIT, $0-24
	MOVD data+0(FP), R0; MOVD n+8(FP), R1; MOVD rev+16(FP), R3
	ROWMASK
	I64Const $0
	Set R10
	Loop
		REVI
		Get R10
		Get R11
		I64LtU
		If
			Get R10; Get R9; I64Mul; Get R0; I64Add; Tee R12
			Get R9; I64Add; Set R7 // end of row i
			MULADD(R11, R9, R0, R13)
			Loop
				SWAP8(0)
				SWAP8(8)
				STEP(R13, 16)
				NEXT(R12, 16, R7)
			End
		End
		NEXT(R10, 1, R1)
	End
	RET

// func foldRowsAsm(acc *float64, rowBytes uintptr, src *float32, srcStride, nx uintptr, tx, ty *int, ny uintptr)
// rowBytes and srcStride are in bytes; nx and ny at least 1.
TEXT ·foldRowsAsm(SB), NOSPLIT, $0-64
	MOVD acc+0(FP), R0; MOVD rowBytes+8(FP), R1
	MOVD src+16(FP), R2; MOVD srcStride+24(FP), R3
	MOVD nx+32(FP), R4; MOVD tx+40(FP), R5; MOVD ty+48(FP), R6; MOVD ny+56(FP), R7
	ADDR(R4, 3, R5, R11) // end of tx
	Loop // rows
		MOVD 0(R6), R8
		MULADD(R8, R1, R0, R8) // the bins' row
		Get R2
		Set R9 // pixel
		Get R5
		Set R10 // its bin
		// Four pixels an iteration while four are left (R13 the last
		// start for that), in order; then one at a time.
		Get R11; I64Const $24; I64Sub; Set R13
		Block
			Loop
				Get R10; Get R13; I64GeU; BrIf $1
				FOLD1(0, 0)
				FOLD1(8, 4)
				FOLD1(16, 8)
				FOLD1(24, 12)
				STEP(R9, 16)
				STEP(R10, 32)
				Br $0
			End
		End
		Block
			Loop
				Get R10; Get R11; I64GeU; BrIf $1
				FOLD1(0, 0)
				STEP(R9, 4)
				STEP(R10, 8)
				Br $0
			End
		End
		ADDTO(R2, R3)
		STEP(R6, 8)
		COUNTDOWN(R7)
	End
	RET

// func mulKernelAsm(dst, a, b *complex128, n uintptr)
// n is at least 1.
TEXT ·mulKernelAsm(SB), NOSPLIT, $0-32
	MOVD dst+0(FP), R0; MOVD a+8(FP), R1; MOVD b+16(FP), R2; MOVD n+24(FP), R3
	ADDR(R3, 4, R1, R3) // end of a
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
		STEP(R0, 16)
		STEP(R2, 16)
		NEXT(R1, 16, R3)
	End
	RET

// RUNMAX sets best, idx = v, i when v > best (f64; a NaN never moves it).
#define RUNMAX(v, best, i, idx) \
	Get i; Get idx; Get v; Get best; F64Gt; Select; Set idx; \
	Get v; Get best; Get v; Get best; F64Gt; Select; Set best

// func peakScanAsm(buf *complex128, n uintptr, sums *[6]float64, idx *[2]uint64)
// n is at least 1. The running maxima start at −Inf and move only on a
// strictly larger value (a NaN never moves them), as in peakScanGo.
TEXT ·peakScanAsm(SB), NOSPLIT, $0-32
	MOVD buf+0(FP), R0
	MOVD n+8(FP), R1
	F64Const $0.0; Set F20 // sr
	F64Const $0.0; Set F21 // si
	F64Const $0.0; Set F22 // ssr
	F64Const $0.0; Set F23 // ssi
	F64Const $(-1.0)
	F64Const $0.0
	F64Div
	Tee F24 // br = −Inf
	Set F25 // bi
	I64Const $0; Set R2 // i
	I64Const $0; Set R3 // idx of br
	I64Const $0; Set R4 // idx of bi
	Loop
		LOADC(R0, F16, F17)
		Get F20; Get F16; F64Add; Set F20
		Get F21; Get F17; F64Add; Set F21
		Get F22; Get F16; Get F16; F64Mul; F64Add; Set F22
		Get F23; Get F17; Get F17; F64Mul; F64Add; Set F23
		RUNMAX(F16, F24, R2, R3) // r > br: br, idx = r, i
		RUNMAX(F17, F25, R2, R4) // im > bi
		STEP(R0, 16)
		NEXT(R2, 1, R1)
	End
	MOVD sums+16(FP), R5
	PUT(R5, 0, F20, F64Store); PUT(R5, 8, F21, F64Store); PUT(R5, 16, F22, F64Store)
	PUT(R5, 24, F23, F64Store); PUT(R5, 32, F24, F64Store); PUT(R5, 40, F25, F64Store)
	MOVD idx+24(FP), R5
	PUT(R5, 0, R3, I64Store); PUT(R5, 8, R4, I64Store)
	RET

// func satFoldAsm(acc *float64, rowBytes uintptr, sat *float64, strideBytes uintptr, xb, bx *int, nx uintptr, yb, by *int, ny uintptr)
// rowBytes and strideBytes are in bytes; nx and ny at least 1. Each band
// of rectangles reads its two table rows directly (the Go body copies
// them out first): the same values in the same operations.
TEXT ·satFoldAsm(SB), NOSPLIT, $0-80
	MOVD acc+0(FP), R0; MOVD rowBytes+8(FP), R1 // the bins
	MOVD sat+16(FP), R2; MOVD strideBytes+24(FP), R3 // the table
	MOVD xb+32(FP), R4; MOVD bx+40(FP), R5; MOVD nx+48(FP), R6 // columns
	MOVD yb+56(FP), R7; MOVD by+64(FP), R8; MOVD ny+72(FP), R9 // bands
	ADDR(R6, 3, R5, R6) // end of bx
	Loop // bands
		MOVD 0(R7), R10
		MULADD(R10, R3, R2, R10) // top row of the table
		MOVD 8(R7), R11
		MULADD(R11, R3, R2, R11) // bottom row
		MOVD 0(R8), R12
		MULADD(R12, R1, R0, R12) // the bins' row
		Get R4
		Set R13 // column cursor
		Get R5
		Set R14 // bin cursor
		MOVD 0(R13), R15
		Get R15; I64Const $3; I64Shl; Set R15
		SUM(R11, R15, R15)
		F64Load 0(R15)
		Set F16 // bottom at the left column
		MOVD 0(R13), R15
		ADDR(R15, 3, R10, R15)
		F64Load 0(R15)
		Set F17 // top at the left column
		Loop
			MOVD 8(R13), R15
			Get R15; I64Const $3; I64Shl; Set R15
			Get R11; Get R15; I64Add; I32WrapI64; F64Load $0
			Set F18 // bottom at the right column
			Get R10; Get R15; I64Add; I32WrapI64; F64Load $0
			Set F19 // top at the right column
			MOVD 0(R14), R15
			ADDR(R15, 3, R12, R15)
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
			STEP(R13, 8)
			NEXT(R14, 8, R6)
		End
		STEP(R7, 8)
		STEP(R8, 8)
		COUNTDOWN(R9)
	End
	RET

// PICK32 pushes a and b and whether a > b (f32), for a Select that keeps
// a only when it is greater (and whatever else is ANDed onto the test).
#define PICK32(a, b) Get a; Get b; Get a; Get b; F32Gt

// func maxRunsAsm(dst, ext, pre, suf *float32, n, m, w uintptr)
// n, m and w at least 1, m = n+w-1. F0 and F1 are f32 locals; a kept
// value is replaced only when the new one is greater (Select on F32Gt),
// as the Go body's comparisons do.
TEXT ·maxRunsAsm(SB), NOSPLIT, $0-56
	MOVD dst+0(FP), R0; MOVD ext+8(FP), R1; MOVD pre+16(FP), R2; MOVD suf+24(FP), R3
	MOVD n+32(FP), R4; MOVD m+40(FP), R5; MOVD w+48(FP), R6
	Get R6; I64Const $2; I64Shl; Set R13 // a segment's bytes
	ADDR(R5, 2, R1, R9)                  // end of ext
	// Prefix maxima, a segment at a time: R7 walks ext, R8 pre; the
	// running maximum stays in F0.
	Get R1; Set R7
	Get R2; Set R8
	Loop
		SUM(R7, R13, R14) // the segment's end, at most ext's
		Get R14; Get R9; Get R14; Get R9; I64LtU; Select; Set R14
		F32Load 0(R7); Set F0
		PUT(R8, 0, F0, F32Store)
		STEP(R7, 4)
		STEP(R8, 4)
		Block
			Loop
				Get R7; Get R14; I64GeU; BrIf $1
				F32Load 0(R7); Set F1
				PICK32(F0, F1)
				Select
				Set F0
				PUT(R8, 0, F0, F32Store)
				STEP(R7, 4)
				STEP(R8, 4)
				Br $0
			End
		End
		Get R7; Get R9; I64LtU; BrIf $0
	End
	// Suffix maxima, from the last segment back: R10 is the segment's
	// start in ext, R14 its end; R7 walks down from the end, R8 in suf.
	Get R5; I64Const $1; I64Sub; Get R6; I64DivU; Get R13; I64Mul; Get R1; I64Add; Set R10
	Get R6; I64Const $1; I64Sub; Set R12 // w-1
	Loop
		SUM(R10, R13, R14)
		Get R14; Get R9; Get R14; Get R9; I64LtU; Select; Set R14
		Get R14; I64Const $4; I64Sub; Set R7
		Get R7; Get R1; I64Sub; Get R3; I64Add; Set R8
		F32Load 0(R7); Set F0
		PUT(R8, 0, F0, F32Store)
		Block
			Loop
				Get R7; Get R10; I64LeU; BrIf $1
				Get R7; I64Const $4; I64Sub; Set R7
				Get R8; I64Const $4; I64Sub; Set R8
				F32Load 0(R7); Set F1
				PICK32(F0, F1)
				Select
				Set F0
				PUT(R8, 0, F0, F32Store)
				Br $0
			End
		End
		Get R10; Get R1; I64GtU
		If
			Get R10; Get R13; I64Sub; Set R10
			Br $1
		End
	End
	// dst[x] = the larger of suf[x] and pre[x+w-1].
	ADDR(R12, 2, R2, R8)
	Get R3
	Set R7
	ADDR(R4, 2, R0, R9) // end of dst
	Loop
		F32Load 0(R7)
		Set F0
		F32Load 0(R8)
		Set F1
		Get R0
		I32WrapI64
		PICK32(F1, F0)
		Select
		F32Store $0
		STEP(R7, 4)
		STEP(R8, 4)
		NEXT(R0, 4, R9)
	End
	RET

// func poolMaxAsm(sum *float64, zb, rows, out, ext, pre, suf *float32, T, r, k0 uintptr)
TEXT ·poolMaxAsm(SB), NOSPLIT, $56-80
	MOVD sum+0(FP), R0; MOVD zb+8(FP), R1; MOVD rows+16(FP), R2; MOVD out+24(FP), R3
	MOVD ext+32(FP), R4; MOVD pre+40(FP), R5; MOVD suf+48(FP), R6
	MOVD T+56(FP), R7; MOVD r+64(FP), R8; MOVD k0+72(FP), R9
	Get R8; Get R8; I64Add; Get R7; I64Add; Set R8 // m = T + 2r
	// Rows: R1 and R2 step through zb and rows a row (T·4 bytes) at a time.
	I64Const $4; Set R12
	Get R7; Set R3
	Loop
		Get R1; Set R11
		GATHER
		RUNS(R2)
		Get R7; I64Const $2; I64Shl; Get R1; I64Add; Set R1
		Get R7; I64Const $2; I64Shl; Get R2; I64Add; Set R2
		Get R3; I64Const $1; I64Sub; Tee R3; I64Eqz; I32Eqz; BrIf $0
	End
	// Columns: R2 back at rows' first column, R1 counts the columns down,
	// R0 at sum's column; each column's maxima are added to sum down it.
	Get R2; Get R7; Get R7; I64Mul; I64Const $2; I64Shl; I64Sub; Set R2
	MOVD out+24(FP), R3
	Get R7; Set R1
	Loop
		Get R2; Set R11
		Get R7; I64Const $2; I64Shl; Set R12
		GATHER
		RUNS(R3)
		// sum[y·T] += out[y], R13 down sum's column (T·8 bytes a step).
		Get R0; Set R13; Get R3; Set R14; ADDR(R7, 2, R3, R15)
		Get R7; I64Const $3; I64Shl; Set R12
		Loop
			Get R13; I32WrapI64
			F64Load 0(R13); F32Load 0(R14); F64PromoteF32; F64Add
			F64Store $0
			ADDTO(R13, R12)
			NEXT(R14, 4, R15)
		End
		STEP(R0, 8)
		STEP(R2, 4)
		Get R1; I64Const $1; I64Sub; Tee R1; I64Eqz; I32Eqz; BrIf $0
	End
	RET

// func tapsApplyAsm(dst *float32, n uintptr, src *float32, start, off *int, w *float32)
TEXT ·tapsApplyAsm(SB), NOSPLIT, $0-48
	MOVD dst+0(FP), R0; MOVD n+8(FP), R1; MOVD src+16(FP), R2
	MOVD start+24(FP), R3; MOVD off+32(FP), R4; MOVD w+40(FP), R5
	ADDR(R1, 2, R0, R15) // end of dst
	Loop
		// R6 walks the weights up to R7, R8 the source from start[x].
		I64Load 0(R4); I64Const $2; I64Shl; Get R5; I64Add; Set R6
		I64Load 8(R4); I64Const $2; I64Shl; Get R5; I64Add; Set R7
		I64Load 0(R3); I64Const $2; I64Shl; Get R2; I64Add; Set R8
		F32Const $0.0; Set F0
		F32Const $0.0; Set F1
		Block
			Loop
				Get R6; I64Const $8; I64Add; Get R7; I64GtU; BrIf $1
				Get F0; F32Load 0(R6); F32Load 0(R8); F32Mul; F32Add; Set F0
				Get F1; F32Load 4(R6); F32Load 4(R8); F32Mul; F32Add; Set F1
				STEP(R6, 8)
				STEP(R8, 8)
				Br $0
			End
		End
		Get R6; Get R7; I64LtU
		If
			Get F0; F32Load 0(R6); F32Load 0(R8); F32Mul; F32Add; Set F0
		End
		Get R0; I32WrapI64; Get F0; Get F1; F32Add; F32Store $0
		STEP(R3, 8)
		STEP(R4, 8)
		NEXT(R0, 4, R15)
	End
	RET

// func powerOfAsm(p *float64, buf *complex128, n uintptr)
TEXT ·powerOfAsm(SB), NOSPLIT, $0-24
	MOVD p+0(FP), R0; MOVD buf+8(FP), R1; MOVD n+16(FP), R2
	ADDR(R2, 3, R0, R3) // end of p
	Loop
		LOADC(R1, F16, F17)
		Get R0; I32WrapI64
		Get F16; Get F16; F64Mul; Get F17; Get F17; F64Mul; F64Add
		F64Store $0
		STEP(R1, 16)
		NEXT(R0, 8, R3)
	End
	RET

// func boxRowsAsm(dst, src *float64, n, k0, w uintptr, add, sub *int)
TEXT ·boxRowsAsm(SB), NOSPLIT, $0-56
	MOVD dst+0(FP), R0; MOVD src+8(FP), R1; MOVD n+16(FP), R2
	MOVD k0+24(FP), R3; MOVD w+32(FP), R4
	Get R2; I64Const $3; I64Shl; Set R12 // a row's bytes
	Get R2; Set R5                       // rows left
	Loop
		// The first window: w values from k0, wrapping at n.
		F64Const $0.0; Set F16
		Get R3; Set R6
		Get R4; Set R7
		Loop
			Get F16; Get R6; I64Const $3; I64Shl; Get R1; I64Add; Set R8; F64Load 0(R8); F64Add; Set F16
			STEP(R6, 1)
			I64Const $0; Get R6; Get R6; Get R2; I64Eq; Select; Set R6
			COUNTDOWN(R7)
		End
		// The rest: R8 and R9 walk add and sub, R0 the row of dst to R11.
		MOVD add+40(FP), R8; MOVD sub+48(FP), R9
		SUM(R0, R12, R11)
		Loop
			Get R0; I32WrapI64; Get F16; F64Store $0
			I64Load 0(R8); I64Const $3; I64Shl; Get R1; I64Add; Set R6
			I64Load 0(R9); I64Const $3; I64Shl; Get R1; I64Add; Set R7
			Get F16; F64Load 0(R6); F64Load 0(R7); F64Sub; F64Add; Set F16
			STEP(R8, 8)
			STEP(R9, 8)
			NEXT(R0, 8, R11)
		End
		ADDTO(R1, R12)
		COUNTDOWN(R5)
	End
	RET

// func whitenColsAsm(out, pw, tmp, col *float64, n uintptr, add, sub *int, inv float64)
TEXT ·whitenColsAsm(SB), NOSPLIT, $0-64
	MOVD out+0(FP), R0; MOVD pw+8(FP), R1; MOVD tmp+16(FP), R2; MOVD col+24(FP), R3
	MOVD n+32(FP), R4; MOVD add+40(FP), R5; MOVD sub+48(FP), R6; F64Load inv+56(FP); Set F16
	Get R4; I64Const $3; I64Shl; Set R8 // a row's bytes
	Get R4; Set R7                      // rows left
	Loop
		// R9 and R10: the rows entering and leaving; R11 walks col to R12.
		I64Load 0(R5); Get R8; I64Mul; Get R2; I64Add; Set R9
		I64Load 0(R6); Get R8; I64Mul; Get R2; I64Add; Set R10
		Get R3; Set R11
		SUM(R3, R8, R12)
		Loop
			F64Load 0(R11); Set F17
			Get F17; F64Const $0.0; F64Gt
			If
				Get R0; I32WrapI64
				F64Load 0(R0); F64Load 0(R1); Get F17; F64Div; Get F16; F64Mul; F64Add
				F64Store $0
			End
			Get R11; I32WrapI64
			Get F17; F64Load 0(R9); F64Load 0(R10); F64Sub; F64Add
			F64Store $0
			STEP(R0, 8)
			STEP(R1, 8)
			STEP(R9, 8)
			STEP(R10, 8)
			NEXT(R11, 8, R12)
		End
		STEP(R5, 8)
		STEP(R6, 8)
		COUNTDOWN(R7)
	End
	RET

// func boxLineAsm(dst, src *float32, n, r uintptr, inv *float64)
// n is at least 1.
TEXT ·boxLineAsm(SB), NOSPLIT, $0-40
	MOVD dst+0(FP), R0; MOVD src+8(FP), R1; MOVD n+16(FP), R2; MOVD r+24(FP), R3; MOVD inv+32(FP), R4
	// F16 = the sum of the first min(r+1, n) values.
	F64Const $0.0; Set F16
	Get R3; I64Const $1; I64Add; Tee R5; Get R2; Get R5; Get R2; I64LtU; Select; Set R5
	Get R1; Set R6
	ADDR(R5, 2, R1, R7)
	Loop
		Get F16; F32Load 0(R6); F64PromoteF32; F64Add; Set F16
		NEXT(R6, 4, R7)
	End
	// R8 = i; R9 = i+r+1 and R6 its value's address; R7 the address of
	// the value i−r, read only when i ≥ r. A value outside the line is 0.
	I64Const $0; Set R8
	Get R3; I64Const $1; I64Add; Set R9
	ADDR(R9, 2, R1, R6)
	Get R1; Get R3; I64Const $2; I64Shl; I64Sub; Set R7
	Loop
		Get R0; I32WrapI64; Get F16; F64Load 0(R4); F64Mul; F32DemoteF64; F32Store $0
		F64Const $0.0; Set F17
		Get R9; Get R2; I64LtU
		If
			F32Load 0(R6); F64PromoteF32; Set F17
		End
		F64Const $0.0; Set F18
		Get R8; Get R3; I64GeU
		If
			F32Load 0(R7); F64PromoteF32; Set F18
		End
		Get F16; Get F17; Get F18; F64Sub; F64Add; Set F16
		STEP(R0, 4)
		STEP(R4, 8)
		STEP(R6, 4)
		STEP(R7, 4)
		STEP(R9, 1)
		Get R8; I64Const $1; I64Add; Tee R8; Get R2; I64LtU; BrIf $0
	End
	RET

// func boxColsAsm(dst *float32, col *float64, in, out *float32, n uintptr, inv float64)
TEXT ·boxColsAsm(SB), NOSPLIT, $0-48
	MOVD dst+0(FP), R0; MOVD col+8(FP), R1; MOVD in+16(FP), R2; MOVD out+24(FP), R3; MOVD n+32(FP), R4
	F64Load inv+40(FP); Set F16
	ADDR(R4, 2, R0, R5)
	Loop
		F64Load 0(R1); Set F17
		Get R0; I32WrapI64; Get F17; Get F16; F64Mul; F32DemoteF64; F32Store $0
		Get R1; I32WrapI64
		Get F17; F32Load 0(R2); F64PromoteF32; F64Add; F32Load 0(R3); F64PromoteF32; F64Sub
		F64Store $0
		STEP(R1, 8)
		STEP(R2, 4)
		STEP(R3, 4)
		NEXT(R0, 4, R5)
	End
	RET

// func warpRowAsm(acc *float64, T uintptr, row *float32, n uintptr, ux, uy, dux, duy, ddux, dduy int64, shift uintptr)
TEXT ·warpRowAsm(SB), NOSPLIT, $0-88
	MOVD acc+0(FP), R0; MOVD T+8(FP), R1; MOVD row+16(FP), R2; MOVD n+24(FP), R3
	MOVD ux+32(FP), R4; MOVD uy+40(FP), R5; MOVD dux+48(FP), R6; MOVD duy+56(FP), R7
	MOVD ddux+64(FP), R8; MOVD dduy+72(FP), R9; MOVD shift+80(FP), R13
	Get R1; I64Const $1; I64Sub; Set R10 // mask
	ADDR(R3, 2, R2, R11)                 // end of row
	Loop
		// R12 = the bin's address.
		Get R5; Get R13; I64ShrS; Get R10; I64And; Get R1; I64Mul
		Get R4; Get R13; I64ShrS; Get R10; I64And; I64Add
		I64Const $3; I64Shl; Get R0; I64Add; Set R12
		Get R12; I32WrapI64; F64Load 0(R12); F32Load 0(R2); F64PromoteF32; F64Add; F64Store $0
		ADDTO(R4, R6)
		ADDTO(R5, R7)
		ADDTO(R6, R8)
		ADDTO(R7, R9)
		NEXT(R2, 4, R11)
	End
	RET

// func foldAspectAsm(accT, p *float64, G, T, C uintptr, r float64, i0, i1 uintptr)
TEXT ·foldAspectAsm(SB), NOSPLIT, $0-64
	MOVD accT+0(FP), R0; MOVD p+8(FP), R1; MOVD G+16(FP), R2; MOVD T+24(FP), R3; MOVD C+32(FP), R4
	F64Load r+40(FP); Set F16
	MOVD i0+48(FP), R5; MOVD i1+56(FP), R6
	Get R2; I64Const $3; I64Shl; Set R7 // a row's bytes
	Get R5; Get R7; I64Mul; Get R1; I64Add; Set R8 // row i0 of p
	Loop
		// R9 = row cl of accT.
		Get R5; F64ConvertI64S; F64Const $0.5; F64Add; Get F16; F64Div; I64TruncF64S
		Get R3; I64RemS; Get R4; I64DivS; Get R7; I64Mul; Get R0; I64Add; Set R9
		SUM(R8, R7, R11)
		Loop
			Get R9; I32WrapI64; F64Load 0(R9); F64Load 0(R8); F64Add; F64Store $0
			STEP(R9, 8)
			NEXT(R8, 8, R11)
		End
		Get R5; I64Const $1; I64Add; Tee R5; Get R6; I64LtU; BrIf $0
	End
	RET

// func packPairAsm(z *complex128, a, b *float64, n uintptr)
TEXT ·packPairAsm(SB), NOSPLIT, $0-32
	MOVD z+0(FP), R0; MOVD a+8(FP), R1; MOVD b+16(FP), R2; MOVD n+24(FP), R3
	ADDR(R3, 3, R1, R4) // end of a
	Get R2; I64Eqz
	If
		Loop
			Get R0; I32WrapI64; F64Load 0(R1); F64Store $0
			Get R0; I32WrapI64; F64Const $0.0; F64Store $8
			STEP(R0, 16)
			NEXT(R1, 8, R4)
		End
	Else
		Loop
			Get R0; I32WrapI64; F64Load 0(R1); F64Store $0
			Get R0; I32WrapI64; F64Load 0(R2); F64Store $8
			STEP(R0, 16)
			STEP(R2, 8)
			NEXT(R1, 8, R4)
		End
	End
	RET

// func verticalSumAsm(even, odd *uint64, tail *uint32, ng, nt uintptr, src *uint8, stride, n uintptr)
// n is at least 1.
TEXT ·verticalSumAsm(SB), NOSPLIT, $0-64
	MOVD even+0(FP), R0; MOVD odd+8(FP), R1; MOVD tail+16(FP), R2; MOVD ng+24(FP), R3
	MOVD nt+32(FP), R4; MOVD src+40(FP), R5; MOVD stride+48(FP), R6; MOVD n+56(FP), R7
	I64Const $0x00FF00FF00FF00FF; Set R15
	Loop // rows
		// R8 walks the row's bytes, R9 and R10 the sums' words to R11.
		Get R5; Set R8
		Get R0; Set R9
		Get R1; Set R10
		ADDR(R3, 3, R0, R11)
		Block
			Loop
				Get R9; Get R11; I64GeU; BrIf $1
				I64Load 0(R8); Set R12
				Get R9; I32WrapI64; I64Load 0(R9); Get R12; Get R15; I64And; I64Add; I64Store $0
				Get R10; I32WrapI64; I64Load 0(R10); Get R12; I64Const $8; I64ShrU; Get R15; I64And; I64Add; I64Store $0
				STEP(R8, 8)
				STEP(R9, 8)
				STEP(R10, 8)
				Br $0
			End
		End
		// The tail's counts, R9 to R11.
		Get R2; Set R9
		ADDR(R4, 2, R2, R11)
		Block
			Loop
				Get R9; Get R11; I64GeU; BrIf $1
				Get R9; I32WrapI64; I64Load32U 0(R9); I64Load8U 0(R8); I64Add; I64Store32 $0
				STEP(R8, 1)
				STEP(R9, 4)
				Br $0
			End
		End
		ADDTO(R5, R6)
		COUNTDOWN(R7)
	End
	RET

// func verticalTakeAsm(dst *float32, even, odd *uint64, tail *uint32, ng, nt uintptr, a, b *uint8, wt, wa, wb float32)
TEXT ·verticalTakeAsm(SB), NOSPLIT, $0-76
	MOVD dst+0(FP), R0; MOVD even+8(FP), R1; MOVD odd+16(FP), R2; MOVD tail+24(FP), R3
	MOVD ng+32(FP), R4; MOVD nt+40(FP), R5; MOVD a+48(FP), R6; MOVD b+56(FP), R7
	F32Load wt+64(FP); Set F0
	F32Load wa+68(FP); Set F1
	F32Load wb+72(FP); Set F2
	ADDR(R4, 3, R1, R11) // end of even
	Block
		Loop
			Get R1; Get R11; I64GeU; BrIf $1
			I64Load 0(R1); Set R8
			I64Load 0(R2); Set R9
			TAKE(0, R8, 0)
			TAKE(1, R9, 0)
			TAKE(2, R8, 16)
			TAKE(3, R9, 16)
			TAKE(4, R8, 32)
			TAKE(5, R9, 32)
			TAKE(6, R8, 48)
			TAKE(7, R9, 48)
			Get R1; I32WrapI64; I64Const $0; I64Store $0
			Get R2; I32WrapI64; I64Const $0; I64Store $0
			STEP(R0, 32)
			STEP(R6, 8)
			STEP(R7, 8)
			STEP(R1, 8)
			STEP(R2, 8)
			Br $0
		End
	End
	// The tail, R3 to R11.
	ADDR(R5, 2, R3, R11)
	Block
		Loop
			Get R3; Get R11; I64GeU; BrIf $1
			Get R0; I32WrapI64
			Get F0; I64Load32U 0(R3); F32ConvertI64U; F32Mul
			Get F1; I64Load8U 0(R6); F32ConvertI64U; F32Mul; F32Add
			Get F2; I64Load8U 0(R7); F32ConvertI64U; F32Mul; F32Add
			F32Store $0
			Get R3; I32WrapI64; I64Const $0; I64Store32 $0
			STEP(R0, 4)
			STEP(R6, 1)
			STEP(R7, 1)
			STEP(R3, 4)
			Br $0
		End
	End
	RET

// func absRowMeansAsm(e *float64, rows uintptr, hp *float32, strideBytes, n uintptr)
// rows and n are at least 1.
TEXT ·absRowMeansAsm(SB), NOSPLIT, $0-40
	MOVD e+0(FP), R0; MOVD rows+8(FP), R1; MOVD hp+16(FP), R2; MOVD strideBytes+24(FP), R3; MOVD n+32(FP), R4
	Get R4; F64ConvertI64U; Set F17
	Loop
		F64Const $0.0; Set F16
		Get R2; Set R5
		ADDR(R4, 2, R2, R6)
		Loop
			Get F16; F32Load 0(R5); F64PromoteF32; F64Abs; F64Add; Set F16
			NEXT(R5, 4, R6)
		End
		Get R0; I32WrapI64; Get F16; Get F17; F64Div; F64Store $0
		STEP(R0, 8)
		ADDTO(R2, R3)
		COUNTDOWN(R1)
	End
	RET

// func absColSumsAsm(col *float64, w uintptr, hp *float32, rows uintptr)
// w and rows are at least 1.
TEXT ·absColSumsAsm(SB), NOSPLIT, $0-32
	MOVD col+0(FP), R0; MOVD w+8(FP), R1; MOVD hp+16(FP), R2; MOVD rows+24(FP), R3
	ADDR(R1, 3, R0, R6) // end of col
	Loop
		Get R0; Set R5
		Loop
			Get R5; I32WrapI64; F64Load 0(R5); F32Load 0(R2); F64PromoteF32; F64Abs; F64Add; F64Store $0
			STEP(R2, 4)
			NEXT(R5, 8, R6)
		End
		COUNTDOWN(R3)
	End
	RET

// func profileFoldAsm(p *float64, rowBytes uintptr, hp *float32, w, h uintptr, bins *int, landscape uintptr)
// w and h are at least 1.
TEXT ·profileFoldAsm(SB), NOSPLIT, $0-56
	MOVD p+0(FP), R0; MOVD rowBytes+8(FP), R1; MOVD hp+16(FP), R2; MOVD w+24(FP), R3
	MOVD h+32(FP), R4; MOVD bins+40(FP), R5; MOVD landscape+48(FP), R6
	Get R0; Set R7
	Loop // rows: R2 walks hp to R8 at the row's end
		ADDR(R3, 2, R2, R8)
		Get R6; I64Eqz
		If
			// p[y·G + bins[x]]: R9 walks bins from its start, R7 = row y of p.
			Get R5; Set R9
			Loop
				I64Load 0(R9); I64Const $3; I64Shl; Get R7; I64Add; Set R10
				Get R10; I32WrapI64; F64Load 0(R10); F32Load 0(R2); F64PromoteF32; F64Add; F64Store $0
				STEP(R9, 8)
				NEXT(R2, 4, R8)
			End
			ADDTO(R7, R1)
		Else
			// p[x·G + bins[y]]: R10 from bin bins[y] of row 0, a row a step.
			I64Load 0(R5); I64Const $3; I64Shl; Get R0; I64Add; Set R10
			Loop
				Get R10; I32WrapI64; F64Load 0(R10); F32Load 0(R2); F64PromoteF32; F64Add; F64Store $0
				ADDTO(R10, R1)
				NEXT(R2, 4, R8)
			End
			STEP(R5, 8)
		End
		COUNTDOWN(R4)
	End
	RET

// func countFlatAsm(pix *uint8, stride, x0, x1, y0, y1, step uintptr) uintptr
// x0 < x1 and y0 < y1.
TEXT ·countFlatAsm(SB), NOSPLIT, $0-64
	MOVD pix+0(FP), R0; MOVD stride+8(FP), R1; MOVD x0+16(FP), R2; MOVD x1+24(FP), R3
	MOVD y0+32(FP), R4; MOVD y1+40(FP), R5; MOVD step+48(FP), R6
	I64Const $0; Set R7 // flat
	Get R4; Get R1; I64Mul; Get R0; I64Add; Set R8 // row y
	Get R6; Get R1; I64Mul; Set R9 // step rows, in bytes
	Loop
		// R10 walks the row from x0 to R11 = x1.
		SUM(R8, R2, R10)
		SUM(R8, R3, R11)
		Loop
			I64Load8U 0(R10); Set R12
			Get R7
			Get R12; I64Load8U 1(R10); I64Eq
			Get R12; Get R10; Get R1; I64Add; Set R13; I64Load8U 0(R13); I64Eq
			I32And; I64ExtendI32U; I64Add; Set R7
			Get R10; Get R6; I64Add; Tee R10; Get R11; I64LtU; BrIf $0
		End
		ADDTO(R8, R9)
		Get R4; Get R6; I64Add; Tee R4; Get R5; I64LtU; BrIf $0
	End
	MOVD R7, ret+56(FP)
	RET
