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
	o := d.out
	dst := &o.Pix[0]
	if isY {
		flags = huffY
		if by >= d.bh || bx >= d.bw {
			flags |= huffOutside
		} else {
			// The kernel writes the block's n×n pixels from here.
			off := by*d.n*o.Stride + bx*d.n
			_ = o.Pix[off+(d.n-1)*o.Stride+d.n-1]
			dst = &o.Pix[off]
		}
	}
	st := huffBlockAsm(r, &d.dc[c.td&3], &d.ac[c.ta&3], &d.quant[c.tq&3], blk, &c.pred, flags, &zigzag,
		dst, uintptr(o.Stride), uintptr(d.n))
	switch {
	case st < 0:
		return huffErr(st)
	case !isY:
		d.chromaDC(c, bx, by, c.pred, false)
	case st != huffDone:
		d.finishBlock(blk, int(st), bx, by)
	}
	return nil
}

// huffBlockAsm decodes one block's entropy-coded data from r (tables dc
// and ac): the DC difference into *pred, then for a Y block (flags has
// huffY) the AC coefficients times q into blk in natural order. A flat Y
// block, any Y block at 1/8 and every Y block at 1/4 (n = 2) it writes
// itself, n×n pixels at dst, stride bytes apart, clears blk and returns
// huffDone; for any other Y block it returns the last coded position for
// finishBlock, and 0 for a chroma block, whose AC it reads past; or a
// negative status for huffErr.
//
//go:noescape
func huffBlockAsm(r *bitReader, dc, ac *huffTable, q, blk *[64]int32, pred *int32, flags uintptr, zz *[64]uint8,
	dst *uint8, stride, n uintptr) int64

// The flags and statuses of the WebAssembly block kernel (huff_wasm.go):
// the errors are baselineBlockGo's, for the same data.
const (
	huffY       = 1 // a Y block: store its coefficients
	huffOutside = 2 // the Y block lies outside the frame: fail after its DC

	huffDone = 64 // the kernel wrote the block's pixels and cleared it

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

// kernelMCUs says scan hands a sequential scan's MCUs to baselineMCUs.
const kernelMCUs = true

// baselineMCUs decodes the sequential scan's MCUs m..end-1 (no restart
// marker falls among them), the blocks of each in slots' order: the MCU
// loop of scan with baselineBlock written into it, so that a block costs
// one kernel call and no Go call around it (in WebAssembly each Go call
// and loop iteration goes through the function's dispatch). The same
// state, planes and errors as scan's loop with baselineBlockGo
// (TestHuffBlockMatchesGo).
func (d *lumaDecoder) baselineMCUs(r *bitReader, slots []blockSlot, m, end, mx int, blk *[64]int32) error {
	o := d.out
	n, stride := d.n, o.Stride
	bw, bh := d.bw, d.bh
	mxi, myi := m%mx, m/mx
	for ; m < end; m++ {
		for i := range slots {
			sl := &slots[i]
			c := sl.c
			bx, by := mxi*sl.h+sl.dx, myi*sl.v+sl.dy
			var flags uintptr
			dst := &o.Pix[0]
			if sl.isY {
				flags = huffY
				if by >= bh || bx >= bw {
					flags |= huffOutside
				} else {
					off := by*n*stride + bx*n
					_ = o.Pix[off+(n-1)*stride+n-1]
					dst = &o.Pix[off]
				}
			}
			st := huffBlockAsm(r, &d.dc[c.td&3], &d.ac[c.ta&3], &d.quant[c.tq&3], blk, &c.pred, flags, &zigzag,
				dst, uintptr(stride), uintptr(n))
			switch {
			case st < 0:
				return huffErr(st)
			case !sl.isY:
				d.chromaDC(c, bx, by, c.pred, false)
			case st != huffDone:
				d.finishBlock(blk, int(st), bx, by)
			}
		}
		if mxi++; mxi == mx {
			mxi, myi = 0, myi+1
		}
	}
	return nil
}
