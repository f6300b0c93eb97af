package phash

// leeSplit sets tmp[i] = in[i] + in[n-1-i] and tmp[i+n/2] = (in[i] -
// in[n-1-i]) / div[i] for i < n/2, the first step of a Lee DCT stage;
// leeSum only the sums. n is even and at least 2, in and tmp hold n, div
// n/2. On WebAssembly the loops are assembly (lee_wasm.s); elsewhere,
// and as the reference the tests hold them to, they are leeSplitGo and
// leeSumGo.
func leeSplit(in, tmp, div []float64, n int) {
	_, _, _ = in[n-1], tmp[n-1], div[n/2-1]
	leeSplitImpl(in, tmp, div, n)
}

func leeSum(in, tmp []float64, n int) {
	_, _ = in[n-1], tmp[n/2-1]
	leeSumImpl(in, tmp, n)
}

func leeSplitGo(in, tmp, div []float64, n int) {
	half := n / 2
	in, tmp, div = in[:n], tmp[:n], div[:half]
	for i := 0; i < half; i++ {
		x, y := in[i], in[n-1-i]
		tmp[i] = x + y
		tmp[i+half] = (x - y) / div[i]
	}
}

func leeSumGo(in, tmp []float64, n int) {
	half := n / 2
	in, tmp = in[:n], tmp[:half]
	for i := 0; i < half; i++ {
		tmp[i] = in[i] + in[n-1-i]
	}
}
