#include "go_asm.h"
#include "textflag.h"

// func acRunAsm(r *bitReader, fast *[512]int32, q, blk *[64]int32, k, last int, zz *[64]uint8) uint64
//
// Registers: R0 r, R1 fast, R2 q, R3 blk, R4 k, R5 last, R6 acc, R7 n,
// R8 pos, R9 pad, R10 len(data), R11 &data[0], R12 hasAC, R13 outcome,
// R14 and R15 scratch.
TEXT ·acRunAsm(SB), NOSPLIT, $0-64
	MOVD r+0(FP), R0
	MOVD fast+8(FP), R1
	MOVD q+16(FP), R2
	MOVD blk+24(FP), R3
	MOVD k+32(FP), R4
	MOVD last+40(FP), R5
	MOVD bitReader_acc(R0), R6
	MOVD bitReader_n(R0), R7
	MOVD bitReader_pos(R0), R8
	MOVD bitReader_pad(R0), R9
	MOVD (bitReader_data+8)(R0), R10
	MOVD bitReader_data(R0), R11
	I64Const $0
	Set R12
	Block // exit: R13 holds the outcome
		Loop
			// Fewer than 32 bits: fill's fast path, or back to Go.
			Get R7
			I64Const $32
			I64LtU
			If
				I64Const $3 // acNeedFill
				Set R13
				Get R9
				I64Eqz
				Get R8
				I64Const $8
				I64Add
				Get R10
				I64LeU
				I32And
				I32Eqz
				BrIf $2
				// v = the 8 bytes at data[pos], big-endian.
				Get R11
				Get R8
				I64Add
				I32WrapI64
				I64Load $0
				Set R14
				Get R14
				I64Const $8
				I64ShrU
				I64Const $0x00FF00FF00FF00FF
				I64And
				Get R14
				I64Const $0x00FF00FF00FF00FF
				I64And
				I64Const $8
				I64Shl
				I64Or
				Set R14
				Get R14
				I64Const $16
				I64ShrU
				I64Const $0x0000FFFF0000FFFF
				I64And
				Get R14
				I64Const $0x0000FFFF0000FFFF
				I64And
				I64Const $16
				I64Shl
				I64Or
				I64Const $32
				I64Rotl
				Set R14
				// A byte of v is 0xFF exactly when that byte of ^v is zero.
				Get R14
				I64Const $-1
				I64Xor
				Tee R15
				I64Const $0x0101010101010101
				I64Sub
				Get R15
				I64Const $-1
				I64Xor
				I64And
				I64Const $-0x7F7F7F7F7F7F7F80 // 0x8080808080808080
				I64And
				I64Eqz
				I32Eqz
				BrIf $2
				// s = 8·((64-n)/8) bits, s/8 bytes.
				I64Const $64
				Get R7
				I64Sub
				I64Const $-8
				I64And
				Set R15
				// acc = acc<<s | v>>(64-s); a shift by 64 leaves 0 in Go.
				I64Const $0
				Get R6
				Get R15
				I64Shl
				Get R15
				I64Const $64
				I64Eq
				Select
				Get R14
				I64Const $64
				Get R15
				I64Sub
				I64ShrU
				I64Or
				Set R6
				Get R7
				Get R15
				I64Add
				Set R7
				Get R8
				Get R15
				I64Const $3
				I64ShrU
				I64Add
				Set R8
			End
			// f = fast[(acc >> (n-9)) & 511]
			Get R6
			Get R7
			I64Const $9
			I64Sub
			I64ShrU
			I64Const $511
			I64And
			I64Const $2
			I64Shl
			Get R1
			I64Add
			I32WrapI64
			I32Load $0
			I64ExtendI32S
			Tee R14
			I64Eqz
			If
				I64Const $1 // acSlow
				Set R13
				Br $2
			End
			// n -= f & 0xFF; k += (f >> 8) & 0xFF
			Get R7
			Get R14
			I64Const $255
			I64And
			I64Sub
			Set R7
			Get R4
			Get R14
			I64Const $8
			I64ShrS
			I64Const $255
			I64And
			I64Add
			Tee R4
			I64Const $63
			I64GtS
			If
				I64Const $2 // acPast63
				Set R13
				Br $2
			End
			Get R4
			Get R5
			I64LeS
			If
				// blk[zz[k]] = (f >> 16) * q[k]
				MOVD zz+48(FP), R15
				Get R15
				Get R4
				I64Add
				I32WrapI64
				I64Load8U $0
				I64Const $2
				I64Shl
				Get R3
				I64Add
				I32WrapI64
				Get R14
				I32WrapI64
				I32Const $16
				I32ShrS
				Get R4
				I64Const $2
				I64Shl
				Get R2
				I64Add
				I32WrapI64
				I32Load $0
				I32Mul
				I32Store $0
				I64Const $1
				Set R12
			End
			Get R4
			I64Const $1
			I64Add
			Tee R4
			I64Const $64
			I64LtS
			BrIf $0
		End
		I64Const $0 // acDone
		Set R13
	End
	MOVD R6, bitReader_acc(R0)
	MOVD R7, bitReader_n(R0)
	MOVD R8, bitReader_pos(R0)
	Get SP
	Get R4
	Get R12
	I64Const $16
	I64Shl
	I64Or
	Get R13
	I64Const $32
	I64Shl
	I64Or
	I64Store ret+56(FP)
	RET
