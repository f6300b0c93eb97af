package imagex

// baselineBlock is baselineBlockGo with the entropy decoding in one
// assembly call (huffBlockAsm, huff_wasm.s): in WebAssembly every Go loop
// iteration goes through the function's dispatch and every table read
// keeps its bounds check, and a block's Huffman codes are most of the
// decode. Same bit-buffer state, coefficients and errors as the Go code
// (TestHuffBlockMatchesGo, FuzzHuffBlockMatchesGo, run in wazero).
func (d *lumaDecoder) baselineBlock(r *bitReader, c *lumaComponent, isY bool, bx, by int, blk *[64]int32) error {
	if d.goBlocks {
		return d.baselineBlockGo(r, c, isY, bx, by, blk)
	}
	var flags uintptr
	if isY {
		flags = huffY
		if by >= d.bh || bx >= d.bw {
			flags |= huffOutside
		}
	}
	st := huffBlockAsm(r, &d.dc[c.td&3], &d.ac[c.ta&3], &d.quant[c.tq&3], blk, &c.pred, flags, &zigzag)
	if st < 0 {
		return huffErr(st)
	}
	if !isY {
		d.chromaDC(c, bx, by, c.pred, false)
		return nil
	}
	d.finishBlock(blk, int(st), bx, by)
	return nil
}

// huffBlockAsm decodes one block's entropy-coded data from r (tables dc
// and ac): the DC difference into *pred, then for a Y block (flags has
// huffY) the AC coefficients times q into blk in natural order, and
// returns the last coded position (0 for a chroma block, whose AC it
// reads past), or a negative status for huffErr.
//
//go:noescape
func huffBlockAsm(r *bitReader, dc, ac *huffTable, q, blk *[64]int32, pred *int32, flags uintptr, zz *[64]uint8) int64

// The flags and statuses of the WebAssembly block kernel (huff_wasm.go):
// the errors are baselineBlockGo's, for the same data.
const (
	huffY       = 1 // a Y block: store its coefficients
	huffOutside = 2 // the Y block lies outside the frame: fail after its DC

	huffBadCode    = -1
	huffBadDC      = -2
	huffPast63     = -3
	huffOutsideErr = -4
)

// huffErr is the error for a negative kernel status.
func huffErr(st int64) error {
	switch st {
	case huffBadCode:
		return errBadCode
	case huffBadDC:
		return lumaErr("bad DC magnitude")
	case huffPast63:
		return lumaErr("coefficient past 63")
	case huffOutsideErr:
		return lumaErr("block outside the frame")
	}
	return lumaErr("block kernel status %d", st)
}
