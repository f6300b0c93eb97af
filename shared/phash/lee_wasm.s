#include "textflag.h"

// The bodies of leeSplit and leeSum (lee.go) for WebAssembly: the first
// step of a Lee DCT stage over a whole row, as WebAssembly loops. Each
// output is the Go loop's one floating-point operation (or two), in the
// same order, so the bits are the same. R0 walks in from the front, R1
// from the back, R2 walks tmp's first half and R4 div; R3 is half in
// bytes, R5 the end of tmp's first half.

// func leeSplitAsm(in, tmp, div *float64, n uintptr)
// n is even and at least 2.
TEXT ·leeSplitAsm(SB), NOSPLIT, $0-32
	MOVD in+0(FP), R0
	MOVD tmp+8(FP), R2
	MOVD div+16(FP), R4
	MOVD n+24(FP), R3
	Get R3
	I64Const $3
	I64Shl
	Get R0
	I64Add
	I64Const $8
	I64Sub
	Set R1 // &in[n-1]
	Get R3
	I64Const $2
	I64Shl
	Set R3 // half·8
	Get R2
	Get R3
	I64Add
	Set R5
	Loop
		F64Load 0(R0)
		Set F16
		F64Load 0(R1)
		Set F17
		Get R2
		I32WrapI64
		Get F16
		Get F17
		F64Add
		F64Store $0
		Get R2
		Get R3
		I64Add
		I32WrapI64
		Get F16
		Get F17
		F64Sub
		F64Load 0(R4)
		F64Div
		F64Store $0
		Get R0
		I64Const $8
		I64Add
		Set R0
		Get R1
		I64Const $8
		I64Sub
		Set R1
		Get R4
		I64Const $8
		I64Add
		Set R4
		Get R2
		I64Const $8
		I64Add
		Tee R2
		Get R5
		I64LtU
		BrIf $0
	End
	RET

// func leeSumAsm(in, tmp *float64, n uintptr)
// n is even and at least 2.
TEXT ·leeSumAsm(SB), NOSPLIT, $0-24
	MOVD in+0(FP), R0
	MOVD tmp+8(FP), R2
	MOVD n+16(FP), R3
	Get R3
	I64Const $3
	I64Shl
	Get R0
	I64Add
	I64Const $8
	I64Sub
	Set R1
	Get R3
	I64Const $2
	I64Shl
	Get R2
	I64Add
	Set R5
	Loop
		Get R2
		I32WrapI64
		F64Load 0(R0)
		F64Load 0(R1)
		F64Add
		F64Store $0
		Get R0
		I64Const $8
		I64Add
		Set R0
		Get R1
		I64Const $8
		I64Sub
		Set R1
		Get R2
		I64Const $8
		I64Add
		Tee R2
		Get R5
		I64LtU
		BrIf $0
	End
	RET
