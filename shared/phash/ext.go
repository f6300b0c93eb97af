package phash

import (
	"math"

	"github.com/corona10/goimagehash/etcs"

	"github.com/provenant/provenant/shared/imagex"
)

// ext256 returns goimagehash.ExtPerceptionHash(img, 16, 16) of a 256×256
// plane, bit for bit: the same grey conversion, the same unscaled DCT-II
// (Byeong Gi Lee's recursion, as goimagehash's transforms.DCT1D) with the
// same floating-point operations in the same order, the same 16×16
// low-frequency block and goimagehash's own median (etcs.MedianOfPixels).
// It differs only in cost: the cosines are computed once per call instead of
// once per butterfly, only the 16 columns the hash reads are transformed
// (goimagehash transforms all 256, each in its own goroutine), and every
// transform stops at the 16 lowest outputs. The
// differential test TestExt256MatchesGoimagehash holds it to that.
func ext256(l *imagex.Luma) [4]uint64 {
	flat := coeffs256(l)
	return bits256(flat[:])
}

// coeffs256 returns the 16×16 low-frequency DCT block ext256 thresholds,
// row-major (vertical frequency × 16 + horizontal frequency).
func coeffs256(l *imagex.Luma) [256]float64 {
	const n = Side256
	var lum [256]float64
	for v := range lum {
		// transforms.pixel2Gray on color.Gray{v}: r/257 = g/257 = b/256 = v.
		f := float64(v)
		lum[v] = 0.299*f + 0.587*f + 0.114*f
	}
	d := newLee(n)
	px := make([]float64, n*n)
	for y := 0; y < n; y++ {
		row := px[y*n : (y+1)*n]
		src := l.Pix[y*l.Stride : y*l.Stride+n]
		for x, v := range src {
			row[x] = lum[v]
		}
		d.low(row, 16)
	}
	var flat [256]float64
	col := make([]float64, n)
	for x := 0; x < 16; x++ {
		for y := range col {
			col[y] = px[y*n+x]
		}
		d.low(col, 16)
		for y := 0; y < 16; y++ {
			flat[16*y+x] = col[y]
		}
	}
	return flat
}

// bits256 thresholds 256 coefficients at goimagehash's median.
func bits256(flat []float64) [4]uint64 {
	median := etcs.MedianOfPixels(flat)
	var h [4]uint64
	for i, p := range flat {
		if p > median {
			h[i/64] |= 1 << uint(63-i%64)
		}
	}
	return h
}

// lee is an unscaled DCT-II of a fixed power-of-two length.
type lee struct {
	temp []float64
	// div[k] holds cos((i+0.5)π/len)·2 for len = n>>k, i < len/2; the
	// tables lie one after the other in divs, div[k] from divAt[k].
	div   [][]float64
	divs  []float64
	divAt []int
	// ops is the plan of low(·, opsK) (leeOps), made on first use.
	ops  []int
	opsK int
}

func newLee(n int) *lee {
	d := &lee{temp: make([]float64, n), divs: make([]float64, 0, n), opsK: -1}
	for ln := n; ln >= 2; ln /= 2 {
		d.divAt = append(d.divAt, len(d.divs))
		for i := 0; i < ln/2; i++ {
			d.divs = append(d.divs, math.Cos((float64(i)+0.5)*math.Pi/float64(ln))*2)
		}
		d.div = append(d.div, d.divs[d.divAt[len(d.divAt)-1]:])
	}
	return d
}

// low computes only outputs in[0:k] of the transform (the rest of in is left
// as scratch). Each output it computes goes through exactly the operations
// of the full transform, so it is bit-identical; it skips the butterflies
// and sub-transforms that only feed higher outputs. len(in) is the
// transform's length.
func (d *lee) low(in []float64, k int) {
	if len(in) != len(d.temp) {
		panic("phash: lee: bad length")
	}
	if k < 0 {
		// The plan's joins would count down from a negative length, and
		// the WebAssembly kernel loops until its count reaches zero.
		panic("phash: lee: negative output count")
	}
	leeLowImpl(d, in, k)
}

// The steps of a plan (leeOps), six ints each: kind, buffer, off, half, a,
// b. A step works on the block of 2·half values from off of one buffer (in:
// the input when buffer is 0, temp when 1) and the same block of the other
// (tmp).
const (
	leeSums    = iota // tmp[i] = in[i] + in[n−1−i], i < half
	leeSplit          // and tmp[half+i] = (in[i] − in[n−1−i]) / divs[a+i]
	leeJoin           // in[2i] = tmp[i], i < a; in[2i+1] = tmp[half+i] + tmp[half+i+1], i < b
	leeJoinAll        // leeJoin, then in[n−1] = tmp[n−1]
)

// plan returns the steps of low(·, k) in the order forwardLow's recursion
// takes them, each sub-transform working in its own block of the two
// buffers (where the recursion hands its second half the first half's
// scratch: what a step reads is always what an earlier step wrote for it,
// so the values are the same). WebAssembly runs it as one loop, without
// the recursion's few hundred calls.
func (d *lee) plan(k int) []int {
	if d.opsK != k {
		d.ops, d.opsK = d.planBlock(d.ops[:0], len(d.temp), 0, 0, 0, k), k
	}
	return d.ops
}

func (d *lee) planBlock(ops []int, n, depth, buf, off, k int) []int {
	if n == 1 {
		return ops
	}
	half := n / 2
	even, odd := (k+1)/2, k/2
	kind, join, second := leeSums, leeJoin, odd+1
	if k >= n-1 {
		// forward: every output.
		even, odd, join, second = half, half-1, leeJoinAll, half
	}
	if odd > 0 || join == leeJoinAll {
		kind = leeSplit
	}
	ops = append(ops, kind, buf, off, half, d.divAt[depth], 0)
	ops = d.planBlock(ops, half, depth+1, 1-buf, off, even)
	if kind == leeSplit {
		ops = d.planBlock(ops, half, depth+1, 1-buf, off+half, second)
	}
	return append(ops, join, buf, off, half, even, odd)
}

// forwardLow is low's recursion (the body on every architecture but
// WebAssembly, which runs its plan).
func (d *lee) forwardLow(input, temp []float64, n, depth, k int) {
	if n == 1 {
		return
	}
	if k >= n-1 {
		d.forward(input, temp, n, depth)
		return
	}
	half := n / 2
	div := d.div[depth][:half]
	in, tmp := input[:n], temp[:n]
	even, odd := (k+1)/2, k/2 // outputs 2i < k come from the first half, 2i+1 < k from the second
	if odd > 0 {
		for i := 0; i < half; i++ {
			x, y := in[i], in[n-1-i]
			tmp[i] = x + y
			tmp[i+half] = (x - y) / div[i]
		}
	} else {
		for i := 0; i < half; i++ {
			tmp[i] = in[i] + in[n-1-i]
		}
	}
	d.forwardLow(tmp, in, half, depth+1, even)
	if odd > 0 {
		d.forwardLow(tmp[half:], in, half, depth+1, odd+1)
	}
	for i := 0; i < even; i++ {
		in[2*i] = tmp[i]
	}
	for i := 0; i < odd; i++ {
		in[2*i+1] = tmp[i+half] + tmp[i+half+1]
	}
}

// forward mirrors goimagehash transforms.forwardTransform; k is the depth
// (n = len >> k), which selects the cosine table.
func (d *lee) forward(input, temp []float64, n, k int) {
	if n == 1 {
		return
	}
	half := n / 2
	div := d.div[k][:half]
	in, tmp := input[:n], temp[:n]
	for i := 0; i < half; i++ {
		x, y := in[i], in[n-1-i]
		tmp[i] = x + y
		tmp[i+half] = (x - y) / div[i]
	}
	d.forward(tmp, in, half, k+1)
	d.forward(tmp[half:], in, half, k+1)
	for i := 0; i < half-1; i++ {
		in[i*2+0] = tmp[i]
		in[i*2+1] = tmp[i+half] + tmp[i+half+1]
	}
	in[n-2], in[n-1] = tmp[half-1], tmp[n-1]
}
