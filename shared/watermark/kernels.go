package watermark

import (
	"image"
	"math"
)

// The FFT's butterfly passes, as leaf kernels with one portable Go body
// each (the *Go functions below, used on every architecture but wasm) and
// a WebAssembly assembly body (kernels_wasm.s). Go's WebAssembly output
// sends every jump, a loop's back edge included, through its function's
// dispatch loop (a br_table on a block number), so a Go loop costs a
// dispatch per iteration; the assembly bodies use WebAssembly's own
// structured loops and keep their values in locals. Both bodies perform
// the same floating-point operations in the same order, with no fused
// multiply-add, so their results are identical to the bit
// (TestKernelsMatchGo, FuzzKernelsMatchGo, run natively and in wazero).
//
// The exported-to-the-package wrappers check every index a kernel will
// touch before it runs, so the assembly bodies never read or write outside
// their slices.

// butterflies4 runs two radix-2 stages at once on quartets of x: for each
// group g < groups and k < m, with i = off + g*gstride + k, the values
// a, b, c, d = x[i], x[i+d], x[i+2d], x[i+3d] and the twiddles
// w1 = tw[t1+k*s1], w2 = tw[t2+k*s2], w3 = tw[t3+k*s3] become
//
//	b, d = b*w1, d*w1
//	a, b = a+b, a-b
//	c, d = c+d, c-d
//	c, d = c*w2, d*w3
//	x[i], x[i+2d] = a+c, a-c
//	x[i+d], x[i+3d] = b+d, b-d
func butterflies4(x []complex128, off, d, m, groups, gstride int, tw []complex128, t1, s1, t2, s2, t3, s3 int) {
	if m <= 0 || groups <= 0 {
		return
	}
	checkRun(len(x), off, m, groups, gstride, 3, d)
	checkTwiddles(len(tw), m, t1, s1)
	checkTwiddles(len(tw), m, t2, s2)
	checkTwiddles(len(tw), m, t3, s3)
	butterflies4Impl(x, off, d, m, groups, gstride, tw, t1, s1, t2, s2, t3, s3)
}

// butterflies4One is butterflies4 with w1 = w2 = 1 (no multiplication by
// them, as the stages one at a time do for twiddle 1) and w3 the same for
// every k.
func butterflies4One(x []complex128, off, d, m, groups, gstride int, w3 complex128) {
	if m <= 0 || groups <= 0 {
		return
	}
	checkRun(len(x), off, m, groups, gstride, 3, d)
	butterflies4OneImpl(x, off, d, m, groups, gstride, w3)
}

// butterflies2 runs one radix-2 stage on pairs: for g < groups and k < m,
// with i = off + g*gstride + k, a, b = x[i], x[i+d]*tw[t+k*s] become
// x[i], x[i+d] = a+b, a-b.
func butterflies2(x []complex128, off, d, m, groups, gstride int, tw []complex128, t, s int) {
	if m <= 0 || groups <= 0 {
		return
	}
	checkRun(len(x), off, m, groups, gstride, 1, d)
	checkTwiddles(len(tw), m, t, s)
	butterflies2Impl(x, off, d, m, groups, gstride, tw, t, s)
}

// sumDiff is butterflies2 with twiddle 1 (no multiplication).
func sumDiff(x []complex128, off, d, m, groups, gstride int) {
	if m <= 0 || groups <= 0 {
		return
	}
	checkRun(len(x), off, m, groups, gstride, 1, d)
	sumDiffImpl(x, off, d, m, groups, gstride)
}

// permuteFirstStages runs, on each row of n values of x (n a power of two,
// at least 4; len(x) a multiple of n), the bit-reversal permutation rev
// (swap x[i] and x[r] where i < r = rev[i] mod n) and then the first two
// radix-2 stages: for i = 0, 4, 8, …,
//
//	a0, b0, a1, b1 = x[i], x[i+1], x[i+2], x[i+3]
//	a0, b0 = a0+b0, a0-b0
//	a1, b1 = a1+b1, a1-b1
//	t = b1 × (−i) forward, b1 × (+i) inverse
//	x[i], x[i+2] = a0+a1, a0-a1
//	x[i+1], x[i+3] = b0+t, b0-t
//
// rev mod n must be an involution (the bit reversal is): the portable
// body gathers each row from a copy, the assembly one swaps in place, and
// the two agree only then. Taking rev mod n keeps every access inside the
// row whatever rev holds.
//
// swaps is revSwaps(rev, n): the same permutation as a list of the swaps
// it makes, which the WebAssembly body runs instead of testing every
// index.
func permuteFirstStages(x []complex128, n int, rev, swaps []int, inverse bool) {
	if n < 4 || n&(n-1) != 0 || len(x)%n != 0 || len(rev) < n || len(swaps)%2 != 0 {
		panic("watermark: permuteFirstStages: bad shape")
	}
	checkIndices("permuteFirstStages: swap", n, swaps)
	if len(x) == 0 {
		return
	}
	permuteFirstStagesImpl(x, n, rev, swaps, inverse)
}

// revSwaps lists, in order, the pairs (i, r) with r = rev[i] mod n and
// i < r: the swaps that put a row of n values in rev's order.
func revSwaps(rev []int, n int) []int {
	var swaps []int
	for i, r := range rev[:n] {
		if r &= n - 1; i < r {
			swaps = append(swaps, i, r)
		}
	}
	return swaps
}

// swapRows swaps rows i and r = rev[i] mod n of the n×n data where i < r:
// the bit-reversal permutation of the columns' transforms, done on whole
// rows.
func swapRows(data []complex128, n int, rev []int) {
	if n < 1 || n&(n-1) != 0 || len(data) != n*n || len(rev) < n {
		panic("watermark: swapRows: bad shape")
	}
	swapRowsImpl(data, n, rev)
}

// foldRows adds the window of hp (w values per row) whose rows start at
// (x0, y0) into the T×T bins of acc: pixel (x0+i, y0+j) goes to bin
// (tx[i], ty[j]), pixels in row-major order, so each bin's sum is taken in
// the same order on every architecture.
func foldRows(acc []float64, T int, hp []float32, w, x0, y0 int, tx, ty []int) {
	if len(tx) == 0 || len(ty) == 0 {
		return
	}
	if T <= 0 || len(acc) < T*T || x0 < 0 || y0 < 0 || w < 0 ||
		(y0+len(ty)-1)*w+x0+len(tx) > len(hp) {
		panic("watermark: foldRows: window out of range")
	}
	checkIndices("foldRows: bin", T, tx, ty)
	foldRowsImpl(acc, T, hp, w, x0, y0, tx, ty)
}

// satFold adds, for every chip-sized rectangle of a summed-area table,
// its sum into a G×G grid of bins: with rows (the table's lines)
// yb[0] < yb[1] < … and columns xb[0] < xb[1] < …, rectangle (i, j) sums to
//
//	sat[yb[j+1]][xb[i+1]] - sat[yb[j+1]][xb[i]] - sat[yb[j]][xb[i+1]] + sat[yb[j]][xb[i]]
//
// (computed in that order, left to right) and is added to bin
// (bx[i], by[j]), rectangles in row-major order. stride is the table's
// row length; len(xb) = len(bx)+1 and len(yb) = len(by)+1.
func satFold(acc []float64, G int, sat []float64, stride int, xb, bx, yb, by []int) {
	if len(bx) == 0 || len(by) == 0 {
		return
	}
	if G <= 0 || len(acc) < G*G || stride <= 0 || len(xb) != len(bx)+1 || len(yb) != len(by)+1 {
		panic("watermark: satFold: bad shape")
	}
	checkIndices("satFold: column", stride, xb)
	checkIndices("satFold: row", len(sat)/stride, yb)
	checkIndices("satFold: bin", G, bx, by)
	satFoldImpl(acc, G, sat, stride, xb, bx, yb, by)
}

// maxRuns is the van Herk / Gil-Werman running maximum: ext is cut into
// segments of W values starting at multiples of W; pre gets each
// segment's prefix maxima, suf its suffix maxima, and dst[x] the larger
// of suf[x] and pre[x+W-1] (the maximum of ext[x … x+W-1]). A value
// replaces the one kept only when it is greater (a NaN never does), on
// every architecture. len(ext) = len(dst)+W-1; pre and suf at least as
// long as ext.
func maxRuns(dst, ext, pre, suf []float32, W int) {
	m := len(ext)
	if W < 1 || len(dst) < 1 || m != len(dst)+W-1 || len(pre) < m || len(suf) < m {
		panic("watermark: maxRuns: bad shape")
	}
	maxRunsImpl(dst, ext, pre[:m], suf[:m], W)
}

// poolMax adds to sum the separable cyclic max filter of the T×T plane
// zb within c's reach: every row's (into rows), then every column's of
// that (pooledOffset; c.n = T). rows (T² values), line and out (T) are
// scratch.
func poolMax(sum []float64, zb, rows, line, out []float32, c *cyclicMax) {
	T := c.n
	if T < 1 || len(sum) != T*T || len(zb) != T*T || len(rows) != T*T || len(line) != T || len(out) != T ||
		c.r < 0 || len(c.ext) != T+2*c.r || len(c.pre) != len(c.ext) || len(c.suf) != len(c.ext) {
		panic("watermark: poolMax: bad shape")
	}
	poolMaxImpl(sum, zb, rows, line, out, c)
}

// powerOf sets p[i] = |buf[i]|²; the two have the same length.
func powerOf(p []float64, buf []complex128) {
	if len(p) != len(buf) {
		panic("watermark: powerOf: bad shape")
	}
	if len(p) > 0 {
		powerOfImpl(p, buf)
	}
}

// boxRows sets every row of dst (N×N) to the cyclic sums of the same row
// of src over the 2r+1 values centred on each entry: the first summed in
// order from −r, the next advanced by adding src[add[x]] − src[sub[x]]
// (newLatticeMap: add[x] = (x+r+1) mod N, sub[x] = (x−r) mod N).
func boxRows(dst, src []float64, N, r int, add, sub []int) {
	if N < 1 || r < 0 || r >= N || len(dst) != N*N || len(src) != N*N || len(add) != N || len(sub) != N {
		panic("watermark: boxRows: bad shape")
	}
	checkIndices("boxRows: add or sub", N, add, sub)
	boxRowsImpl(dst, src, N, r, add, sub)
}

// whitenCols walks col, the running column sums of the box rows tmp
// (N×N, N = len(col)), down the plane: at row y it adds pw/col·inv to out
// where the sum is positive, then advances each column's sum by
// tmp[add[y]] − tmp[sub[y]] (newLatticeMap).
func whitenCols(out, pw, tmp, col []float64, add, sub []int, inv float64) {
	N := len(col)
	if N < 1 || len(out) != N*N || len(pw) != N*N || len(tmp) != N*N || len(add) != N || len(sub) != N {
		panic("watermark: whitenCols: bad shape")
	}
	checkIndices("whitenCols: add or sub", N, add, sub)
	whitenColsImpl(out, pw, tmp, col, add, sub, inv)
}

// warpRow adds each value of row to the bin of acc (T×T) at the tile
// position of its fixed-point coordinates (ux, uy), which move by (dux,
// duy) from one value to the next, a step that itself moves by (ddux,
// dduy) (foldWarpTo). The bins are taken modulo the tile, so every one is
// inside acc.
func warpRow(acc []float64, T int, row []float32, ux, uy, dux, duy, ddux, dduy int64) {
	if T < 1 || len(acc) < T*T {
		panic("watermark: warpRow: bad shape")
	}
	if len(row) > 0 {
		warpRowImpl(acc, T, row, ux, uy, dux, duy, ddux, dduy)
	}
}

// foldAspect adds each row i of p (G values a row), i0 ≤ i < i1, to row
// (int((i+0.5)/r) mod T)/C of accT (G×G) (aspectFold). T ≤ G·C keeps that
// row inside accT; r > 0, and small enough a quotient for an int, keeps it
// from being negative.
func foldAspect(accT, p []float64, G, T, C int, r float64, i0, i1 int) {
	if G < 1 || T < 1 || C < 1 || T > G*C || len(accT) < G*G || i0 < 0 || i1 > len(p)/G ||
		!(r > 0) || !((float64(i1)+0.5)/r < 1<<62) {
		panic("watermark: foldAspect: bad shape")
	}
	if i0 < i1 {
		foldAspectImpl(accT, p, G, T, C, r, i0, i1)
	}
}

// absRowMeans sets e[y] to the mean magnitude of row y of hp (w values a
// row, len(e) rows) over the columns [x0, x1) (pictureBox).
func absRowMeans(e []float64, hp []float32, w, x0, x1 int) {
	if x0 < 0 || x1 < x0 || x1 > w || len(hp) < len(e)*w {
		panic("watermark: absRowMeans: bad shape")
	}
	switch {
	case x1 == x0:
		absRowMeansGo(e, hp, w, x0, x1) // 0/0
	case len(e) > 0:
		absRowMeansImpl(e, hp, w, x0, x1)
	}
}

// absColSums adds to col[x] the magnitudes of column x of the rows of hp
// (len(col) values a row) (pictureBox).
func absColSums(col []float64, hp []float32) {
	if len(hp) == 0 {
		return
	}
	if len(col) == 0 || len(hp)%len(col) != 0 {
		panic("watermark: absColSums: bad shape")
	}
	absColSumsImpl(col, hp)
}

// profileFold adds each value of hp (rows of w) to its chip bin of the
// short-axis profile p (G bins per position along the long axis;
// shortProfile): along x (landscape) at p[x·G + bins[y]], else along y at
// p[y·G + bins[x]].
func profileFold(p []float64, G int, hp []float32, w int, bins []int, landscape bool) {
	if len(hp) == 0 {
		return
	}
	if w < 1 || len(hp)%w != 0 {
		panic("watermark: profileFold: bad shape")
	}
	long := len(hp) / w
	if landscape {
		long = w
	}
	if len(bins) != len(hp)/long || len(p) < G*long {
		panic("watermark: profileFold: bad shape")
	}
	checkIndices("profileFold: bin", G, bins)
	profileFoldImpl(p, G, hp, w, bins, landscape)
}

// countFlat counts the pixels (x, y) of r, every step-th of each axis,
// equal to their right and lower neighbours (flatFraction); those lie in
// pix (rows stride apart).
func countFlat(pix []uint8, stride int, r image.Rectangle, step int) int {
	if r.Empty() {
		return 0
	}
	if step < 1 || r.Min.X < 0 || r.Min.Y < 0 || r.Max.X >= stride || r.Max.Y*stride+r.Max.X > len(pix) {
		panic("watermark: countFlat: bad shape")
	}
	return countFlatImpl(pix, stride, r, step)
}

// mulKernel sets dst[i] = a[i]·b[i]; the three have the same length.
func mulKernel(dst, a, b []complex128) {
	if len(dst) != len(a) || len(b) != len(a) {
		panic("watermark: mulKernel: lengths differ")
	}
	if len(a) == 0 {
		return
	}
	mulKernelImpl(dst, a, b)
}

// peakScan returns, over buf in order, the sums of the real parts, of the
// imaginary parts and of their squares, the largest real and imaginary
// parts (−Inf for an empty buf) and the first index of each.
func peakScan(buf []complex128) (sr, si, ssr, ssi, br, bi float64, idx [2]int) {
	if len(buf) == 0 {
		return 0, 0, 0, 0, math.Inf(-1), math.Inf(-1), idx
	}
	return peakScanImpl(buf)
}

// checkIndices panics unless every value of every list is in [0, n).
func checkIndices(what string, n int, lists ...[]int) {
	for _, l := range lists {
		for _, v := range l {
			if uint(v) >= uint(n) {
				panic("watermark: " + what + " out of range")
			}
		}
	}
}

// checkRun panics unless every index off + g*gstride + k + j*d, for
// g < groups, k < m and j ≤ span, lies in [0, n). m and groups are ≥ 1.
func checkRun(n, off, m, groups, gstride, span, d int) {
	if off < 0 || d < 0 || gstride < 0 || m > n || groups > n || d > n || (groups > 1 && gstride > n) || off >= n {
		panic("watermark: kernel run out of range")
	}
	if last := off + (groups-1)*gstride + (m - 1) + span*d; last >= n {
		panic("watermark: kernel run out of range")
	}
}

// checkTwiddles panics unless t + k*s < n for every k < m (m is at most
// the length of the run checked by checkRun).
func checkTwiddles(n, m, t, s int) {
	if t < 0 || s < 0 || t >= n || (m > 1 && s > n) || t+(m-1)*s >= n {
		panic("watermark: kernel twiddles out of range")
	}
}

// quarters returns the four runs of m values, d apart, from x[i], capped
// at m so that the loops over them need no bounds checks.
func quarters(x []complex128, i, d, m int) (q0, q1, q2, q3 []complex128) {
	return x[i : i+m : i+m], x[i+d : i+d+m : i+d+m], x[i+2*d : i+2*d+m : i+2*d+m], x[i+3*d : i+3*d+m : i+3*d+m]
}

func butterflies4Go(x []complex128, off, d, m, groups, gstride int, tw []complex128, t1, s1, t2, s2, t3, s3 int) {
	if s1 == 0 && s2 == 0 && s3 == 0 {
		// The same twiddles for every k (the column passes): in registers.
		butterflies4ConstGo(x, off, d, m, groups, gstride, tw[t1], tw[t2], tw[t3])
		return
	}
	for g := 0; g < groups; g++ {
		q0, q1, q2, q3 := quarters(x, off+g*gstride, d, m)
		for k, a := range q0 {
			w1 := tw[t1+k*s1]
			b := q1[k] * w1
			c, d := q2[k], q3[k]*w1
			a, b = a+b, a-b
			c, d = c+d, c-d
			c, d = c*tw[t2+k*s2], d*tw[t3+k*s3]
			q0[k], q2[k] = a+c, a-c
			q1[k], q3[k] = b+d, b-d
		}
	}
}

func butterflies4ConstGo(x []complex128, off, d, m, groups, gstride int, w1, w2, w3 complex128) {
	for g := 0; g < groups; g++ {
		q0, q1, q2, q3 := quarters(x, off+g*gstride, d, m)
		for k, a := range q0 {
			b := q1[k] * w1
			c, d := q2[k], q3[k]*w1
			a, b = a+b, a-b
			c, d = c+d, c-d
			c, d = c*w2, d*w3
			q0[k], q2[k] = a+c, a-c
			q1[k], q3[k] = b+d, b-d
		}
	}
}

func butterflies4OneGo(x []complex128, off, d, m, groups, gstride int, w3 complex128) {
	for g := 0; g < groups; g++ {
		q0, q1, q2, q3 := quarters(x, off+g*gstride, d, m)
		for k, a := range q0 {
			b, c, d := q1[k], q2[k], q3[k]
			a, b = a+b, a-b
			c, d = c+d, c-d
			d *= w3
			q0[k], q2[k] = a+c, a-c
			q1[k], q3[k] = b+d, b-d
		}
	}
}

func butterflies2Go(x []complex128, off, d, m, groups, gstride int, tw []complex128, t, s int) {
	for g := 0; g < groups; g++ {
		i := off + g*gstride
		lo := x[i : i+m : i+m]
		hi := x[i+d : i+d+m : i+d+m]
		for k, a := range lo {
			b := hi[k] * tw[t+k*s]
			lo[k], hi[k] = a+b, a-b
		}
	}
}

func sumDiffGo(x []complex128, off, d, m, groups, gstride int) {
	for g := 0; g < groups; g++ {
		i := off + g*gstride
		lo := x[i : i+m : i+m]
		hi := x[i+d : i+d+m : i+d+m]
		for k, a := range lo {
			b := hi[k]
			lo[k], hi[k] = a+b, a-b
		}
	}
}

func permuteFirstStagesGo(x []complex128, n int, rev []int, inverse bool) {
	// Each row is gathered from its copy, as a pass of swaps (a branch per
	// value) costs more natively; the values are the same.
	var small [256]complex128
	tmp := small[:]
	if n > len(tmp) {
		tmp = make([]complex128, n)
	}
	tmp = tmp[:n]
	rev = rev[:n]
	for len(x) >= n {
		row := x[:n:n]
		x = x[n:]
		copy(tmp, row)
		for i := 0; i+3 < n; i += 4 {
			q, r := row[i:i+4:i+4], rev[i:i+4:i+4]
			a0, b0 := tmp[r[0]&(n-1)], tmp[r[1]&(n-1)]
			a1, b1 := tmp[r[2]&(n-1)], tmp[r[3]&(n-1)]
			a0, b0 = a0+b0, a0-b0
			a1, b1 = a1+b1, a1-b1
			t := complex(imag(b1), -real(b1))
			if inverse {
				t = -t
			}
			q[0], q[2] = a0+a1, a0-a1
			q[1], q[3] = b0+t, b0-t
		}
	}
}

func swapRowsGo(data []complex128, n int, rev []int) {
	for i, r := range rev[:n] {
		if r &= n - 1; i < r {
			a, b := data[i*n:(i+1)*n], data[r*n:(r+1)*n]
			b = b[:len(a)]
			for x := range a {
				a[x], b[x] = b[x], a[x]
			}
		}
	}
}

func foldRowsGo(acc []float64, T int, hp []float32, w, x0, y0 int, tx, ty []int) {
	for j, t := range ty {
		row := acc[t*T : (t+1)*T]
		y := y0 + j
		src := hp[y*w+x0 : y*w+x0+len(tx)]
		tx := tx[:len(src)]
		// Four pixels per iteration, added in the same order (a bin two
		// of them share gets the same sum).
		i := 0
		for ; i+4 <= len(src); i += 4 {
			v, t := src[i:i+4:i+4], tx[i:i+4:i+4]
			row[t[0]] += float64(v[0])
			row[t[1]] += float64(v[1])
			row[t[2]] += float64(v[2])
			row[t[3]] += float64(v[3])
		}
		for ; i < len(src); i++ {
			row[tx[i]] += float64(src[i])
		}
	}
}

// satFoldGo gathers each table row's columns once (a row is the bottom
// of one band of rectangles and the top of the next).
func satFoldGo(acc []float64, G int, sat []float64, stride int, xb, bx, yb, by []int) {
	top, bot := make([]float64, len(xb)), make([]float64, len(xb))
	for i, x := range xb {
		top[i] = sat[yb[0]*stride+x]
	}
	for j, cy := range by {
		r := sat[yb[j+1]*stride:]
		for i, x := range xb {
			bot[i] = r[x]
		}
		row := acc[cy*G : (cy+1)*G]
		for i, cx := range bx {
			row[cx] += bot[i+1] - bot[i] - top[i+1] + top[i]
		}
		top, bot = bot, top
	}
}

func maxRunsGo(dst, ext, pre, suf []float32, W int) {
	m := len(ext)
	// j counts within a segment.
	j := 0
	for i, v := range ext {
		if j != 0 && pre[i-1] > v {
			v = pre[i-1]
		}
		pre[i] = v
		if j++; j == W {
			j = 0
		}
	}
	j = (m - 1) % W
	for i := m - 1; i >= 0; i-- {
		v := ext[i]
		if j != W-1 && i+1 < m && suf[i+1] > v {
			v = suf[i+1]
		}
		suf[i] = v
		if j--; j < 0 {
			j = W - 1
		}
	}
	for x := range dst {
		// The window ext[x … x+W-1] spans at most two segments: the end
		// of the one holding x (its suffix max) and the start of the one
		// holding x+W-1 (its prefix max).
		v := suf[x]
		if p := pre[x+W-1]; p > v {
			v = p
		}
		dst[x] = v
	}
}

func poolMaxGo(sum []float64, zb, rows, line, out []float32, c *cyclicMax) {
	T := c.n
	for y := 0; y < T; y++ {
		c.apply(rows[y*T:(y+1)*T], zb[y*T:(y+1)*T])
	}
	for x := 0; x < T; x++ {
		for y := 0; y < T; y++ {
			line[y] = rows[y*T+x]
		}
		c.apply(out, line)
		for y, v := range out {
			sum[y*T+x] += float64(v)
		}
	}
}

func powerOfGo(p []float64, buf []complex128) {
	p = p[:len(buf)]
	for i, c := range buf {
		p[i] = real(c)*real(c) + imag(c)*imag(c)
	}
}

func boxRowsGo(dst, src []float64, N, r int, add, sub []int) {
	for y := 0; y < N; y++ {
		row, dst := src[y*N:(y+1)*N], dst[y*N:(y+1)*N]
		var sum float64
		for d := -r; d <= r; d++ {
			sum += row[(d+N)%N]
		}
		for x := range dst {
			dst[x] = sum
			sum += row[add[x]] - row[sub[x]]
		}
	}
}

func whitenColsGo(out, pw, tmp, col []float64, add, sub []int, inv float64) {
	N := len(col)
	for y := 0; y < N; y++ {
		out, pw := out[y*N:(y+1)*N], pw[y*N:(y+1)*N]
		in, drop := tmp[add[y]*N:(add[y]+1)*N], tmp[sub[y]*N:(sub[y]+1)*N]
		for x, sum := range col {
			if sum > 0 {
				out[x] += pw[x] / sum * inv
			}
			col[x] = sum + (in[x] - drop[x])
		}
	}
}

func warpRowGo(acc []float64, T int, row []float32, ux, uy, dux, duy, ddux, dduy int64) {
	mask := int64(T - 1)
	for _, v := range row {
		acc[int((uy>>fixBits)&mask)*T+int((ux>>fixBits)&mask)] += float64(v)
		ux += dux
		uy += duy
		dux += ddux
		duy += dduy
	}
}

func foldAspectGo(accT, p []float64, G, T, C int, r float64, i0, i1 int) {
	for i := i0; i < i1; i++ {
		cl := (int((float64(i)+0.5)/r) % T) / C
		dst, src := accT[cl*G:(cl+1)*G:(cl+1)*G], p[i*G:(i+1)*G:(i+1)*G]
		for c, v := range src {
			dst[c] += v
		}
	}
}

func absRowMeansGo(e []float64, hp []float32, w, x0, x1 int) {
	for y := range e {
		var r float64
		for _, v := range hp[y*w+x0 : y*w+x1] {
			r += math.Abs(float64(v))
		}
		e[y] = r / float64(x1-x0)
	}
}

func absColSumsGo(col []float64, hp []float32) {
	w := len(col)
	for y := 0; y < len(hp)/w; y++ {
		for x, v := range hp[y*w : (y+1)*w] {
			col[x] += math.Abs(float64(v))
		}
	}
}

func profileFoldGo(p []float64, G int, hp []float32, w int, bins []int, landscape bool) {
	for y := 0; y < len(hp)/w; y++ {
		if landscape {
			c := bins[y]
			for x, v := range hp[y*w : (y+1)*w] {
				p[x*G+c] += float64(v)
			}
			continue
		}
		dst := p[y*G : (y+1)*G]
		for x, v := range hp[y*w : (y+1)*w] {
			dst[bins[x]] += float64(v)
		}
	}
}

func countFlatGo(pix []uint8, stride int, r image.Rectangle, step int) int {
	flat := 0
	for y := r.Min.Y; y < r.Max.Y; y += step {
		row, below := pix[y*stride:], pix[(y+1)*stride:]
		for x := r.Min.X; x < r.Max.X; x += step {
			if row[x] == row[x+1] && row[x] == below[x] {
				flat++
			}
		}
	}
	return flat
}

func mulKernelGo(dst, a, b []complex128) {
	dst, b = dst[:len(a)], b[:len(a)]
	// Two products per iteration: half the loop's jumps.
	i := 0
	for ; i+2 <= len(a); i += 2 {
		d, x, y := dst[i:i+2:i+2], a[i:i+2:i+2], b[i:i+2:i+2]
		d[0] = x[0] * y[0]
		d[1] = x[1] * y[1]
	}
	for ; i < len(a); i++ {
		dst[i] = a[i] * b[i]
	}
}

func peakScanGo(buf []complex128) (sr, si, ssr, ssi, br, bi float64, idx [2]int) {
	br, bi = math.Inf(-1), math.Inf(-1)
	for i, v := range buf {
		r, im := real(v), imag(v)
		sr += r
		si += im
		ssr += r * r
		ssi += im * im
		if r > br {
			br, idx[0] = r, i
		}
		if im > bi {
			bi, idx[1] = im, i
		}
	}
	return sr, si, ssr, ssi, br, bi, idx
}
