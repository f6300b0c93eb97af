package digest

// blockSize256 is SHA-256's block: blocks256 takes whole ones.
const blockSize256 = 64

// blocks256 runs the SHA-256 compression function over each 64-byte block
// of p in turn (len(p) is a multiple of 64). compress256 is its
// definition: on WebAssembly the body is blocks256Asm (blocks_wasm.s),
// which runs all the blocks in one call with its loops in WebAssembly's
// own instructions, and gives the same state bit for bit
// (TestBlocks256MatchesCompress, FuzzBlocks256MatchesCompress).
func blocks256(h *[8]uint32, p []byte) {
	if len(p) < blockSize256 {
		return
	}
	blocks256Impl(h, p[:len(p)&^(blockSize256-1)])
}

// blocks256Go is blocks256 in Go: compress256 block by block.
func blocks256Go(h *[8]uint32, p []byte) {
	for ; len(p) >= blockSize256; p = p[blockSize256:] {
		compress256(h, p[:blockSize256])
	}
}
