package imagex

// kernelState is what the MCU kernel reads besides the decoder's tables:
// the scan's slots and the run.
type kernelState struct {
	slots [4 * 16]mcuSlot
	run   mcuRun
}

// huffMCUsAsm decodes the blocks of run from r, each as baselineBlockGo
// would: the DC difference into *pred, a chroma block's DC kept
// (chromaDC) and its AC read past, a Y block's AC coefficients times q
// into blk in natural order. Every Y block it writes itself into pix
// (finishBlock's work): a flat one, any at 1/8 and every one at 1/4
// (n = 2) with its own code, the others through idct8Asm or idct4Asm
// (tmp their scratch, cols zigzagCols), and it clears blk after each.
// It returns huffAll when the run is done, or a negative status for
// huffErr.
//
//go:noescape
func huffMCUsAsm(r *bitReader, run *mcuRun, slots *mcuSlot, blk *[64]int32, zz *[64]uint8, pix *uint8, tmp *[64]int32, cols *[64]uint8) int64

// The flags and statuses of the MCU kernel (huff_wasm.s): the errors are
// baselineBlockGo's, for the same data. huffY and huffOutside are the bits
// of mcuRun.flags, which the kernel reads through go_asm.h.
const (
	huffY       = 1 // a Y block: store its coefficients
	huffOutside = 2 // the Y block lies outside the frame: fail after its DC

	huffAll = 65 // the kernel decoded every block of the run

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
// marker falls among them), the blocks of each in slots' order, in one
// call of the MCU kernel, which does every block's work, the inverse
// DCTs included (in WebAssembly each Go call and loop iteration goes
// through the function's dispatch). The same state, planes and errors as
// scan's loop with baselineBlockGo (TestHuffBlockMatchesGo).
func (d *lumaDecoder) baselineMCUs(r *bitReader, slots []blockSlot, m, end, mx int, blk *[64]int32) error {
	o := d.out
	ks := &d.kernel
	for i, sl := range slots {
		c := sl.c
		k := mcuSlot{dc: &d.dc[c.td&3], ac: &d.ac[c.ta&3], q: &d.quant[c.tq&3], pred: &c.pred,
			h: sl.h, v: sl.v, dx: sl.dx, dy: sl.dy}
		if sl.isY {
			k.isY = 1
		} else if j := c.idx - 1; j >= 0 && j <= 1 && len(d.cdc[j]) > 0 {
			k.cdc, k.cbw, k.cbh = &d.cdc[j][0], d.cbw[j], d.cbh[j]
		}
		ks.slots[i] = k
	}
	// The kernel writes the blocks inside bw×bh without bounds checks:
	// the plane is allocated to hold them all.
	if len(o.Pix) < o.Stride*d.bh*d.n || o.Stride < d.bw*d.n {
		panic("imagex: output plane smaller than its blocks")
	}
	ks.run = mcuRun{m: m, end: end, mx: mx, mxi: m % mx, myi: m / mx, nslots: len(slots),
		stride: o.Stride, n: d.n, bw: d.bw, bh: d.bh}
	st := huffMCUsAsm(r, &ks.run, &ks.slots[0], blk, &zigzag, &o.Pix[0], &d.idctTmp, &zigzagCols)
	if ks.run.seen != 0 {
		d.cdcSeen = true
	}
	if st < 0 {
		return huffErr(st)
	}
	return nil
}
