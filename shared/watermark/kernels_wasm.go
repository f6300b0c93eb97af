package watermark

import (
	"image"
	"unsafe"
)

// WebAssembly runs the assembly bodies in kernels_wasm.s. The wrappers in
// kernels.go have checked every index, so the bodies take addresses and
// byte distances (a complex128 is 16 bytes).

const c128 = int(unsafe.Sizeof(complex128(0)))

func butterflies4Impl(x []complex128, off, d, m, groups, gstride int, tw []complex128, t1, s1, t2, s2, t3, s3 int) {
	if s1 == 0 && s2 == 0 && s3 == 0 {
		butterflies4ConstAsm(&x[off], uintptr(d*c128), uintptr(m*c128), uintptr(groups), uintptr(gstride*c128), &tw[t1], &tw[t2], &tw[t3])
		return
	}
	butterflies4Asm(&x[off], uintptr(d*c128), uintptr(m*c128), uintptr(groups), uintptr(gstride*c128),
		&tw[t1], &tw[t2], &tw[t3], uintptr(s1*c128), uintptr(s2*c128), uintptr(s3*c128))
}

func butterflies4OneImpl(x []complex128, off, d, m, groups, gstride int, w3 complex128) {
	butterflies4OneAsm(&x[off], uintptr(d*c128), uintptr(m*c128), uintptr(groups), uintptr(gstride*c128), real(w3), imag(w3))
}

func butterflies2Impl(x []complex128, off, d, m, groups, gstride int, tw []complex128, t, s int) {
	butterflies2Asm(&x[off], uintptr(d*c128), uintptr(m*c128), uintptr(groups), uintptr(gstride*c128), &tw[t], uintptr(s*c128))
}

func sumDiffImpl(x []complex128, off, d, m, groups, gstride int) {
	sumDiffAsm(&x[off], uintptr(d*c128), uintptr(m*c128), uintptr(groups), uintptr(gstride*c128))
}

func permuteFirstStagesImpl(x []complex128, n int, _, swaps []int, inverse bool) {
	inv := uintptr(0)
	if inverse {
		inv = 1
	}
	var sw *int
	if len(swaps) > 0 {
		sw = &swaps[0]
	}
	permuteFirstStagesAsm(&x[0], uintptr(n), uintptr(len(x)/n), sw, uintptr(len(swaps)), inv)
}

func swapRowsImpl(data []complex128, n int, rev []int) {
	swapRowsAsm(&data[0], uintptr(n), &rev[0])
}

func foldRowsImpl(acc []float64, T int, hp []float32, w, x0, y0 int, tx, ty []int) {
	foldRowsAsm(&acc[0], uintptr(T*8), &hp[y0*w+x0], uintptr(w*4), uintptr(len(tx)), &tx[0], &ty[0], uintptr(len(ty)))
}

func satFoldImpl(acc []float64, G int, sat []float64, stride int, xb, bx, yb, by []int) {
	satFoldAsm(&acc[0], uintptr(G*8), &sat[0], uintptr(stride*8), &xb[0], &bx[0], uintptr(len(bx)), &yb[0], &by[0], uintptr(len(by)))
}

func maxRunsImpl(dst, ext, pre, suf []float32, W int) {
	maxRunsAsm(&dst[0], &ext[0], &pre[0], &suf[0], uintptr(len(dst)), uintptr(len(ext)), uintptr(W))
}

// poolMaxImpl's body builds each line's cyclic extension itself (the
// source index starts at -r modulo T) and calls maxRunsAsm on it.
func poolMaxImpl(sum []float64, zb, rows, line, out []float32, c *cyclicMax) {
	T, r := c.n, c.r
	poolMaxAsm(&sum[0], &zb[0], &rows[0], &out[0], &c.ext[0], &c.pre[0], &c.suf[0], uintptr(T), uintptr(r), uintptr(((-r)%T+T)%T))
}

func tapsApplyImpl(dst, src []float32, t taps) {
	tapsApplyAsm(&dst[0], uintptr(len(dst)), &src[0], &t.start[0], &t.off[0], &t.w[0])
}

func powerOfImpl(p []float64, buf []complex128) {
	powerOfAsm(&p[0], &buf[0], uintptr(len(p)))
}

// boxRowsImpl hands over the first window's start, (N−r) mod N, and its
// length.
func boxRowsImpl(dst, src []float64, N, r int, add, sub []int) {
	boxRowsAsm(&dst[0], &src[0], uintptr(N), uintptr((N-r)%N), uintptr(2*r+1), &add[0], &sub[0])
}

func whitenColsImpl(out, pw, tmp, col []float64, add, sub []int, inv float64) {
	whitenColsAsm(&out[0], &pw[0], &tmp[0], &col[0], uintptr(len(col)), &add[0], &sub[0], inv)
}

func boxLineImpl(dst, src []float32, r int, inv []float64) {
	boxLineAsm(&dst[0], &src[0], uintptr(len(src)), uintptr(r), &inv[0])
}

func boxColsImpl(dst []float32, col []float64, in, out []float32, inv float64) {
	boxColsAsm(&dst[0], &col[0], &in[0], &out[0], uintptr(len(dst)), inv)
}

func warpRowImpl(acc []float64, T int, row []float32, ux, uy, dux, duy, ddux, dduy int64) {
	warpRowAsm(&acc[0], uintptr(T), &row[0], uintptr(len(row)), ux, uy, dux, duy, ddux, dduy, fixBits)
}

func foldAspectImpl(accT, p []float64, G, T, C int, r float64, i0, i1 int) {
	foldAspectAsm(&accT[0], &p[0], uintptr(G), uintptr(T), uintptr(C), r, uintptr(i0), uintptr(i1))
}

// packPairImpl hands over b's address, or 0 for zeros.
func packPairImpl(z []complex128, a, b []float64) {
	var pb *float64
	if b != nil {
		pb = &b[0]
	}
	packPairAsm(&z[0], &a[0], pb, uintptr(len(a)))
}

// The vertical filter's bodies take the sums' words, the tail's counts
// and the rows' bytes by address; take multiplies each byte by its weight
// itself (the products the Go body looks up in tables, the same float32
// multiplications).
func verticalSumImpl(v *vertical, y, n int) {
	l := v.l
	verticalSumAsm(ptr64(v.even), ptr64(v.odd), ptr32(v.tail), uintptr(len(v.even)), uintptr(len(v.tail)),
		&l.Pix[y*l.Stride], uintptr(l.Stride), uintptr(n))
}

func verticalTakeImpl(v *vertical, dst []float32, a []uint8, wa float32, b []uint8, wb float32) {
	if len(dst) == 0 {
		return
	}
	verticalTakeAsm(&dst[0], ptr64(v.even), ptr64(v.odd), ptr32(v.tail), uintptr(len(v.even)), uintptr(len(v.tail)),
		&a[0], &b[0], v.full, wa, wb)
}

// ptr64 and ptr32 are the first element's address, or nil for none (the
// bodies then read no element).
func ptr64(s []uint64) *uint64 {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

func ptr32(s []uint32) *uint32 {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

func absRowMeansImpl(e []float64, hp []float32, w, x0, x1 int) {
	absRowMeansAsm(&e[0], uintptr(len(e)), &hp[x0], uintptr(w*4), uintptr(x1-x0))
}

func absColSumsImpl(col []float64, hp []float32) {
	absColSumsAsm(&col[0], uintptr(len(col)), &hp[0], uintptr(len(hp)/len(col)))
}

func profileFoldImpl(p []float64, G int, hp []float32, w int, bins []int, landscape bool) {
	ls := uintptr(0)
	if landscape {
		ls = 1
	}
	profileFoldAsm(&p[0], uintptr(G*8), &hp[0], uintptr(w), uintptr(len(hp)/w), &bins[0], ls)
}

func countFlatImpl(pix []uint8, stride int, r image.Rectangle, step int) int {
	return int(countFlatAsm(&pix[0], uintptr(stride), uintptr(r.Min.X), uintptr(r.Max.X), uintptr(r.Min.Y), uintptr(r.Max.Y), uintptr(step)))
}

func mulKernelImpl(dst, a, b []complex128) {
	mulKernelAsm(&dst[0], &a[0], &b[0], uintptr(len(a)))
}

func peakScanImpl(buf []complex128) (sr, si, ssr, ssi, br, bi float64, idx [2]int) {
	var sums [6]float64
	var at [2]uint64
	peakScanAsm(&buf[0], uintptr(len(buf)), &sums, &at)
	return sums[0], sums[1], sums[2], sums[3], sums[4], sums[5], [2]int{int(at[0]), int(at[1])}
}

// Each body loops while its cursor is below its end, so every count it is
// given is at least one (the wrappers return early otherwise).

//go:noescape
func butterflies4Asm(p *complex128, d, m, groups, gstride uintptr, w1, w2, w3 *complex128, s1, s2, s3 uintptr)

//go:noescape
func butterflies4ConstAsm(p *complex128, d, m, groups, gstride uintptr, w1, w2, w3 *complex128)

//go:noescape
func butterflies4OneAsm(p *complex128, d, m, groups, gstride uintptr, w3r, w3i float64)

//go:noescape
func butterflies2Asm(p *complex128, d, m, groups, gstride uintptr, w *complex128, s uintptr)

//go:noescape
func sumDiffAsm(p *complex128, d, m, groups, gstride uintptr)

//go:noescape
func permuteFirstStagesAsm(x *complex128, n, rows uintptr, swaps *int, nswaps, inverse uintptr)

//go:noescape
func swapRowsAsm(data *complex128, n uintptr, rev *int)

//go:noescape
func foldRowsAsm(acc *float64, rowBytes uintptr, src *float32, srcStride, nx uintptr, tx, ty *int, ny uintptr)

//go:noescape
func satFoldAsm(acc *float64, rowBytes uintptr, sat *float64, strideBytes uintptr, xb, bx *int, nx uintptr, yb, by *int, ny uintptr)

//go:noescape
func maxRunsAsm(dst, ext, pre, suf *float32, n, m, w uintptr)

//go:noescape
func poolMaxAsm(sum *float64, zb, rows, out, ext, pre, suf *float32, T, r, k0 uintptr)

//go:noescape
func tapsApplyAsm(dst *float32, n uintptr, src *float32, start, off *int, w *float32)

//go:noescape
func powerOfAsm(p *float64, buf *complex128, n uintptr)

//go:noescape
func boxRowsAsm(dst, src *float64, n, k0, w uintptr, add, sub *int)

//go:noescape
func whitenColsAsm(out, pw, tmp, col *float64, n uintptr, add, sub *int, inv float64)

//go:noescape
func boxLineAsm(dst, src *float32, n, r uintptr, inv *float64)

//go:noescape
func boxColsAsm(dst *float32, col *float64, in, out *float32, n uintptr, inv float64)

//go:noescape
func warpRowAsm(acc *float64, T uintptr, row *float32, n uintptr, ux, uy, dux, duy, ddux, dduy int64, shift uintptr)

//go:noescape
func foldAspectAsm(accT, p *float64, G, T, C uintptr, r float64, i0, i1 uintptr)

//go:noescape
func packPairAsm(z *complex128, a, b *float64, n uintptr)

//go:noescape
func verticalSumAsm(even, odd *uint64, tail *uint32, ng, nt uintptr, src *uint8, stride, n uintptr)

//go:noescape
func verticalTakeAsm(dst *float32, even, odd *uint64, tail *uint32, ng, nt uintptr, a, b *uint8, wt, wa, wb float32)

//go:noescape
func absRowMeansAsm(e *float64, rows uintptr, hp *float32, strideBytes, n uintptr)

//go:noescape
func absColSumsAsm(col *float64, w uintptr, hp *float32, rows uintptr)

//go:noescape
func profileFoldAsm(p *float64, rowBytes uintptr, hp *float32, w, h uintptr, bins *int, landscape uintptr)

//go:noescape
func countFlatAsm(pix *uint8, stride, x0, x1, y0, y1, step uintptr) uintptr

//go:noescape
func mulKernelAsm(dst, a, b *complex128, n uintptr)

// peakScanAsm writes sr, si, ssr, ssi, br, bi to sums and the two indices
// to idx.
//
//go:noescape
func peakScanAsm(buf *complex128, n uintptr, sums *[6]float64, idx *[2]uint64)
