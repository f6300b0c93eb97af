#include "textflag.h"

// The body of blocks256 (blocks.go) for WebAssembly: the compression
// function of compress256 over whole 64-byte blocks, with every loop a
// WebAssembly Loop and the working variables in locals. R0–R15 are i64
// locals; 32-bit values are kept zero-extended in them and the
// arithmetic is i32 (wrapping, as Go's uint32).

// G pushes the 32-bit value held in i64 local r; S pops one into r.
#define G(r) Get r; I32WrapI64
#define S(r) I64ExtendI32U; Set r
// BSWAP turns the i32 on the stack, read little-endian, into the
// big-endian word; it uses R15.
#define BSWAP S(R15); G(R15); I32Const $8; I32Rotl; I32Const $0x00FF00FF; I32And; G(R15); I32Const $8; I32Rotr; I32Const $-16711936 /* 0xFF00FF00 */; I32And; I32Or
// SIG pushes rotr(x, a) ^ rotr(x, b) ^ op(x, c), x in local r.
#define SIG(r, a, b, c, op) G(r); I32Const $a; I32Rotr; G(r); I32Const $b; I32Rotr; I32Xor; G(r); I32Const $c; op; I32Xor
// LDH loads the word at byte offset off of h (R0) into r.
#define LDH(off, r) I32Load off(R0); S(r)
// ADDH adds local r to the word at byte offset off of h (R0).
#define ADDH(r, off) Get R0; I32WrapI64; I32Load off(R0); G(r); I32Add; I32Store $off

// func blocks256Asm(h *[8]uint32, p *byte, n uintptr, w, k *[64]uint32)
// n is at least 1.
TEXT ·blocks256Asm(SB), NOSPLIT, $0-40
	MOVD h+0(FP), R0; MOVD p+8(FP), R1; MOVD n+16(FP), R2
	MOVD w+24(FP), R3; MOVD k+32(FP), R4
	Loop // blocks
		// w[0..15]: the block's big-endian words.
		I64Const $0
		Set R5
		Loop
			Get R3
			Get R5
			I64Add
			I32WrapI64
			Get R1
			Get R5
			I64Add
			I32WrapI64
			I32Load $0
			BSWAP
			I32Store $0
			Get R5
			I64Const $4
			I64Add
			Tee R5
			I64Const $64
			I64LtU
			BrIf $0
		End
		// w[16..63]; R5 points at w[t-16].
		Get R3
		Set R5
		Get R3
		I64Const $192
		I64Add
		Set R6 // w[48]: the last t-16
		Loop
			I32Load 4(R5)
			S(R14) // w[t-15]
			I32Load 56(R5)
			S(R13) // w[t-2]
			Get R5
			I32WrapI64
			I32Load 0(R5)
			SIG(R14, 7, 18, 3, I32ShrU)
			I32Add
			I32Load 36(R5)
			I32Add
			SIG(R13, 17, 19, 10, I32ShrU)
			I32Add
			I32Store $64
			Get R5
			I64Const $4
			I64Add
			Tee R5
			Get R6
			I64LtU
			BrIf $0
		End
		// The rounds: a..h in R6..R13, R5 the byte offset of t.
		LDH(0, R6); LDH(4, R7); LDH(8, R8); LDH(12, R9)
		LDH(16, R10); LDH(20, R11); LDH(24, R12); LDH(28, R13)
		I64Const $0
		Set R5
		Loop
			// t1 = h + Σ1(e) + Ch(e, f, g) + k[t] + w[t] -> R14
			G(R13)
			SIG(R10, 6, 11, 25, I32Rotr)
			I32Add
			G(R10)
			G(R11)
			I32And
			G(R10)
			I32Const $-1
			I32Xor
			G(R12)
			I32And
			I32Xor
			I32Add
			Get R4
			Get R5
			I64Add
			I32WrapI64
			I32Load $0
			I32Add
			Get R3
			Get R5
			I64Add
			I32WrapI64
			I32Load $0
			I32Add
			S(R14)
			// t2 = Σ0(a) + Maj(a, b, c) -> R15
			SIG(R6, 2, 13, 22, I32Rotr)
			G(R6)
			G(R7)
			I32And
			G(R6)
			G(R8)
			I32And
			I32Xor
			G(R7)
			G(R8)
			I32And
			I32Xor
			I32Add
			S(R15)
			Get R12; Set R13; Get R11; Set R12; Get R10; Set R11 // h, g, f = g, f, e
			G(R9); G(R14); I32Add; S(R10) // e = d + t1
			Get R8; Set R9; Get R7; Set R8; Get R6; Set R7 // d, c, b = c, b, a
			G(R14); G(R15); I32Add; S(R6) // a = t1 + t2
			Get R5
			I64Const $4
			I64Add
			Tee R5
			I64Const $256
			I64LtU
			BrIf $0
		End
		ADDH(R6, 0); ADDH(R7, 4); ADDH(R8, 8); ADDH(R9, 12)
		ADDH(R10, 16); ADDH(R11, 20); ADDH(R12, 24); ADDH(R13, 28)
		// The next block, while n-- > 1.
		Get R1; I64Const $64; I64Add; Set R1
		Get R2; I64Const $1; I64Sub; Tee R2; I64Const $0; I64Ne; BrIf $0
	End
	RET
