package digest

func blocks256Impl(h *[8]uint32, p []byte) {
	// The message schedule lives here, on the Go stack: the body keeps
	// no memory of its own.
	var w [64]uint32
	blocks256Asm(h, &p[0], uintptr(len(p)/blockSize256), &w, &k256)
}

// blocks256Asm compresses n ≥ 1 blocks at p into h, with w as the
// message schedule's scratch and k the round constants.
//
//go:noescape
func blocks256Asm(h *[8]uint32, p *byte, n uintptr, w, k *[64]uint32)
