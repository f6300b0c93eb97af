package imagex

// Inverse DCTs at full and reduced size, in integers so that every build
// (native, WebAssembly) gives the same bytes.
//
// The 8×8 inverse DCT of T.81 A.3.3 is
//
//	f(x, y) = 1/4 Σu Σv C(u) C(v) F(v, u) cos((2x+1)uπ/16) cos((2y+1)vπ/16)
//
// with C(0) = 1/√2 and C(k) = 1 otherwise. It is separable, so the mean of
// f over a group of n×n pixels is the same sum with each cosine replaced
// by its mean over the group's n positions. The reduced transforms
// compute exactly that, from all 64 coefficients: the output is the area
// average of the (unclipped) full-size block, which is what the checks
// would have computed from a full decode.
//
//   - 1/8: the mean of every cosine with u > 0 over a whole block is 0, so
//     the block's mean is F(0,0)/8.
//   - 1/4 (groups of 4): the means of the even frequencies u = 2, 4, 6
//     vanish too, and the odd ones are ±w(u) with
//     w(u) = 1/4 Σ_{x<4} cos((2x+1)uπ/16).
//   - 1/2 (pairs): the mean of cos((2x+1)uπ/16) over x = 2g, 2g+1 is
//     cos((2g+1)uπ/8)·cos(uπ/16); for u ≥ 4 the first factor folds back
//     onto 8-u with a minus sign (u = 4 vanishes), so the pair means are
//     the 4-point inverse DCT of G(k) = F(k)cos(kπ/16) - F(8-k)cos((8-k)π/16).
//
// Constants are scaled by 2^13; the first pass keeps 3 fractional bits.
const (
	idctBits = 13
	pass1    = 3
	cos1     = 8035 // cos(π/16)
	cos2     = 7568 // cos(2π/16)
	cos3     = 6811 // cos(3π/16)
	cos4     = 5793 // cos(4π/16) = 1/√2
	cos5     = 4551 // cos(5π/16)
	cos6     = 3135 // cos(6π/16)
	cos7     = 1598 // cos(7π/16)
	// w(u) = 1/4 Σ_{x<4} cos((2x+1)uπ/16), for the 1/4 scale.
	quad1 = 5249  // 0.640728
	quad3 = -1843 // -0.224994
	quad5 = 1232  // 0.150340
	quad7 = -1044 // -0.127448
)

// clampLevel returns v limited to 0..255.
func clampLevel(v int32) uint8 {
	if uint32(v) > 255 {
		if v < 0 {
			return 0
		}
		return 255
	}
	return uint8(v)
}

// even4 is the 4-point inverse DCT (without its factor 1/2) of a, b, c, d,
// the frequencies 0, 1, 2, 3 of a 4-point transform, or equally 0, 2, 4, 6
// of an 8-point one.
func even4(a, b, c, d int32) (e0, e1, e2, e3 int32) {
	t0 := (a + c) * cos4
	t1 := (a - c) * cos4
	p := b*cos2 + d*cos6
	q := b*cos6 - d*cos2
	return t0 + p, t1 + q, t1 - q, t0 - p
}

// idct8 writes the 8×8 inverse DCT of blk (dequantised, row-major) plus the
// level shift of 128 into dst (stride bytes per row). Columns cols..7 of
// blk are all zero (8: any may not be): their first pass is zero, so it
// is not run.
func idct8(blk *[64]int32, dst []uint8, stride, cols int) {
	var tmp [64]int32
	// Columns: frequency v down each column u.
	for u := 0; u < min(cols, 8); u++ {
		f0, f1, f2, f3 := blk[u], blk[8+u], blk[16+u], blk[24+u]
		f4, f5, f6, f7 := blk[32+u], blk[40+u], blk[48+u], blk[56+u]
		if f1|f2|f3|f4|f5|f6|f7 == 0 {
			v := (f0*cos4 + 1<<(idctBits-pass1-1)) >> (idctBits - pass1)
			for y := 0; y < 8; y++ {
				tmp[8*y+u] = v
			}
			continue
		}
		e0, e1, e2, e3 := even4(f0, f2, f4, f6)
		o0 := f1*cos1 + f3*cos3 + f5*cos5 + f7*cos7
		o1 := f1*cos3 - f3*cos7 - f5*cos1 - f7*cos5
		o2 := f1*cos5 - f3*cos1 + f5*cos7 + f7*cos3
		o3 := f1*cos7 - f3*cos5 + f5*cos3 - f7*cos1
		const r = 1 << (idctBits - pass1 - 1)
		const sh = idctBits - pass1
		tmp[u] = (e0 + o0 + r) >> sh
		tmp[56+u] = (e0 - o0 + r) >> sh
		tmp[8+u] = (e1 + o1 + r) >> sh
		tmp[48+u] = (e1 - o1 + r) >> sh
		tmp[16+u] = (e2 + o2 + r) >> sh
		tmp[40+u] = (e2 - o2 + r) >> sh
		tmp[24+u] = (e3 + o3 + r) >> sh
		tmp[32+u] = (e3 - o3 + r) >> sh
	}
	// Rows, with the factor 1/4, the level shift and rounding.
	const sh = idctBits + pass1 + 2
	const bias = 128<<sh + 1<<(sh-1)
	for y := 0; y < 8; y++ {
		t := tmp[8*y : 8*y+8 : 8*y+8]
		row := dst[y*stride : y*stride+8 : y*stride+8]
		if t[1]|t[2]|t[3]|t[4]|t[5]|t[6]|t[7] == 0 {
			v := clampLevel((t[0]*cos4 + bias) >> sh)
			for x := range row {
				row[x] = v
			}
			continue
		}
		e0, e1, e2, e3 := even4(t[0], t[2], t[4], t[6])
		o0 := t[1]*cos1 + t[3]*cos3 + t[5]*cos5 + t[7]*cos7
		o1 := t[1]*cos3 - t[3]*cos7 - t[5]*cos1 - t[7]*cos5
		o2 := t[1]*cos5 - t[3]*cos1 + t[5]*cos7 + t[7]*cos3
		o3 := t[1]*cos7 - t[3]*cos5 + t[5]*cos3 - t[7]*cos1
		row[0] = clampLevel((e0 + o0 + bias) >> sh)
		row[7] = clampLevel((e0 - o0 + bias) >> sh)
		row[1] = clampLevel((e1 + o1 + bias) >> sh)
		row[6] = clampLevel((e1 - o1 + bias) >> sh)
		row[2] = clampLevel((e2 + o2 + bias) >> sh)
		row[5] = clampLevel((e2 - o2 + bias) >> sh)
		row[3] = clampLevel((e3 + o3 + bias) >> sh)
		row[4] = clampLevel((e3 - o3 + bias) >> sh)
	}
}

// idct4 writes the pair means of the block's inverse DCT (4×4) into dst.
// Columns cols..7 of blk are all zero, as for idct8.
func idct4(blk *[64]int32, dst []uint8, stride, cols int) {
	var tmp [32]int32 // 4 rows × 8 columns
	const r = 1 << (idctBits - pass1 - 1)
	const sh = idctBits - pass1
	for u := 0; u < min(cols, 8); u++ {
		if u == 4 {
			// Frequency 4 vanishes from pair means (the row pass
			// reads no column 4), as row 4 does here.
			continue
		}
		f0, f1, f2, f3 := blk[u], blk[8+u], blk[16+u], blk[24+u]
		f5, f6, f7 := blk[40+u], blk[48+u], blk[56+u]
		if f1|f2|f3|f5|f6|f7 == 0 {
			v := (f0*cos4 + r) >> sh
			tmp[u], tmp[8+u], tmp[16+u], tmp[24+u] = v, v, v, v
			continue
		}
		g1 := (f1*cos1 - f7*cos7 + r) >> sh
		g2 := (f2*cos2 - f6*cos6 + r) >> sh
		g3 := (f3*cos3 - f5*cos5 + r) >> sh
		e0, e1, e2, e3 := even4(f0<<pass1, g1, g2, g3)
		const r2 = 1 << (idctBits - 1)
		tmp[u] = (e0 + r2) >> idctBits
		tmp[8+u] = (e1 + r2) >> idctBits
		tmp[16+u] = (e2 + r2) >> idctBits
		tmp[24+u] = (e3 + r2) >> idctBits
	}
	const sh2 = idctBits + pass1 + 2
	const bias = 128<<sh2 + 1<<(sh2-1)
	for y := 0; y < 4; y++ {
		t := tmp[8*y : 8*y+8 : 8*y+8]
		row := dst[y*stride : y*stride+4 : y*stride+4]
		const r2 = 1 << (idctBits - 1)
		g1 := (t[1]*cos1 - t[7]*cos7 + r2) >> idctBits
		g2 := (t[2]*cos2 - t[6]*cos6 + r2) >> idctBits
		g3 := (t[3]*cos3 - t[5]*cos5 + r2) >> idctBits
		e0, e1, e2, e3 := even4(t[0], g1, g2, g3)
		row[0] = clampLevel((e0 + bias) >> sh2)
		row[1] = clampLevel((e1 + bias) >> sh2)
		row[2] = clampLevel((e2 + bias) >> sh2)
		row[3] = clampLevel((e3 + bias) >> sh2)
	}
}

// idct2 writes the means of the block's inverse DCT over its four 4×4
// quarters into dst. It is written out without loops: in WebAssembly
// every loop iteration of Go code goes through the function's dispatch.
func idct2(blk *[64]int32, dst []uint8, stride int) {
	// Columns u = 0, 1, 3, 5, 7 (the even ones average out): top and
	// bottom half means.
	t0, b0 := idct2Col(blk, 0)
	t1, b1 := idct2Col(blk, 1)
	t3, b3 := idct2Col(blk, 3)
	t5, b5 := idct2Col(blk, 5)
	t7, b7 := idct2Col(blk, 7)
	const sh2 = idctBits + pass1 + 2
	const bias = 128<<sh2 + 1<<(sh2-1)
	top := dst[:2:2]
	c := t0*cos4 + bias
	d := t1*quad1 + t3*quad3 + t5*quad5 + t7*quad7
	top[0] = clampLevel((c + d) >> sh2)
	top[1] = clampLevel((c - d) >> sh2)
	bot := dst[stride : stride+2 : stride+2]
	c = b0*cos4 + bias
	d = b1*quad1 + b3*quad3 + b5*quad5 + b7*quad7
	bot[0] = clampLevel((c + d) >> sh2)
	bot[1] = clampLevel((c - d) >> sh2)
}

// idct2Col is the first pass of idct2 down column u: the means of its top
// and bottom halves.
func idct2Col(blk *[64]int32, u int) (top, bot int32) {
	const r = 1 << (idctBits - pass1 - 1)
	const sh = idctBits - pass1
	c := blk[u&7]*cos4 + r
	d := blk[8+u&7]*quad1 + blk[24+u&7]*quad3 + blk[40+u&7]*quad5 + blk[56+u&7]*quad7
	return (c + d) >> sh, (c - d) >> sh
}

// idct1 is the block's mean level: F00/8 + 128, rounded.
func idct1(dc int32) uint8 {
	return clampLevel((dc + 128*8 + 4) >> 3)
}
