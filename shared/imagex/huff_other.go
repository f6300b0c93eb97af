//go:build !wasm

package imagex

// kernelState is the MCU kernel's state: none here.
type kernelState struct{}

// kernelMCUs says scan hands a sequential scan's MCUs to baselineMCUs:
// not here, where scan's own loop is the reference.
const kernelMCUs = false

// baselineMCUs is not called where kernelMCUs is false.
func (d *lumaDecoder) baselineMCUs(r *bitReader, slots []blockSlot, m, end, mx int, blk *[64]int32) error {
	panic("imagex: baselineMCUs without the block kernel")
}
