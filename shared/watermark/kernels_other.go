//go:build !wasm

package watermark

// Other architectures run the portable bodies (kernels.go).

func butterflies4Impl(x []complex128, off, d, m, groups, gstride int, tw []complex128, t1, s1, t2, s2, t3, s3 int) {
	butterflies4Go(x, off, d, m, groups, gstride, tw, t1, s1, t2, s2, t3, s3)
}

func butterflies4OneImpl(x []complex128, off, d, m int, w3 complex128) {
	butterflies4OneGo(x, off, d, m, w3)
}

func butterflies2Impl(x []complex128, off, d, m, groups, gstride int, tw []complex128, t, s int) {
	butterflies2Go(x, off, d, m, groups, gstride, tw, t, s)
}

func sumDiffImpl(x []complex128, off, d, m, groups, gstride int) {
	sumDiffGo(x, off, d, m, groups, gstride)
}

func firstStagesImpl(x, src []complex128, rev []int, inverse bool) {
	firstStagesGo(x, src, rev, inverse)
}
