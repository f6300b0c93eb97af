package imagex

// The MCU kernel's shared state (huff_wasm.go, huff_wasm.s), declared on
// every architecture so that TestHuffBlockLayout holds its field offsets
// to what the kernel reads wherever the tests run.

// mcuSlot is one block of an MCU as the MCU kernel reads it: blockSlot
// with its component's tables and DC predictor resolved, and for a chroma
// block the plane of DC values it feeds (chromaDC), cdc nil for none.
// TestHuffBlockLayout holds the offsets huff_wasm.s uses.
type mcuSlot struct {
	dc, ac       *huffTable
	q            *[64]int32
	pred         *int32
	cdc          *int32
	cbw, cbh     int
	h, v, dx, dy int
	isY          int
}

// mcuRun is the MCU kernel's position and the scan's geometry, kept
// between its calls: the next block is slot i of MCU m (column mxi, row
// myi of mx), up to MCU end; the output plane is bw×bh blocks of n×n
// pixels, stride bytes a row. The kernel leaves in bx, by the block it
// returned at, and sets seen when it stored a chroma DC; dst, flags and
// slot are its own, for the block at hand.
type mcuRun struct {
	m, end, mx, mxi, myi, i, nslots int
	stride, n, bw, bh               int
	bx, by                          int
	dst, flags, slot                uintptr
	seen                            int
}
