//go:build !wasm

package imagex

// baselineBlock is baselineBlockGo.
func (d *lumaDecoder) baselineBlock(r *bitReader, c *lumaComponent, isY bool, bx, by int, blk *[64]int32) error {
	return d.baselineBlockGo(r, c, isY, bx, by, blk)
}

// kernelState is the MCU kernel's state: none here.
type kernelState struct{}

// kernelMCUs says scan hands a sequential scan's MCUs to baselineMCUs:
// not here, where scan's own loop is the reference.
const kernelMCUs = false

// baselineMCUs is not called where kernelMCUs is false.
func (d *lumaDecoder) baselineMCUs(r *bitReader, slots []blockSlot, m, end, mx int, blk *[64]int32) error {
	panic("imagex: baselineMCUs without the block kernel")
}
