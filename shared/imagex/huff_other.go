//go:build !wasm

package imagex

// baselineBlock is baselineBlockGo.
func (d *lumaDecoder) baselineBlock(r *bitReader, c *lumaComponent, isY bool, bx, by int, blk *[64]int32) error {
	return d.baselineBlockGo(r, c, isY, bx, by, blk)
}
