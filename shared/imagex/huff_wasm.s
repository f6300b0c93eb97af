#include "go_asm.h"
#include "textflag.h"

// huffMCUsAsm, the MCU kernel of baselineMCUs (huff_wasm.go) for
// WebAssembly: the entropy decoding of a run of a sequential scan's MCUs,
// block after block in the slots' order — the DC difference, then the AC
// coefficients (stored dequantised for a Y block, read past for a chroma
// block) up to the end-of-block code, refilling the bit buffer as
// bitReader.fill does — with WebAssembly's own loops, returning to Go only
// for a block's inverse DCT, an error or the run's end. It does no bounds
// checks: baselineMCUs passes whole tables and blocks and checks once that
// the output plane holds every block inside bw×bh (a Y block outside it
// fails after its DC); zigzag indices are below 64 and lookahead indices
// below 512 by construction; the entropy-coded data is read only below
// its length. Each step is baselineBlockGo's, in the same order, so the
// bit buffer's state, the coefficients, the pixels and the errors are the
// same (TestHuffBlockMatchesGo, FuzzHuffBlockMatchesGo). The block flags
// (huffY, huffOutside) come from the Go constants through go_asm.h.
//
// Registers (i64 locals): R0 the bitReader, R1 its acc, R2 its n, R3 the
// Huffman table, R4 the quantisation table, R5 the block, R6 k, R7 the
// last coded position, R8 the zigzag table; R9–R15 scratch.
//
// Field offsets (TestHuffBlockLayout holds them to the Go types):
// bitReader: data 0, len(data) 8, pos 24, acc 32, n 40, pad 48.
// huffTable: lut 0 (uint16), fast 1024 (int32), maxcode 3072 (int32),
// valptr 3144 (int32), vals 3212 (uint8).

// FAIL returns the error status code.
#define FAIL(code) I64Const $code; Set R7; MOVD R7, ret+64(FP); RET

// ZEROBYTE feeds a zero byte after a marker or the end of data:
// acc <<= 8, n += 8, pad++.
#define ZEROBYTE \
	Get R1; I64Const $8; I64Shl; Set R1; \
	Get R2; I64Const $8; I64Add; Set R2; \
	Get R0; I32WrapI64; I64Load 48(R0); I64Const $1; I64Add; I64Store $48

// FILL is bitReader.fill: eight bytes at once when pad is 0, eight bytes
// remain and none is 0xFF; otherwise byte by byte until n > 56, removing
// stuffed zeros and feeding zeros at a marker or the end. The shift
// acc<<(8k) is made as acc<<(8k-1)<<1: for k = 8 Go's shift gives 0,
// WebAssembly's would take the count modulo 64.
#define FILL \
	Block; \
	I64Load 48(R0); I64Eqz; \
	If; \
		I64Load 24(R0); Set R9; \
		Get R9; I64Const $8; I64Add; I64Load 8(R0); I64LeS; \
		If; \
			I64Load 0(R0); Get R9; I64Add; Set R10; \
			I64Load 0(R10); Set R10; \
			Get R10; I64Const $-1; I64Xor; I64Const $0x0101010101010101; I64Sub; Get R10; I64And; I64Const $-0x7f7f7f7f7f7f7f80; I64And; I64Eqz; \
			If; \
				Get R10; I64Const $0x00FF00FF00FF00FF; I64And; I64Const $8; I64Shl; \
				Get R10; I64Const $8; I64ShrU; I64Const $0x00FF00FF00FF00FF; I64And; I64Or; Set R10; \
				Get R10; I64Const $0x0000FFFF0000FFFF; I64And; I64Const $16; I64Shl; \
				Get R10; I64Const $16; I64ShrU; I64Const $0x0000FFFF0000FFFF; I64And; I64Or; \
				I64Const $32; I64Rotl; Set R10; \
				I64Const $64; Get R2; I64Sub; I64Const $3; I64ShrU; Set R11; \
				Get R11; I64Const $3; I64Shl; Set R12; \
				Get R1; Get R12; I64Const $1; I64Sub; I64Shl; I64Const $1; I64Shl; \
				Get R10; I64Const $64; Get R12; I64Sub; I64ShrU; I64Or; Set R1; \
				Get R2; Get R12; I64Add; Set R2; \
				Get R0; I32WrapI64; Get R9; Get R11; I64Add; I64Store $24; \
				Br $3; \
			End; \
		End; \
	End; \
	Loop; \
		Get R2; I64Const $56; I64GtU; BrIf $1; \
		I64Load 48(R0); I64Const $0; I64GtS; \
		I64Load 24(R0); I64Load 8(R0); I64GeS; \
		I32Or; \
		If; \
			ZEROBYTE; \
			Br $1; \
		End; \
		I64Load 24(R0); Set R9; \
		I64Load 0(R0); Get R9; I64Add; Set R10; \
		I64Load8U 0(R10); Set R10; \
		Get R10; I64Const $255; I64Eq; \
		If; \
			I64Const $0; Set R11; \
			Get R9; I64Const $1; I64Add; I64Load 8(R0); I64LtS; \
			If; \
				I64Load 0(R0); Get R9; I64Add; Set R12; \
				I64Load8U 1(R12); I64Eqz; \
				If; \
					I64Const $1; Set R11; \
				End; \
			End; \
			Get R11; I64Eqz; \
			If; \
				ZEROBYTE; \
				Br $2; \
			End; \
			Get R0; I32WrapI64; Get R9; I64Const $2; I64Add; I64Store $24; \
		Else; \
			Get R0; I32WrapI64; Get R9; I64Const $1; I64Add; I64Store $24; \
		End; \
		Get R1; I64Const $8; I64Shl; Get R10; I64Or; Set R1; \
		Get R2; I64Const $8; I64Add; Set R2; \
		Br $0; \
	End; \
	End

// REFILL fills when fewer than 32 bits are buffered.
#define REFILL Get R2; I64Const $32; I64LtU; If; FILL; End

// PEEK sets R9 to the next nine bits (the lookahead index).
#define PEEK Get R1; Get R2; I64Const $9; I64Sub; I64ShrU; I64Const $511; I64And; Set R9

// DECODE sets R10 to the symbol of the next code of table R3 (lookahead
// index in R9), or fails with -1 (errBadCode): the lookahead table,
// then decodeLong's walk over the lengths 10 to 16.
#define DECODE \
	Get R9; I64Const $1; I64Shl; Get R3; I64Add; Set R10; \
	I64Load16U 0(R10); Set R10; \
	Get R10; I64Eqz; \
	If; \
		Block; \
		I64Const $10; Set R11; \
		Loop; \
			Get R1; Get R2; Get R11; I64Sub; I64ShrU; I64Const $1; Get R11; I64Shl; I64Const $1; I64Sub; I64And; Set R12; \
			Get R11; I64Const $2; I64Shl; Get R3; I64Add; Set R13; \
			Get R12; I64Load32S 3072(R13); I64LeS; \
			If; \
				Get R2; Get R11; I64Sub; Set R2; \
				I64Load32S 3144(R13); Get R12; I64Add; I64Const $255; I64And; Get R3; I64Add; Set R13; \
				I64Load8U 3212(R13); Set R10; \
				Br $2; \
			End; \
			Get R11; I64Const $1; I64Add; Tee R11; I64Const $16; I64LeU; BrIf $0; \
		End; \
		FAIL(-1); \
		End; \
	Else; \
		Get R2; Get R10; I64Const $8; I64ShrU; I64Sub; Set R2; \
		Get R10; I64Const $255; I64And; Set R10; \
	End

// TAKE sets v to the next s bits (s in a register): n -= s,
// v = (acc>>n) & (1<<s - 1).
#define TAKE(v, s) \
	Get R2; Get s; I64Sub; Set R2; \
	Get R1; Get R2; I64ShrU; I64Const $1; Get s; I64Shl; I64Const $1; I64Sub; I64And; Set v

// EXTEND turns the s magnitude bits in v into the signed value.
#define EXTEND(v, s) \
	Get v; I64Const $1; Get s; I64Const $1; I64Sub; I64Shl; I64LtS; \
	If; Get v; I64Const $-1; Get s; I64Shl; I64Add; I64Const $1; I64Add; Set v; End

// STORECOEF stores int32(R12)·q[k] at blk[zigzag[k]], sets the last
// position to k and advances k.
#define STORECOEF \
	Get R6; Get R8; I64Add; Set R13; \
	I64Load8U 0(R13); I64Const $2; I64Shl; Get R5; I64Add; I32WrapI64; \
	Get R12; I32WrapI64; \
	Get R6; I64Const $2; I64Shl; Get R4; I64Add; Set R13; \
	I32Load 0(R13); I32Mul; I32Store $0; \
	Get R6; Set R7; \
	Get R6; I64Const $1; I64Add; Set R6

// PASTK fails with -3 when k > 63.
#define PASTK Get R6; I64Const $63; I64GtU; If; FAIL(-3); End

// FASTF sets R10 to fast[R9] (sign-extended).
#define FASTF Get R9; I64Const $2; I64Shl; Get R3; I64Add; Set R10; I64Load32S 1024(R10); Set R10

// ACNEXT leaves the AC loop (br 1) once k reaches 64; otherwise it
// refills, peeks and pushes whether the fast AC table has the code
// (R10: its entry).
#define ACNEXT Get R6; I64Const $64; I64GeU; BrIf $1; REFILL; PEEK; FASTF; Get R10; I64Eqz; I32Eqz

// FASTRUN takes a fast entry's code length from n and pushes k plus its
// run.
#define FASTRUN \
	Get R2; Get R10; I64Const $255; I64And; I64Sub; Set R2; \
	Get R6; Get R10; I64Const $8; I64ShrU; I64Const $255; I64And; I64Add

// RUNSIZE decodes a run/size symbol into R10 (run) and R11 (size); a
// size of 0 ends the block (br 2) or, for ZRL, skips 16 and continues
// the loop (br 1).
#define RUNSIZE \
	DECODE; \
	Get R10; I64Const $15; I64And; Set R11; \
	Get R10; I64Const $4; I64ShrU; Set R10; \
	Get R11; I64Eqz; \
	If; Get R10; I64Const $15; I64Ne; BrIf $2; Get R6; I64Const $16; I64Add; Set R6; Br $1; End

// CLAMPB limits the i32 on the stack to 0..255 (clampLevel), through R14.
#define CLAMPB I64ExtendI32S; Set R14; Get R14; I32WrapI64; I32Const $255; Get R14; I32WrapI64; I32Const $255; I32LtS; Select; I64ExtendI32S; Set R14; Get R14; I32WrapI64; I32Const $0; Get R14; I32WrapI64; I32Const $0; I32GtS; Select

// ICOL sets top and bot to idct2Col(blk, u): the column's first pass,
// top and bottom half means (u's byte offset in blk: off).
#define ICOL(off, top, bot) \
	I32Load off(R5); I32Const $5793; I32Mul; I32Const $512; I32Add; I64ExtendI32S; Set R13; \
	I32Load (32+off)(R5); I32Const $5249; I32Mul; \
	I32Load (96+off)(R5); I32Const $-1843; I32Mul; I32Add; \
	I32Load (160+off)(R5); I32Const $1232; I32Mul; I32Add; \
	I32Load (224+off)(R5); I32Const $-1044; I32Mul; I32Add; I64ExtendI32S; Set R14; \
	Get R13; I32WrapI64; Get R14; I32WrapI64; I32Add; I32Const $10; I32ShrS; I64ExtendI32S; Set top; \
	Get R13; I32WrapI64; Get R14; I32WrapI64; I32Sub; I32Const $10; I32ShrS; I64ExtendI32S; Set bot

// IROW writes idct2's two means of one row at the address in R15:
// c = t0·cos4 + bias (in R13), d = Σ t·quad (in t0's register, no longer
// needed), then clamp((c±d)>>18).
#define IROW(t0, t1, t3, t5, t7) \
	Get t0; I32WrapI64; I32Const $5793; I32Mul; I32Const $33685504; I32Add; I64ExtendI32S; Set R13; \
	Get t1; I32WrapI64; I32Const $5249; I32Mul; \
	Get t3; I32WrapI64; I32Const $-1843; I32Mul; I32Add; \
	Get t5; I32WrapI64; I32Const $1232; I32Mul; I32Add; \
	Get t7; I32WrapI64; I32Const $-1044; I32Mul; I32Add; I64ExtendI32S; Set t0; \
	Get R15; I32WrapI64; Get R13; I32WrapI64; Get t0; I32WrapI64; I32Add; I32Const $18; I32ShrS; CLAMPB; I32Store8 $0; \
	Get R15; I32WrapI64; Get R13; I32WrapI64; Get t0; I32WrapI64; I32Sub; I32Const $18; I32ShrS; CLAMPB; I32Store8 $1

// Field offsets of mcuRun (R9 its address while loaded): m 0, end 8,
// mx 16, mxi 24, myi 32, i 40, nslots 48, stride 56, n 64, bw 72, bh 80,
// bx 88, by 96, dst 104, flags 112, slot 120, seen 128; of
// mcuSlot: dc 0, ac 8, q 16, pred 24, cdc 32, cbw 40, cbh 48, h 56, v 64,
// dx 72, dy 80, isY 88, its size 96.

// RUNF sets r to the mcuRun field at off; SLOTF to the current slot's.
#define RUNF(off, r) MOVD run+8(FP), r; I64Load off(r); Set r
#define SLOTF(off, r) RUNF(120, r); I64Load off(r); Set r

// NEXTBLOCK moves the run to the next block: the next slot of the MCU, or
// the first of the next MCU (its column and row counted on). R9–R11.
#define NEXTBLOCK \
	MOVD run+8(FP), R9; \
	I64Load 40(R9); I64Const $1; I64Add; Set R10; \
	Get R10; I64Load 48(R9); I64Eq; \
	If; \
		I64Const $0; Set R10; \
		Get R9; I32WrapI64; I64Load 0(R9); I64Const $1; I64Add; I64Store $0; \
		I64Load 24(R9); I64Const $1; I64Add; Set R11; \
		Get R11; I64Load 16(R9); I64Eq; \
		If; \
			I64Const $0; Set R11; \
			Get R9; I32WrapI64; I64Load 32(R9); I64Const $1; I64Add; I64Store $32; \
		End; \
		Get R9; I32WrapI64; Get R11; I64Store $24; \
	End; \
	Get R9; I32WrapI64; Get R10; I64Store $40

// CHROMADC is chromaDC for a chroma block: its DC (*pred) into the
// slot's plane of DC values, when it has one and the block lies in it
// (bx < cbw, by < cbh), and the run marked as having written one.
#define CHROMADC \
	SLOTF(32, R9); \
	Get R9; I64Eqz; I32Eqz; \
	If; \
		MOVD run+8(FP), R10; \
		I64Load 88(R10); Set R11; I64Load 96(R10); Set R12; \
		SLOTF(40, R13); SLOTF(48, R14); \
		Get R11; Get R13; I64LtU; Get R12; Get R14; I64LtU; I32And; \
		If; \
			Get R12; Get R13; I64Mul; Get R11; I64Add; I64Const $2; I64Shl; Get R9; I64Add; I32WrapI64; \
			SLOTF(24, R15); I32Load 0(R15); I32Store $0; \
			Get R10; I32WrapI64; I64Const $1; I64Store $128; \
		End; \
	End

// CLEARBLK clears what the block at R5 held: blk[0] and the coded
// positions 1 to R7 (zigzag table at R8). R6 and R13.
#define CLEARBLK \
	Get R5; I32WrapI64; I32Const $0; I32Store $0; \
	I64Const $1; Set R6; \
	Block; \
	Loop; \
		Get R6; Get R7; I64GtU; BrIf $1; \
		Get R6; Get R8; I64Add; Set R13; \
		I64Load8U 0(R13); I64Const $2; I64Shl; Get R5; I64Add; I32WrapI64; I32Const $0; I32Store $0; \
		Get R6; I64Const $1; I64Add; Set R6; \
		Br $0; \
	End; \
	End

// func huffMCUsAsm(r *bitReader, run *mcuRun, slots *mcuSlot, blk *[64]int32, zz *[64]uint8, pix *uint8, tmp *[64]int32, cols *[64]uint8) int64
// The 40-byte frame holds the arguments of the inverse DCT it calls.
TEXT ·huffMCUsAsm(SB), NOSPLIT, $40-72
	Loop
	// The run's end: every MCU decoded.
	MOVD run+8(FP), R9
	I64Load 0(R9); I64Load 8(R9); I64GeS
	If
		I64Const $65; Set R7; MOVD R7, ret+64(FP); RET
	End
	// The block's slot, position, flags and first output pixel.
	MOVD slots+16(FP), R10
	Get R9; I32WrapI64; I64Load 40(R9); I64Const $96; I64Mul; Get R10; I64Add; Tee R10; I64Store $120
	Get R9; I32WrapI64; I64Load 24(R9); I64Load 56(R10); I64Mul; I64Load 72(R10); I64Add; Tee R11; I64Store $88
	Get R9; I32WrapI64; I64Load 32(R9); I64Load 64(R10); I64Mul; I64Load 80(R10); I64Add; Tee R12; I64Store $96
	I64Const $0; Set R13
	MOVD pix+40(FP), R14
	I64Load 88(R10); I64Eqz; I32Eqz
	If
		I64Const $const_huffY; Set R13
		Get R12; I64Load 80(R9); I64GeU; Get R11; I64Load 72(R9); I64GeU; I32Or
		If
			I64Const $(const_huffY|const_huffOutside); Set R13
		Else
			Get R12; I64Load 64(R9); I64Mul; I64Load 56(R9); I64Mul
			Get R11; I64Load 64(R9); I64Mul; I64Add; Get R14; I64Add; Set R14
		End
	End
	Get R9; I32WrapI64; Get R13; I64Store $112
	Get R9; I32WrapI64; Get R14; I64Store $104
	Block // the block; a br to its end goes on to the next
	MOVD r+0(FP), R0; SLOTF(0, R3); SLOTF(16, R4)
	MOVD blk+24(FP), R5; MOVD zz+32(FP), R8
	// acc and n from the bitReader.
	I64Load 32(R0); Set R1; I64Load 40(R0); Set R2
	I64Const $0
	Set R7

	// The DC difference.
	REFILL
	PEEK
	DECODE
	Get R10
	I64Const $11
	I64GtU
	If
		FAIL(-2)
	End
	Get R10
	I64Eqz
	I32Eqz
	If
		TAKE(R11, R10)
		EXTEND(R11, R10)
		SLOTF(24, R12)
		Get R12
		I32WrapI64
		I32Load 0(R12)
		Get R11
		I32WrapI64
		I32Add
		I32Store $0
	End
	RUNF(112, R9)
	Get R9
	I64Const $const_huffOutside
	I64And
	I64Eqz
	I32Eqz
	If
		FAIL(-4)
	End
	SLOTF(8, R3)
	I64Const $1
	Set R6
	Get R9
	I64Const $const_huffY
	I64And
	I64Eqz
	If
		// A chroma block: skipAC.
		Block
		Loop
			ACNEXT
			If
				FASTRUN
				I64Const $1
				I64Add
				Set R6
				Br $1
			End
			RUNSIZE
			// Past the size bits, and k past the run and the coefficient.
			Get R2; Get R11; I64Sub; Set R2
			Get R6; Get R10; I64Add; I64Const $1; I64Add; Set R6
			Br $0
		End
		End
	Else
		// A Y block: blk[0] = pred·q[0], then the AC coefficients.
		Get R5
		I32WrapI64
		SLOTF(24, R12)
		I32Load 0(R12)
		I32Load 0(R4)
		I32Mul
		I32Store $0
		Block
		Loop
			ACNEXT
			If
				FASTRUN
				Set R6
				PASTK
				Get R10
				I64Const $16
				I64ShrS
				Set R12
				STORECOEF
				Br $1
			End
			RUNSIZE
			Get R6
			Get R10
			I64Add
			Set R6
			PASTK
			TAKE(R12, R11)
			EXTEND(R12, R11)
			STORECOEF
			Br $0
		End
		End
	End
	Get R0
	I32WrapI64
	Get R1
	I64Store $32
	Get R0
	I32WrapI64
	Get R2
	I64Store $40
	// A Y block that is flat (or read at 1/8, where only the DC counts)
	// or read at 1/4 is written here, and its coefficients cleared; the
	// others go back to finishBlock.
	RUNF(112, R9)
	Get R9
	I64Const $1
	I64And
	I64Eqz
	If
		// A chroma block: its DC kept, on to the next block.
		CHROMADC
		Br $1
	End
	RUNF(64, R6)
	RUNF(104, R15)
	RUNF(56, R4)
	Block
		Get R7
		I64Eqz
		Get R6
		I64Const $1
		I64Eq
		I32Or
		If
			// idct1: clamp((blk[0] + 128·8 + 4) >> 3), n rows of n.
			I32Load 0(R5)
			I32Const $1028
			I32Add
			I32Const $3
			I32ShrS
			CLAMPB
			I64ExtendI32U
			I64Const $0x0101010101010101
			I64Mul
			Set R13
			Get R6
			Set R12
			Loop
				Get R6
				I64Const $8
				I64Eq
				If
					Get R15; I32WrapI64; Get R13; I64Store $0
				Else
					Get R6
					I64Const $4
					I64Eq
					If
						Get R15; I32WrapI64; Get R13; I64Store32 $0
					Else
						Get R6
						I64Const $2
						I64Eq
						If
							Get R15; I32WrapI64; Get R13; I64Store16 $0
						Else
							Get R15; I32WrapI64; Get R13; I64Store8 $0
						End
					End
				End
				Get R15
				Get R4
				I64Add
				Set R15
				Get R12
				I64Const $1
				I64Sub
				Tee R12
				I64Eqz
				I32Eqz
				BrIf $0
			End
			Br $1
		End
		Get R6
		I64Const $2
		I64Ne
		If
			// finishBlock's full-size or 1/2 transform: idct8Asm or
			// idct4Asm (leaf functions, which never unwind the stack)
			// on the block, at its output address R15, for the columns
			// cols[R7]; then the block is cleared below.
			MOVD R5, 0(SP)
			MOVD R15, 8(SP)
			MOVD R4, 16(SP)
			MOVD cols+56(FP), R9
			Get R7; I64Const $63; I64And; Get R9; I64Add; Set R9
			I64Load8U 0(R9); Set R9
			MOVD R9, 24(SP)
			MOVD tmp+48(FP), R9
			MOVD R9, 32(SP)
			Get R6
			I64Const $8
			I64Eq
			If
				CALLNORESUME ·idct8Asm(SB)
			Else
				CALLNORESUME ·idct4Asm(SB)
			End
			Br $1
		End
		// idct2: the columns u = 0, 1, 3, 5, 7 (the even ones average
		// out), then the top and the bottom row.
		ICOL(0, R0, R1)
		ICOL(4, R2, R3)
		ICOL(12, R6, R9)
		ICOL(20, R10, R11)
		ICOL(28, R12, R8)
		IROW(R0, R2, R6, R10, R12)
		Get R15
		Get R4
		I64Add
		Set R15
		IROW(R1, R3, R9, R11, R8)
	End
	MOVD zz+32(FP), R8
	CLEARBLK
	End // the block
	NEXTBLOCK
	Br $0
	End
	UNDEF
