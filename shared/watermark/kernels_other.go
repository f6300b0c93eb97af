//go:build !wasm

package watermark

import "image"

// Other architectures run the portable bodies (kernels.go).

func butterflies4Impl(x []complex128, off, d, m, groups, gstride int, tw []complex128, t1, s1, t2, s2, t3, s3 int) {
	butterflies4Go(x, off, d, m, groups, gstride, tw, t1, s1, t2, s2, t3, s3)
}

func butterflies4OneImpl(x []complex128, off, d, m, groups, gstride int, w3 complex128) {
	butterflies4OneGo(x, off, d, m, groups, gstride, w3)
}

func butterflies2Impl(x []complex128, off, d, m, groups, gstride int, tw []complex128, t, s int) {
	butterflies2Go(x, off, d, m, groups, gstride, tw, t, s)
}

func sumDiffImpl(x []complex128, off, d, m, groups, gstride int) {
	sumDiffGo(x, off, d, m, groups, gstride)
}

func permuteFirstStagesImpl(x []complex128, n int, rev, _ []int, inverse bool) {
	permuteFirstStagesGo(x, n, rev, inverse)
}

func swapRowsImpl(data []complex128, n int, rev []int) {
	swapRowsGo(data, n, rev)
}

func foldRowsImpl(acc []float64, T int, hp []float32, w, x0, y0 int, tx, ty []int) {
	foldRowsGo(acc, T, hp, w, x0, y0, tx, ty)
}

func satFoldImpl(acc []float64, G int, sat []float64, stride int, xb, bx, yb, by []int) {
	satFoldGo(acc, G, sat, stride, xb, bx, yb, by)
}

func maxRunsImpl(dst, ext, pre, suf []float32, W int) { maxRunsGo(dst, ext, pre, suf, W) }

func poolMaxImpl(sum []float64, zb, rows, line, out []float32, c *cyclicMax) {
	poolMaxGo(sum, zb, rows, line, out, c)
}

func tapsApplyImpl(dst, src []float32, t taps) { tapsApplyGo(dst, src, t) }

func powerOfImpl(p []float64, buf []complex128) { powerOfGo(p, buf) }

func boxRowsImpl(dst, src []float64, N, r int, add, sub []int) { boxRowsGo(dst, src, N, r, add, sub) }

func whitenColsImpl(out, pw, tmp, col []float64, add, sub []int, inv float64) {
	whitenColsGo(out, pw, tmp, col, add, sub, inv)
}

func boxLineImpl(dst, src []float32, r int, inv []float64) { boxLineGo(dst, src, r, inv) }

func boxColsImpl(dst []float32, col []float64, in, out []float32, inv float64) {
	boxColsGo(dst, col, in, out, inv)
}

func warpRowImpl(acc []float64, T int, row []float32, ux, uy, dux, duy, ddux, dduy int64) {
	warpRowGo(acc, T, row, ux, uy, dux, duy, ddux, dduy)
}

func foldAspectImpl(accT, p []float64, G, T, C int, r float64, i0, i1 int) {
	foldAspectGo(accT, p, G, T, C, r, i0, i1)
}

func packPairImpl(z []complex128, a, b []float64) { packPairGo(z, a, b) }

func verticalSumImpl(v *vertical, y, n int) { verticalSumGo(v, y, n) }

func verticalTakeImpl(v *vertical, dst []float32, a []uint8, wa float32, b []uint8, wb float32) {
	verticalTakeGo(v, dst, a, wa, b, wb)
}

func absRowMeansImpl(e []float64, hp []float32, w, x0, x1 int) { absRowMeansGo(e, hp, w, x0, x1) }

func absColSumsImpl(col []float64, hp []float32) { absColSumsGo(col, hp) }

func profileFoldImpl(p []float64, G int, hp []float32, w int, bins []int, landscape bool) {
	profileFoldGo(p, G, hp, w, bins, landscape)
}

func countFlatImpl(pix []uint8, stride int, r image.Rectangle, step int) int {
	return countFlatGo(pix, stride, r, step)
}

func mulKernelImpl(dst, a, b []complex128) { mulKernelGo(dst, a, b) }

func peakScanImpl(buf []complex128) (sr, si, ssr, ssi, br, bi float64, idx [2]int) {
	return peakScanGo(buf)
}
