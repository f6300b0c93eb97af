#include "textflag.h"

// The bodies of idct8Fast and idct4Fast (idct_fast_wasm.go) for
// WebAssembly: idct8's and idct4's integer arithmetic, operation for
// operation, with WebAssembly's own loops and branches and no bounds
// checks (the wrappers have checked the rows they write). R0–R15 are i64 locals holding Go's int32 values in their low
// 32 bits: adding, subtracting, multiplying and shifting left in i64 give
// the same low 32 bits as Go's wrapping int32 arithmetic, and every
// arithmetic right shift first sign-extends from bit 31 (I64Extend32S),
// so each value is exactly Go's, without an i32 conversion per operand.

#define G(r) Get r
#define S(r) Set r
#define MULC(r, c) G(r); I64Const $c; I64Mul

// idct's constants (idct.go): cos(kπ/16)·2^13.
#define COS1 8035
#define COS2 7568
#define COS3 6811
#define COS4 5793
#define COS5 4551
#define COS6 3135
#define COS7 1598

// The odd parts of the 8-point transform, of f1, f3, f5, f7 in r1, r3,
// r5, r7.
#define ODD0(r1, r3, r5, r7) MULC(r1, COS1); MULC(r3, COS3); I64Add; MULC(r5, COS5); I64Add; MULC(r7, COS7); I64Add
#define ODD1(r1, r3, r5, r7) MULC(r1, COS3); MULC(r3, COS7); I64Sub; MULC(r5, COS1); I64Sub; MULC(r7, COS5); I64Sub
#define ODD2(r1, r3, r5, r7) MULC(r1, COS5); MULC(r3, COS1); I64Sub; MULC(r5, COS7); I64Add; MULC(r7, COS3); I64Add
#define ODD3(r1, r3, r5, r7) MULC(r1, COS7); MULC(r3, COS5); I64Sub; MULC(r5, COS3); I64Add; MULC(r7, COS1); I64Sub

// EVEN: the even part's t0 = (a+c)·cos4 -> R11, t1 = (a-c)·cos4 -> R12,
// p = b·cos2 + d·cos6 -> ra, q = b·cos6 - d·cos2 -> rc (a, b, c, d in
// ra, rb, rc, rd; ra and rc are read before they are overwritten).
#define EVEN(ra, rb, rc, rd) \
	G(ra); G(rc); I64Add; I64Const $COS4; I64Mul; S(R11); \
	G(ra); G(rc); I64Sub; I64Const $COS4; I64Mul; S(R12); \
	MULC(rb, COS2); MULC(rd, COS6); I64Add; S(ra); \
	MULC(rb, COS6); MULC(rd, COS2); I64Sub; S(rc)

// PAIR1 stores (e+o+r)>>10 at byte lo and (e-o+r)>>10 at byte hi of the
// column at R1, e in R13 and o in R14.
#define PAIR1(lo, hi) \
	Get R1; I32WrapI64; G(R13); G(R14); I64Add; I64Const $512; I64Add; I64Extend32S; I64Const $10; I64ShrS; I64Store32 $lo; \
	Get R1; I32WrapI64; G(R13); G(R14); I64Sub; I64Const $512; I64Add; I64Extend32S; I64Const $10; I64ShrS; I64Store32 $hi

// CLAMP limits the i32 on the stack to 0..255 (clampLevel), through R5.
#define CLAMP S(R5); G(R5); I64Const $255; G(R5); I64Const $255; I64LtS; Select; S(R5); G(R5); I64Const $0; G(R5); I64Const $0; I64GtS; Select
// BIAS: 128<<18 + 1<<17, the level shift and the rounding of the rows.
#define BIAS 33685504
// PAIR2 stores the clamped (e+o+BIAS)>>18 at byte lo and (e-o+BIAS)>>18
// at byte hi of the row at R1.
#define PAIR2(lo, hi) \
	Get R1; I32WrapI64; G(R13); G(R14); I64Add; I64Const $BIAS; I64Add; I64Extend32S; I64Const $18; I64ShrS; CLAMP; I64Store8 $lo; \
	Get R1; I32WrapI64; G(R13); G(R14); I64Sub; I64Const $BIAS; I64Add; I64Extend32S; I64Const $18; I64ShrS; CLAMP; I64Store8 $hi

// func idct8Asm(blk *[64]int32, dst *uint8, stride, cols uintptr, tmp *[64]int32)
// cols is 0..8; dst has 8 rows of 8 bytes, stride bytes apart.
TEXT ·idct8Asm(SB), NOSPLIT, $0-40
	// Columns: R0 walks blk's first row, R1 tmp's; R2 is the end of the
	// columns to transform, R15 the end of the row.
	MOVD blk+0(FP), R0
	MOVD tmp+32(FP), R1
	MOVD cols+24(FP), R2
	Get R2
	I64Const $2
	I64Shl
	Get R0
	I64Add
	Set R2
	Get R1
	I64Const $32
	I64Add
	Set R15
	Loop
		Get R0
		Get R2
		I64LtU
		If
			I64Load32S 0(R0)
			S(R3)
			I64Load32S 32(R0)
			S(R4)
			I64Load32S 64(R0)
			S(R5)
			I64Load32S 96(R0)
			S(R6)
			I64Load32S 128(R0)
			S(R7)
			I64Load32S 160(R0)
			S(R8)
			I64Load32S 192(R0)
			S(R9)
			I64Load32S 224(R0)
			S(R10)
			G(R4)
			G(R5)
			I64Or
			G(R6)
			I64Or
			G(R7)
			I64Or
			G(R8)
			I64Or
			G(R9)
			I64Or
			G(R10)
			I64Or
			I64Eqz
			If
				// DC only: the column is flat.
				MULC(R3, COS4)
				I64Const $512
				I64Add
				I64Extend32S
				I64Const $10
				I64ShrS
				S(R13)
				Get R1; I32WrapI64; G(R13); I64Store32 $0
				Get R1; I32WrapI64; G(R13); I64Store32 $32
				Get R1; I32WrapI64; G(R13); I64Store32 $64
				Get R1; I32WrapI64; G(R13); I64Store32 $96
				Get R1; I32WrapI64; G(R13); I64Store32 $128
				Get R1; I32WrapI64; G(R13); I64Store32 $160
				Get R1; I32WrapI64; G(R13); I64Store32 $192
				Get R1; I32WrapI64; G(R13); I64Store32 $224
			Else
				EVEN(R3, R5, R7, R9)
				G(R11); G(R3); I64Add; S(R13)
				ODD0(R4, R6, R8, R10)
				S(R14)
				PAIR1(0, 224)
				G(R12); G(R7); I64Add; S(R13)
				ODD1(R4, R6, R8, R10)
				S(R14)
				PAIR1(32, 192)
				G(R12); G(R7); I64Sub; S(R13)
				ODD2(R4, R6, R8, R10)
				S(R14)
				PAIR1(64, 160)
				G(R11); G(R3); I64Sub; S(R13)
				ODD3(R4, R6, R8, R10)
				S(R14)
				PAIR1(96, 128)
			End
		Else
			// A column past cols: zero.
			Get R1; I32WrapI64; I64Const $0; I64Store32 $0
			Get R1; I32WrapI64; I64Const $0; I64Store32 $32
			Get R1; I32WrapI64; I64Const $0; I64Store32 $64
			Get R1; I32WrapI64; I64Const $0; I64Store32 $96
			Get R1; I32WrapI64; I64Const $0; I64Store32 $128
			Get R1; I32WrapI64; I64Const $0; I64Store32 $160
			Get R1; I32WrapI64; I64Const $0; I64Store32 $192
			Get R1; I32WrapI64; I64Const $0; I64Store32 $224
		End
		Get R0
		I64Const $4
		I64Add
		Set R0
		Get R1
		I64Const $4
		I64Add
		Tee R1
		Get R15
		I64LtU
		BrIf $0
	End

	// Rows: R0 walks tmp's rows, R1 dst's; R15 is the end of tmp.
	MOVD tmp+32(FP), R0
	MOVD dst+8(FP), R1
	MOVD stride+16(FP), R2
	Get R0
	I64Const $256
	I64Add
	Set R15
	Loop
		I64Load32S 0(R0)
		S(R3)
		I64Load32S 4(R0)
		S(R4)
		I64Load32S 8(R0)
		S(R5)
		I64Load32S 12(R0)
		S(R6)
		I64Load32S 16(R0)
		S(R7)
		I64Load32S 20(R0)
		S(R8)
		I64Load32S 24(R0)
		S(R9)
		I64Load32S 28(R0)
		S(R10)
		G(R4)
		G(R5)
		I64Or
		G(R6)
		I64Or
		G(R7)
		I64Or
		G(R8)
		I64Or
		G(R9)
		I64Or
		G(R10)
		I64Or
		I64Eqz
		If
			// A flat row: eight copies of one level.
			Get R1
			I32WrapI64
			MULC(R3, COS4)
			I64Const $BIAS
			I64Add
			I64Extend32S
			I64Const $18
			I64ShrS
			CLAMP
			I64Const $0x0101010101010101
			I64Mul
			I64Store $0
		Else
			EVEN(R3, R5, R7, R9)
			// R5 and R9 (b and d) are free from here: CLAMP uses R5.
			G(R11); G(R3); I64Add; S(R13)
			ODD0(R4, R6, R8, R10)
			S(R14)
			PAIR2(0, 7)
			G(R12); G(R7); I64Add; S(R13)
			ODD1(R4, R6, R8, R10)
			S(R14)
			PAIR2(1, 6)
			G(R12); G(R7); I64Sub; S(R13)
			ODD2(R4, R6, R8, R10)
			S(R14)
			PAIR2(2, 5)
			G(R11); G(R3); I64Sub; S(R13)
			ODD3(R4, R6, R8, R10)
			S(R14)
			PAIR2(3, 4)
		End
		Get R1
		Get R2
		I64Add
		Set R1
		Get R0
		I64Const $32
		I64Add
		Tee R0
		Get R15
		I64LtU
		BrIf $0
	End
	RET

// CLAMP13 is CLAMP through R13.
#define CLAMP13 S(R13); G(R13); I64Const $255; G(R13); I64Const $255; I64LtS; Select; S(R13); G(R13); I64Const $0; G(R13); I64Const $0; I64GtS; Select
// G4 pushes (x·ca - y·cb + round) >> sh, x and y in locals.
#define G4(x, ca, y, cb, round, sh) MULC(x, ca); MULC(y, cb); I64Sub; I64Const $round; I64Add; I64Extend32S; I64Const $sh; I64ShrS
// COLSTORE stores (v + 2^12) >> 13 at byte off of the column at R1;
// ROWBYTE the clamped (v + BIAS) >> 18 at byte off of the row at R1.
#define COLSTORE(off) I64Const $4096; I64Add; I64Extend32S; I64Const $13; I64ShrS; I64Store32 $off
#define ROWBYTE(off) I64Const $BIAS; I64Add; I64Extend32S; I64Const $18; I64ShrS; CLAMP13; I64Store8 $off

// func idct4Asm(blk *[64]int32, dst *uint8, stride, cols uintptr, tmp *[64]int32)
// idct4's body: cols is 0..8; dst has 4 rows of 4 bytes, stride bytes
// apart; tmp's first 32 entries are its 4×8 scratch (column 4, which no
// row reads, is left as it is).
TEXT ·idct4Asm(SB), NOSPLIT, $0-40
	MOVD blk+0(FP), R0
	MOVD tmp+32(FP), R1
	MOVD cols+24(FP), R2
	Get R2
	I64Const $2
	I64Shl
	Get R0
	I64Add
	Set R2
	Get R1
	I64Const $32
	I64Add
	Set R15
	I64Const $0
	Set R14 // u
	Loop
		Get R14
		I64Const $4
		I64Ne
		If
			Get R0
			Get R2
			I64LtU
			If
				I64Load32S 0(R0)
				S(R3)
				I64Load32S 32(R0)
				S(R4)
				I64Load32S 64(R0)
				S(R5)
				I64Load32S 96(R0)
				S(R6)
				I64Load32S 160(R0)
				S(R8)
				I64Load32S 192(R0)
				S(R9)
				I64Load32S 224(R0)
				S(R10)
				G(R4)
				G(R5)
				I64Or
				G(R6)
				I64Or
				G(R8)
				I64Or
				G(R9)
				I64Or
				G(R10)
				I64Or
				I64Eqz
				If
					MULC(R3, COS4)
					I64Const $512
					I64Add
					I64Extend32S
					I64Const $10
					I64ShrS
					S(R13)
					Get R1; I32WrapI64; G(R13); I64Store32 $0
					Get R1; I32WrapI64; G(R13); I64Store32 $32
					Get R1; I32WrapI64; G(R13); I64Store32 $64
					Get R1; I32WrapI64; G(R13); I64Store32 $96
				Else
					G4(R4, COS1, R10, COS7, 512, 10)
					S(R4)
					G4(R5, COS2, R9, COS6, 512, 10)
					S(R5)
					G4(R6, COS3, R8, COS5, 512, 10)
					S(R6)
					G(R3)
					I64Const $3
					I64Shl
					S(R3)
					EVEN(R3, R4, R5, R6)
					Get R1; I32WrapI64; G(R11); G(R3); I64Add; COLSTORE(0)
					Get R1; I32WrapI64; G(R12); G(R5); I64Add; COLSTORE(32)
					Get R1; I32WrapI64; G(R12); G(R5); I64Sub; COLSTORE(64)
					Get R1; I32WrapI64; G(R11); G(R3); I64Sub; COLSTORE(96)
				End
			Else
				Get R1; I32WrapI64; I64Const $0; I64Store32 $0
				Get R1; I32WrapI64; I64Const $0; I64Store32 $32
				Get R1; I32WrapI64; I64Const $0; I64Store32 $64
				Get R1; I32WrapI64; I64Const $0; I64Store32 $96
			End
		End
		Get R14
		I64Const $1
		I64Add
		Set R14
		Get R0
		I64Const $4
		I64Add
		Set R0
		Get R1
		I64Const $4
		I64Add
		Tee R1
		Get R15
		I64LtU
		BrIf $0
	End

	MOVD tmp+32(FP), R0
	MOVD dst+8(FP), R1
	MOVD stride+16(FP), R2
	Get R0
	I64Const $128
	I64Add
	Set R15
	Loop
		I64Load32S 0(R0)
		S(R3)
		I64Load32S 4(R0)
		S(R4)
		I64Load32S 8(R0)
		S(R5)
		I64Load32S 12(R0)
		S(R6)
		I64Load32S 20(R0)
		S(R8)
		I64Load32S 24(R0)
		S(R9)
		I64Load32S 28(R0)
		S(R10)
		G4(R4, COS1, R10, COS7, 4096, 13)
		S(R4)
		G4(R5, COS2, R9, COS6, 4096, 13)
		S(R5)
		G4(R6, COS3, R8, COS5, 4096, 13)
		S(R6)
		EVEN(R3, R4, R5, R6)
		Get R1; I32WrapI64; G(R11); G(R3); I64Add; ROWBYTE(0)
		Get R1; I32WrapI64; G(R12); G(R5); I64Add; ROWBYTE(1)
		Get R1; I32WrapI64; G(R12); G(R5); I64Sub; ROWBYTE(2)
		Get R1; I32WrapI64; G(R11); G(R3); I64Sub; ROWBYTE(3)
		Get R1
		Get R2
		I64Add
		Set R1
		Get R0
		I64Const $32
		I64Add
		Tee R0
		Get R15
		I64LtU
		BrIf $0
	End
	RET
