package phash

// leeSplit and leeSum have checked the slices' lengths.

func leeSplitImpl(in, tmp, div []float64, n int) {
	leeSplitAsm(&in[0], &tmp[0], &div[0], uintptr(n))
}

func leeSumImpl(in, tmp []float64, n int) { leeSumAsm(&in[0], &tmp[0], uintptr(n)) }

//go:noescape
func leeSplitAsm(in, tmp, div *float64, n uintptr)

//go:noescape
func leeSumAsm(in, tmp *float64, n uintptr)
