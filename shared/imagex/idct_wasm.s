#include "textflag.h"

// The bodies of idct8Fast and idct4Fast (idct_fast_wasm.go) for
// WebAssembly: idct8's and idct4's integer arithmetic, operation for
// operation, with WebAssembly's own loops and branches and no bounds
// checks (the wrappers have checked the rows they write). R0–R15 are i64 locals holding Go's int32 values in their low
// 32 bits: adding, subtracting, multiplying and shifting left in i64 give
// the same low 32 bits as Go's wrapping int32 arithmetic, and every
// arithmetic right shift first sign-extends from bit 31 (I64Extend32S),
// so each value is exactly Go's, without an i32 conversion per operand.
//
// The macros below write each unrolled stage once; the assembler expands
// them into the same straight-line instructions, so they cost nothing at
// run time. A pass's stride st is 32 bytes down a column of the 8×8
// int32 block and 4 along a row of it (1 along a row of output bytes).

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

// BIAS: 128<<18 + 1<<17, the level shift and the rounding of the rows.
#define BIAS 33685504

// DESCALE turns the value on the stack into int32(v + round) >> sh.
#define DESCALE(round, sh) I64Const $round; I64Add; I64Extend32S; I64Const $sh; I64ShrS

// CLAMP limits the i32 on the stack to 0..255 (clampLevel), through r.
#define CLAMP(r) S(r); G(r); I64Const $255; G(r); I64Const $255; I64LtS; Select; S(r); G(r); I64Const $0; G(r); I64Const $0; I64GtS; Select

// LD loads blk[off/4] into r; LD8 a column (st 32) or a row (st 4) of
// eight into R3–R10, LD7 the seven of them that idct4 reads (not f4).
#define LD(off, r) I64Load32S off(R0); S(r)
#define LD7(st) LD(0, R3); LD(st, R4); LD(2*st, R5); LD(3*st, R6); LD(5*st, R8); LD(6*st, R9); LD(7*st, R10)
#define LD8(st) LD(0, R3); LD(st, R4); LD(2*st, R5); LD(3*st, R6); LD(4*st, R7); LD(5*st, R8); LD(6*st, R9); LD(7*st, R10)

// ACZERO7 pushes whether R4–R6 and R8–R10 (the AC terms idct4 reads)
// are all zero, ACZERO8 whether R4–R10 are.
#define ACZERO7 G(R4); G(R5); I64Or; G(R6); I64Or; G(R8); I64Or; G(R9); I64Or; G(R10); I64Or; I64Eqz
#define ACZERO8 G(R4); G(R5); I64Or; G(R6); I64Or; G(R7); I64Or; G(R8); I64Or; G(R9); I64Or; G(R10); I64Or; I64Eqz

// PUTC stores the i32 pushed by v at byte off of the column at R1; PUTC4
// and PUTC8 store it down the column's first four or all eight rows.
#define PUTC(v, off) Get R1; I32WrapI64; v; I64Store32 $off
#define PUTC4(v) PUTC(v, 0); PUTC(v, 32); PUTC(v, 64); PUTC(v, 96)
#define PUTC8(v) PUTC4(v); PUTC(v, 128); PUTC(v, 160); PUTC(v, 192); PUTC(v, 224)

// DCCOL sets R13 to a flat column's value, (f0·cos4 + 512) >> 10.
#define DCCOL MULC(R3, COS4); DESCALE(512, 10); S(R13)

// The odd parts of the 8-point transform, of f1, f3, f5, f7 in R4, R6,
// R8, R10.
#define ODD0 MULC(R4, COS1); MULC(R6, COS3); I64Add; MULC(R8, COS5); I64Add; MULC(R10, COS7); I64Add
#define ODD1 MULC(R4, COS3); MULC(R6, COS7); I64Sub; MULC(R8, COS1); I64Sub; MULC(R10, COS5); I64Sub
#define ODD2 MULC(R4, COS5); MULC(R6, COS1); I64Sub; MULC(R8, COS7); I64Add; MULC(R10, COS3); I64Add
#define ODD3 MULC(R4, COS7); MULC(R6, COS5); I64Sub; MULC(R8, COS3); I64Add; MULC(R10, COS1); I64Sub

// EVEN: the even part's t0 = (a+c)·cos4 -> R11, t1 = (a-c)·cos4 -> R12,
// p = b·cos2 + d·cos6 -> ra, q = b·cos6 - d·cos2 -> rc (a, b, c, d in
// ra, rb, rc, rd; ra and rc are read before they are overwritten).
#define EVEN(ra, rb, rc, rd) \
	G(ra); G(rc); I64Add; I64Const $COS4; I64Mul; S(R11); \
	G(ra); G(rc); I64Sub; I64Const $COS4; I64Mul; S(R12); \
	MULC(rb, COS2); MULC(rd, COS6); I64Add; S(ra); \
	MULC(rb, COS6); MULC(rd, COS2); I64Sub; S(rc)

// The outputs of a column (OUTC: (v + 512) >> 10 as an int32) and of a
// row (OUTR: the clamped (v + BIAS) >> 18 as a byte) at byte off of R1.
#define OUTC(off) DESCALE(512, 10); I64Store32 $off
#define OUTR(off) DESCALE(BIAS, 18); CLAMP(R5); I64Store8 $off

// PAIR stores OUT(e+o) at byte lo and OUT(e-o) at byte hi, e in R13 and
// o in R14.
#define PAIR(OUT, lo, hi) \
	Get R1; I32WrapI64; G(R13); G(R14); I64Add; OUT(lo); \
	Get R1; I32WrapI64; G(R13); G(R14); I64Sub; OUT(hi)

// STAGE sets e = ea op eb and o = ODD, then stores the output pair k and
// 7-k, st bytes apart.
#define STAGE(ea, op, eb, ODD, OUT, k, st) G(ea); G(eb); op; S(R13); ODD; S(R14); PAIR(OUT, k*st, (7-k)*st)

// IDCT8 is the 8-point transform of f0–f7 in R3–R10 to the outputs OUT,
// st bytes apart (R5 and R9, b and d, are free after EVEN: OUTR's CLAMP
// uses R5).
#define IDCT8(OUT, st) \
	EVEN(R3, R5, R7, R9); \
	STAGE(R11, I64Add, R3, ODD0, OUT, 0, st); \
	STAGE(R12, I64Add, R7, ODD1, OUT, 1, st); \
	STAGE(R12, I64Sub, R7, ODD2, OUT, 2, st); \
	STAGE(R11, I64Sub, R3, ODD3, OUT, 3, st)

// COLS sets R0 to blk's first row, R1 to tmp's, R2 to the end of the
// cols columns to transform and R15 to the end of the row; NEXTCOL steps
// R0 and R1 to the next column and loops while R1 is short of R15.
#define COLS \
	MOVD blk+0(FP), R0; MOVD tmp+32(FP), R1; MOVD cols+24(FP), R2; \
	Get R2; I64Const $2; I64Shl; Get R0; I64Add; Set R2; \
	Get R1; I64Const $32; I64Add; Set R15
#define NEXTCOL Get R0; I64Const $4; I64Add; Set R0; Get R1; I64Const $4; I64Add; Tee R1; Get R15; I64LtU; BrIf $0

// ROWS sets R0 to tmp's first row, R1 to dst's, R2 to the stride and
// R15 to size bytes past tmp; NEXTROW steps R0 and R1 a row and loops
// while R0 is short of R15.
#define ROWS(size) MOVD tmp+32(FP), R0; MOVD dst+8(FP), R1; MOVD stride+16(FP), R2; Get R0; I64Const $size; I64Add; Set R15
#define NEXTROW Get R1; Get R2; I64Add; Set R1; Get R0; I64Const $32; I64Add; Tee R0; Get R15; I64LtU; BrIf $0

// func idct8Asm(blk *[64]int32, dst *uint8, stride, cols uintptr, tmp *[64]int32)
// cols is 0..8; dst has 8 rows of 8 bytes, stride bytes apart.
TEXT ·idct8Asm(SB), NOSPLIT, $0-40
	COLS
	Loop
		Get R0; Get R2; I64LtU
		If
			LD8(32)
			ACZERO8
			If
				// DC only: the column is flat.
				DCCOL
				PUTC8(G(R13))
			Else
				IDCT8(OUTC, 32)
			End
		Else
			// A column past cols: zero.
			PUTC8(I64Const $0)
		End
		NEXTCOL
	End

	ROWS(256)
	Loop
		LD8(4)
		ACZERO8
		If
			// A flat row: eight copies of one level.
			Get R1; I32WrapI64
			MULC(R3, COS4); DESCALE(BIAS, 18); CLAMP(R5)
			I64Const $0x0101010101010101; I64Mul; I64Store $0
		Else
			IDCT8(OUTR, 1)
		End
		NEXTROW
	End
	RET

// G4 pushes (x·ca - y·cb + round) >> sh, x and y in locals.
#define G4(x, ca, y, cb, round, sh) MULC(x, ca); MULC(y, cb); I64Sub; DESCALE(round, sh)

// ODD4 folds idct4's odd terms in pairs into R4–R6, (round, sh) their
// descaling; EVEN4 is then the even part of f0, (f1, f7), (f2, f6),
// (f3, f5) in R3–R6 and the four outputs OUT at bytes 0, st, 2·st and
// 3·st of R1.
#define ODD4(round, sh) \
	G4(R4, COS1, R10, COS7, round, sh); S(R4); \
	G4(R5, COS2, R9, COS6, round, sh); S(R5); \
	G4(R6, COS3, R8, COS5, round, sh); S(R6)
#define EVEN4(OUT, st) \
	EVEN(R3, R4, R5, R6); \
	Get R1; I32WrapI64; G(R11); G(R3); I64Add; OUT(0); \
	Get R1; I32WrapI64; G(R12); G(R5); I64Add; OUT(st); \
	Get R1; I32WrapI64; G(R12); G(R5); I64Sub; OUT(2*st); \
	Get R1; I32WrapI64; G(R11); G(R3); I64Sub; OUT(3*st)

// idct4's outputs: a column's (v + 2^12) >> 13, a row's clamped
// (v + BIAS) >> 18 (through R13, as R5 holds a term still to be read).
#define OUT4C(off) DESCALE(4096, 13); I64Store32 $off
#define OUT4R(off) DESCALE(BIAS, 18); CLAMP(R13); I64Store8 $off

// func idct4Asm(blk *[64]int32, dst *uint8, stride, cols uintptr, tmp *[64]int32)
// idct4's body: cols is 0..8; dst has 4 rows of 4 bytes, stride bytes
// apart; tmp's first 32 entries are its 4×8 scratch (column 4, which no
// row reads, is left as it is).
TEXT ·idct4Asm(SB), NOSPLIT, $0-40
	COLS
	I64Const $0
	Set R14 // u
	Loop
		Get R14; I64Const $4; I64Ne
		If
			Get R0; Get R2; I64LtU
			If
				LD7(32)
				ACZERO7
				If
					DCCOL
					PUTC4(G(R13))
				Else
					ODD4(512, 10)
					// f0 << pass1, as idct4 passes it to even4.
					G(R3); I64Const $3; I64Shl; S(R3)
					EVEN4(OUT4C, 32)
				End
			Else
				PUTC4(I64Const $0)
			End
		End
		Get R14; I64Const $1; I64Add; Set R14
		NEXTCOL
	End

	ROWS(128)
	Loop
		LD7(4)
		ODD4(4096, 13)
		EVEN4(OUT4R, 1)
		NEXTROW
	End
	RET
