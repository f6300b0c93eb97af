package watermark

import (
	"encoding/binary"
	"image"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
)

// kernelCase is one set of kernel arguments: runs of m values, d apart,
// in groups gstride apart, from off; twiddles from t, s apart.
type kernelCase struct {
	off, d, m, groups, gstride, t, s int
	inverse                          bool
}

// values returns n complex values from raw float64 bits (cycling through
// raw), or from a seeded generator with some signed zeros, huge and tiny
// values mixed in when raw is empty.
func kernelValues(n int, seed uint64, raw []byte) []complex128 {
	v := make([]complex128, n)
	if len(raw) >= 16 {
		for i := range v {
			j := (16 * i) % (len(raw) - len(raw)%16)
			v[i] = complex(math.Float64frombits(binary.LittleEndian.Uint64(raw[j:])),
				math.Float64frombits(binary.LittleEndian.Uint64(raw[j+8:])))
		}
		return v
	}
	r := rand.New(rand.NewPCG(seed, 41))
	special := []float64{0, math.Copysign(0, -1), 1e300, -1e-300, 1, -1}
	for i := range v {
		re, im := r.NormFloat64()*100, r.NormFloat64()*100
		if r.IntN(8) == 0 {
			re = special[r.IntN(len(special))]
		}
		if r.IntN(8) == 0 {
			im = special[r.IntN(len(special))]
		}
		v[i] = complex(re, im)
	}
	return v
}

// sameFloat reports whether x and y hold the same bits; with anyNaN, any
// NaN matches any NaN (WebAssembly leaves NaN payloads open, so the
// kernels' checks allow it; the Go references are held to every bit).
func sameFloat(x, y float64, anyNaN bool) bool {
	return math.Float64bits(x) == math.Float64bits(y) || (anyNaN && math.IsNaN(x) && math.IsNaN(y))
}

// sameBits reports whether a and b hold the same float64 bits (sameFloat),
// and else the first index where they differ.
func sameBits(a, b []complex128, anyNaN bool) (int, bool) {
	for i := range a {
		if !sameFloat(real(a[i]), real(b[i]), anyNaN) || !sameFloat(imag(a[i]), imag(b[i]), anyNaN) {
			return i, false
		}
	}
	return 0, true
}

// checkKernels runs every kernel with c's arguments on x and twiddles tw,
// against its portable Go body, and fails on the first differing bit.
func checkKernels(t *testing.T, c kernelCase, x, tw []complex128) {
	t.Helper()
	run := func(name string, kernel, ref func(x []complex128)) {
		t.Helper()
		got, want := append([]complex128(nil), x...), append([]complex128(nil), x...)
		kernel(got)
		ref(want)
		if i, ok := sameBits(got, want, true); !ok {
			t.Fatalf("%s %+v: x[%d] = %v, the Go body gives %v", name, c, i, got[i], want[i])
		}
	}
	run("butterflies4", func(x []complex128) {
		butterflies4(x, c.off, c.d, c.m, c.groups, c.gstride, tw, c.t, c.s, c.t+1, c.s+1, 0, c.s)
	}, func(x []complex128) {
		butterflies4Go(x, c.off, c.d, c.m, c.groups, c.gstride, tw, c.t, c.s, c.t+1, c.s+1, 0, c.s)
	})
	run("butterflies4 with fixed twiddles", func(x []complex128) {
		butterflies4(x, c.off, c.d, c.m, c.groups, c.gstride, tw, c.t, 0, c.t+1, 0, 0, 0)
	}, func(x []complex128) {
		butterflies4Go(x, c.off, c.d, c.m, c.groups, c.gstride, tw, c.t, 0, c.t+1, 0, 0, 0)
	})
	run("butterflies4One", func(x []complex128) {
		butterflies4One(x, c.off, c.d, c.m, c.groups, c.gstride, tw[c.t])
	}, func(x []complex128) {
		butterflies4OneGo(x, c.off, c.d, c.m, c.groups, c.gstride, tw[c.t])
	})
	run("butterflies2", func(x []complex128) {
		butterflies2(x, c.off, c.d, c.m, c.groups, c.gstride, tw, c.t, c.s)
	}, func(x []complex128) {
		butterflies2Go(x, c.off, c.d, c.m, c.groups, c.gstride, tw, c.t, c.s)
	})
	run("sumDiff", func(x []complex128) {
		sumDiff(x, c.off, c.d, c.m, c.groups, c.gstride)
	}, func(x []complex128) {
		sumDiffGo(x, c.off, c.d, c.m, c.groups, c.gstride)
	})
	run("mulKernel", func(x []complex128) {
		mulKernel(x[:c.m], x[c.d:c.d+c.m], tw[:c.m])
	}, func(x []complex128) {
		mulKernelGo(x[:c.m], x[c.d:c.d+c.m], tw[:c.m])
	})
	for _, buf := range [][]complex128{x[:c.m], x[c.off:], tw} {
		sr, si, ssr, ssi, br, bi, idx := peakScan(buf)
		sr2, si2, ssr2, ssi2, br2, bi2, idx2 := peakScanGo(buf)
		got := []complex128{complex(sr, si), complex(ssr, ssi), complex(br, bi)}
		want := []complex128{complex(sr2, si2), complex(ssr2, ssi2), complex(br2, bi2)}
		if i, ok := sameBits(got, want, true); !ok || idx != idx2 {
			t.Fatalf("peakScan %+v of %d: %v at %v, the Go body gives %v at %v", c, len(buf), got[i], idx, want[i], idx2)
		}
	}
	// The row kernels, on rows of 4 to 32 values; rev is the bit reversal
	// plus multiples of n (the kernels take it modulo n).
	n := 4 << (c.m % 4)
	rev := slices.Clone(newFFT2(n).rev)
	for i := range rev {
		rev[i] += (i%3 + c.t) * n
	}
	rows := kernelValues(n*(1+c.groups), uint64(c.m), nil)
	copy(rows, x)
	x = rows
	run("permuteFirstStages", func(x []complex128) {
		permuteFirstStages(x, n, rev, revSwaps(rev, n), c.inverse)
	}, func(x []complex128) {
		permuteFirstStagesGo(x, n, rev, c.inverse)
	})
	x = kernelValues(n*n, uint64(c.d), nil)
	copy(x, rows)
	run("swapRows", func(x []complex128) {
		swapRows(x, n, rev)
	}, func(x []complex128) {
		swapRowsGo(x, n, rev)
	})
}

// checkFold runs foldRows on a window of nx×ny pixels at (x0, y0) of a
// plane w wide, into T×T bins, against its portable Go body.
func checkFold(t *testing.T, T, w, x0, y0, nx, ny int, seed uint64, raw []byte) {
	t.Helper()
	v := kernelValues((y0+ny)*w+x0+nx, seed, raw)
	hp := make([]float32, 2*len(v))
	for i, c := range v {
		hp[2*i], hp[2*i+1] = float32(real(c)), float32(imag(c))
	}
	r := rand.New(rand.NewPCG(seed, 7))
	tx, ty := randBins(r, nx, T), randBins(r, ny, T)
	got, want := ramps(T * T)
	foldRows(got, T, hp, w, x0, y0, tx, ty)
	foldRowsGo(want, T, hp, w, x0, y0, tx, ty)
	if i, ok := sameFloat64Bits(got, want, true); !ok {
		t.Fatalf("foldRows T=%d w=%d window %d×%d at (%d,%d): bin %d = %v, the Go body gives %v", T, w, nx, ny, x0, y0, i, got[i], want[i])
	}
}

// randBins returns n bin indices below limit drawn from r.
func randBins(r *rand.Rand, n, limit int) []int {
	b := make([]int, n)
	for i := range b {
		b[i] = r.IntN(limit)
	}
	return b
}

// ramps returns two equal slices of n values 0, 1, 2, …: the starting
// sums a kernel and its Go body add into.
func ramps(n int) (got, want []float64) {
	got, want = make([]float64, n), make([]float64, n)
	for i := range got {
		got[i] = float64(i)
		want[i] = float64(i)
	}
	return got, want
}

// sameFloat64Bits reports whether got and want (the same length) hold
// the same bits (sameFloat), and else the first index where they differ.
func sameFloat64Bits(got, want []float64, anyNaN bool) (int, bool) {
	for i := range got {
		if !sameFloat(got[i], want[i], anyNaN) {
			return i, false
		}
	}
	return 0, true
}

// checkSATFold runs satFold on nx×ny rectangles of a table of random
// values (stride columns, rows rows), cut at sorted random lines, into
// G×G bins, against its portable Go body.
func checkSATFold(t *testing.T, G, stride, rows, nx, ny int, seed uint64, raw []byte) {
	t.Helper()
	v := kernelValues((stride*rows+1)/2, seed, raw)
	sat := make([]float64, 0, stride*rows)
	for _, c := range v {
		sat = append(sat, real(c), imag(c))
	}
	sat = sat[:stride*rows]
	r := rand.New(rand.NewPCG(seed, 11))
	cuts := func(n, limit int) []int {
		c := make([]int, n+1)
		for i := range c {
			c[i] = r.IntN(limit)
		}
		slices.Sort(c)
		return c
	}
	xb, yb := cuts(nx, stride), cuts(ny, rows)
	bx, by := randBins(r, nx, G), randBins(r, ny, G)
	got, want := ramps(G * G)
	satFold(got, G, sat, stride, xb, bx, yb, by)
	satFoldGo(want, G, sat, stride, xb, bx, yb, by)
	if i, ok := sameFloat64Bits(got, want, true); !ok {
		t.Fatalf("satFold G=%d table %d×%d, %d×%d rectangles: bin %d = %v, the Go body gives %v", G, stride, rows, nx, ny, i, got[i], want[i])
	}
}

// checkMaxRuns runs maxRuns on n outputs with segments of W values over
// random float32 values (raw's bits first: NaN, infinities and signed
// zeros included), against its portable Go body.
func checkMaxRuns(t *testing.T, n, W int, seed uint64, raw []byte) {
	t.Helper()
	m := n + W - 1
	ext := make([]float32, m)
	r := rand.New(rand.NewPCG(seed, 13))
	for i := range ext {
		if len(raw) >= 4*(i+1) {
			ext[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		} else {
			// Few distinct values, so ties are common.
			ext[i] = float32(r.IntN(7)) - 3
		}
	}
	bits := func(v []float32) []uint32 {
		out := make([]uint32, len(v))
		for i, x := range v {
			out[i] = math.Float32bits(x)
		}
		return out
	}
	var got, want [3][]float32
	for k := range got {
		got[k], want[k] = make([]float32, m), make([]float32, m)
	}
	maxRuns(got[0][:n], ext, got[1], got[2], W)
	maxRunsGo(want[0][:n], ext, want[1], want[2], W)
	for k, name := range []string{"dst", "pre", "suf"} {
		if g, w := bits(got[k]), bits(want[k]); !slices.Equal(g, w) {
			t.Fatalf("maxRuns n=%d W=%d: %s = %v, the Go body gives %v (ext %v)", n, W, name, got[k], want[k], ext)
		}
	}
}

// checkPoolMax runs poolMax on a T×T plane of random float32 values
// (raw's bits first) with reach r, into a sum holding a ramp, against its
// portable Go body: the sums and the rows' maxima bit for bit.
func checkPoolMax(t *testing.T, T, r int, seed uint64, raw []byte) {
	t.Helper()
	zb := make([]float32, T*T)
	rnd := rand.New(rand.NewPCG(seed, 17))
	for i := range zb {
		if len(raw) >= 4*(i+1) {
			zb[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		} else {
			zb[i] = float32(rnd.IntN(9)) - 4 + float32(rnd.IntN(4))/8
		}
	}
	got, want := ramps(T * T)
	var rows [2][]float32
	for k, pool := range []func([]float64, []float32, []float32, []float32, []float32, *cyclicMax){poolMax, poolMaxGo} {
		rows[k] = make([]float32, T*T)
		pool([][]float64{got, want}[k], zb, rows[k], make([]float32, T), make([]float32, T), newCyclicMax(T, r))
	}
	if i, ok := sameFloat64Bits(got, want, true); !ok {
		t.Fatalf("poolMax T=%d r=%d: sum %d = %v, the Go body gives %v", T, r, i, got[i], want[i])
	}
	for i := range rows[0] {
		if math.Float32bits(rows[0][i]) != math.Float32bits(rows[1][i]) {
			t.Fatalf("poolMax T=%d r=%d: rows %d = %v, the Go body gives %v", T, r, i, rows[0][i], rows[1][i])
		}
	}
}

// checkTaps runs taps.apply on the taps newTaps(n, m) (or, for
// ratio > 0, areaTaps(n, m, start, ratio)) over random float32 values
// (raw's bits first), against its portable Go body; and holds the taps to
// what apply's constant-time check relies on: every output has a weight
// and reads inside [0, n).
func checkTaps(t *testing.T, n, m int, start, ratio float64, seed uint64, raw []byte) {
	t.Helper()
	tp := newTaps(n, m)
	if ratio > 0 {
		tp = areaTaps(n, m, start, ratio)
	}
	for i := range m {
		k := tp.off[i+1] - tp.off[i]
		if tp.n != n || k < 1 || tp.start[i] < 0 || tp.start[i]+k > n {
			t.Fatalf("taps n=%d m=%d start %v ratio %v: output %d reads [%d, %d) of %d (taps' n %d)", n, m, start, ratio, i, tp.start[i], tp.start[i]+k, n, tp.n)
		}
	}
	src := make([]float32, n)
	rnd := rand.New(rand.NewPCG(seed, 19))
	for i := range src {
		if len(raw) >= 4*(i+1) {
			src[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		} else {
			src[i] = float32(rnd.NormFloat64() * 50)
		}
	}
	got, want := make([]float32, m+1), make([]float32, m+1)
	got[m], want[m] = 7, 7 // after the output: must stay
	tp.apply(got[:m], src)
	tapsApplyGo(want[:m], src, tp)
	for i := range got {
		if !sameFloat(float64(got[i]), float64(want[i]), true) {
			t.Fatalf("taps n=%d m=%d start %v ratio %v: output %d = %v, the Go body gives %v", n, m, start, ratio, i, got[i], want[i])
		}
	}
}

// checkWhiten runs the lattice map's whitening kernels (powerOf,
// boxRows, whitenCols) on an N×N plane with reach r over random values
// (raw's bits first; a third of the column sums ≤ 0), against their
// portable Go bodies.
func checkWhiten(t *testing.T, N, r int, seed uint64, raw []byte) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(seed, 23))
	val := func(i int) float64 {
		if len(raw) >= 8*(i+1) {
			return math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
		}
		return rnd.NormFloat64() * 10
	}
	buf := make([]complex128, N*N)
	for i := range buf {
		buf[i] = complex(val(2*i), val(2*i+1))
	}
	add, sub := make([]int, N), make([]int, N)
	for i := range add {
		add[i], sub[i] = (i+r+1)%N, (i-r+N)%N
	}
	inv := float64((2*r+1)*(2*r+1)) / 2
	var p, box, out, col [2][]float64
	for k := range 2 {
		p[k], box[k] = make([]float64, N*N), make([]float64, N*N)
		out[k], _ = ramps(N * N)
		col[k] = make([]float64, N)
		for i := range col[k] {
			col[k][i] = float64(i%3-1) * float64(i+1)
		}
	}
	powerOf(p[0], buf)
	powerOfGo(p[1], buf)
	// The sums whitenCols divides by: the box of the power (as the lattice
	// map does), or the raw values themselves when raw gave them.
	src := p[1]
	if len(raw) > 0 {
		src = make([]float64, N*N)
		for i := range src {
			src[i] = val(i)
		}
	}
	boxRows(box[0], src, N, r, add, sub)
	boxRowsGo(box[1], src, N, r, add, sub)
	whitenCols(out[0], p[1], box[1], col[0], add, sub, inv)
	whitenColsGo(out[1], p[1], box[1], col[1], add, sub, inv)
	for k, name := range []string{"power", "box rows", "whitened", "column sums"} {
		got, want := [][]float64{p[0], box[0], out[0], col[0]}[k], [][]float64{p[1], box[1], out[1], col[1]}[k]
		if i, ok := sameFloat64Bits(got, want, true); !ok {
			t.Fatalf("whitening N=%d r=%d: %s %d = %v, the Go body gives %v", N, r, name, i, got[i], want[i])
		}
	}
}

// wideValues returns n float32 values: raw's bits first, then random ones
// of magnitudes 2³⁰ apart, so that sums round and the order of their
// additions shows.
func wideValues(n int, rnd *rand.Rand, raw []byte) []float32 {
	v := make([]float32, n)
	for i := range v {
		if len(raw) >= 4*(i+1) {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		} else {
			v[i] = float32(rnd.NormFloat64() * 30 * float64(int(1)<<(30*rnd.IntN(2))))
		}
	}
	return v
}

// checkBox runs boxBlur's kernels, boxLine on a line of n random float32
// values with radius r and boxCols on n columns, against their portable
// Go bodies (raw's bits first), with a sentinel after each output.
func checkBox(t *testing.T, n, r int, seed uint64, raw []byte) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(seed, 31))
	vals := func(from int) []float32 { return wideValues(n, rnd, raw[min(len(raw), 4*from):]) }
	src, in, out := vals(0), vals(n), vals(2*n)
	inv := recipCounts(n, r)
	var dst [2][]float32
	var col [2][]float64
	for k := range 2 {
		dst[k] = make([]float32, n+1)
		dst[k][n] = 7
		col[k] = make([]float64, n)
		for i := range col[k] {
			col[k][i] = float64(src[(i+1)%n]) * 3
		}
	}
	same := func(what string, a, b []float32) {
		for i := range a {
			if !sameFloat(float64(a[i]), float64(b[i]), true) {
				t.Fatalf("%s n=%d r=%d: %d = %v, the Go body gives %v", what, n, r, i, a[i], b[i])
			}
		}
	}
	boxLine(dst[0][:n], src, r, inv)
	boxLineGo(dst[1][:n], src, r, inv)
	same("boxLine", dst[0], dst[1])
	boxCols(dst[0][:n], col[0], in, out, inv[n/2])
	boxColsGo(dst[1][:n], col[1], in, out, inv[n/2])
	same("boxCols", dst[0], dst[1])
	if i, ok := sameFloat64Bits(col[0], col[1], true); !ok {
		t.Fatalf("boxCols n=%d: column %d = %v, the Go body gives %v", n, i, col[0][i], col[1][i])
	}
}

// checkWarpRow runs warpRow on a row of n random values (raw's bits
// first) into T×T bins from random fixed-point coordinates and steps,
// against its portable Go body.
func checkWarpRow(t *testing.T, T, n int, seed uint64, raw []byte) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(seed, 37))
	row := make([]float32, n)
	for i := range row {
		if len(raw) >= 4*(i+1) {
			row[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		} else {
			row[i] = float32(rnd.NormFloat64() * 100)
		}
	}
	c := make([]int64, 6)
	for i := range c {
		// Coordinates of either sign, steps of a few pixels, the step's
		// steps small.
		c[i] = rnd.Int64N(1<<44) - 1<<43
		if i >= 2 {
			c[i] >>= 8 * (i / 2)
		}
	}
	got, want := ramps(T*T + 1)
	warpRow(got, T, row, c[0], c[1], c[2], c[3], c[4], c[5])
	warpRowGo(want, T, row, c[0], c[1], c[2], c[3], c[4], c[5])
	if i, ok := sameFloat64Bits(got, want, true); !ok {
		t.Fatalf("warpRow T=%d n=%d %v: bin %d = %v, the Go body gives %v", T, n, c, i, got[i], want[i])
	}
}

// checkFoldAspect runs foldAspect over rows [i0, i1) of a random profile
// of G-value rows at scale r, against its portable Go body.
func checkFoldAspect(t *testing.T, G, T, C int, r float64, i0, i1 int, seed uint64, raw []byte) {
	t.Helper()
	c := kernelValues((i1*G+1)/2+1, seed, raw)
	p := make([]float64, i1*G)
	for i := range p {
		p[i] = real(c[i/2])
		if i%2 == 1 {
			p[i] = imag(c[i/2])
		}
	}
	got, want := ramps(G * G)
	foldAspect(got, p, G, T, C, r, i0, i1)
	foldAspectGo(want, p, G, T, C, r, i0, i1)
	if i, ok := sameFloat64Bits(got, want, true); !ok {
		t.Fatalf("foldAspect G=%d T=%d C=%d r=%v [%d, %d): %d = %v, the Go body gives %v", G, T, C, r, i0, i1, i, got[i], want[i])
	}
}

// checkPackPair runs packPair on n random values (raw's bits first), with
// and without an imaginary plane, against its portable Go body; the value
// after z must stay.
func checkPackPair(t *testing.T, n int, seed uint64, raw []byte) {
	t.Helper()
	c := kernelValues(n, seed, raw)
	a, b := make([]float64, n), make([]float64, n)
	for i, v := range c {
		a[i], b[i] = real(v), imag(v)
	}
	for _, im := range [][]float64{b, nil} {
		got, want := kernelValues(n+1, seed+1, nil), kernelValues(n+1, seed+1, nil)
		packPair(got[:n], a, im)
		packPairGo(want[:n], a, im)
		if i, ok := sameBits(got, want, true); !ok {
			t.Fatalf("packPair n=%d (imaginary plane %v): %d = %v, the Go body gives %v", n, im != nil, i, got[i], want[i])
		}
	}
}

// checkVertical runs the vertical filter's kernels on a random w×h plane
// (raw's bytes first, rows stride apart): sum of rows [y, y+n) twice
// (the sums carry over), then take with the boundary rows a and b, against
// the portable Go bodies: the outputs bit for bit and the sums cleared.
func checkVertical(t *testing.T, w, h, stride, y, n int, wa, wb float32, seed uint64, raw []byte) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(seed, 41))
	pix := make([]uint8, (h-1)*stride+w)
	for i := range pix {
		if i < len(raw) {
			pix[i] = raw[i]
		} else {
			pix[i] = uint8(rnd.IntN(256))
		}
	}
	l := &imagex.Luma{Width: w, Height: h, Stride: stride, Pix: pix}
	full := float32(1 / 3.7)
	got, want := newVertical(l, full), newVertical(l, full)
	a, b := l.Pix[rnd.IntN(h)*stride:][:w], l.Pix[rnd.IntN(h)*stride:][:w]
	dg, dw := make([]float32, w+1), make([]float32, w+1)
	dg[w], dw[w] = 7, 7
	for range 2 {
		got.sum(y, n)
		verticalSumGo(want, y, n)
	}
	for k, pair := range [][2][]uint64{{got.even, want.even}, {got.odd, want.odd}} {
		for i := range pair[0] {
			if pair[0][i] != pair[1][i] {
				t.Fatalf("vertical.sum %d×%d rows [%d, %d): %s word %d = %#x, the Go body gives %#x", w, h, y, y+n, []string{"even", "odd"}[k], i, pair[0][i], pair[1][i])
			}
		}
	}
	if !slices.Equal(got.tail, want.tail) {
		t.Fatalf("vertical.sum %d×%d rows [%d, %d): tail %v, the Go body gives %v", w, h, y, y+n, got.tail, want.tail)
	}
	got.take(dg[:w], a, wa, b, wb)
	verticalTakeGo(want, dw[:w], a, wa, b, wb)
	for i := range dg {
		if math.Float32bits(dg[i]) != math.Float32bits(dw[i]) {
			t.Fatalf("vertical.take %d×%d rows [%d, %d) wa %v wb %v: %d = %v, the Go body gives %v", w, h, y, y+n, wa, wb, i, dg[i], dw[i])
		}
	}
	for _, s := range [][]uint64{got.even, got.odd} {
		if slices.ContainsFunc(s, func(v uint64) bool { return v != 0 }) {
			t.Fatalf("vertical.take %d×%d: sums not cleared: %v", w, h, s)
		}
	}
	if slices.ContainsFunc(got.tail, func(v uint32) bool { return v != 0 }) {
		t.Fatalf("vertical.take %d×%d: tail not cleared: %v", w, h, got.tail)
	}
}

// checkAbs runs pictureBox's kernels on a w×h plane of random values
// (raw's bits first): the rows' mean magnitudes over [x0, x1) and the
// columns' summed magnitudes, against their portable Go bodies.
func checkAbs(t *testing.T, w, h, x0, x1 int, seed uint64, raw []byte) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(seed, 43))
	hp := wideValues(w*h, rnd, raw)
	eg, ew := make([]float64, h+1), make([]float64, h+1)
	absRowMeans(eg[:h], hp, w, x0, x1)
	absRowMeansGo(ew[:h], hp, w, x0, x1)
	if i, ok := sameFloat64Bits(eg, ew, true); !ok {
		t.Fatalf("absRowMeans %d×%d [%d, %d): row %d = %v, the Go body gives %v", w, h, x0, x1, i, eg[i], ew[i])
	}
	cg, cw := ramps(w)
	absColSums(cg, hp)
	absColSumsGo(cw, hp)
	if i, ok := sameFloat64Bits(cg, cw, true); !ok {
		t.Fatalf("absColSums %d×%d: column %d = %v, the Go body gives %v", w, h, i, cg[i], cw[i])
	}
}

// checkProfile runs profileFold on a w×h plane of random values (raw's
// bits first) into G bins, both orientations, against its portable Go
// body.
func checkProfile(t *testing.T, w, h, G int, seed uint64, raw []byte) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(seed, 47))
	hp := wideValues(w*h, rnd, raw)
	for _, landscape := range []bool{true, false} {
		long, short := h, w
		if landscape {
			long, short = w, h
		}
		bins := make([]int, short)
		for i := range bins {
			bins[i] = rnd.IntN(G)
		}
		got, want := ramps(G*long + 1)
		profileFold(got, G, hp, w, bins, landscape)
		profileFoldGo(want, G, hp, w, bins, landscape)
		if i, ok := sameFloat64Bits(got, want, true); !ok {
			t.Fatalf("profileFold %d×%d G=%d landscape %v: %d = %v, the Go body gives %v", w, h, G, landscape, i, got[i], want[i])
		}
	}
}

// checkFlat runs countFlat over r with step on a w×h plane of few
// distinct values (raw's bytes first), against its portable Go body, and
// flatFraction against the count of every pixel it looks at.
func checkFlat(t *testing.T, w, h, stride int, r image.Rectangle, step int, seed uint64, raw []byte) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(seed, 53))
	pix := make([]uint8, (h-1)*stride+w)
	for i := range pix {
		if i < len(raw) {
			pix[i] = raw[i] % 3
		} else {
			pix[i] = uint8(rnd.IntN(2))
		}
	}
	l := &imagex.Luma{Width: w, Height: h, Stride: stride, Pix: pix}
	r = r.Intersect(image.Rect(0, 0, w-1, h-1))
	if got, want := countFlat(pix, stride, r, step), countFlatGo(pix, stride, r, step); got != want {
		t.Fatalf("countFlat %d×%d %v step %d = %d, the Go body gives %d", w, h, r, step, got, want)
	}
	if r.Empty() {
		return
	}
	// flatFraction picks its own step from the area.
	st := max(1, int(math.Sqrt(float64(r.Dx()*r.Dy())/65536)))
	n, flat := 0, 0
	for y := r.Min.Y; y < r.Max.Y; y += st {
		for x := r.Min.X; x < r.Max.X; x += st {
			n++
			if p := pix[y*stride+x]; p == pix[y*stride+x+1] && p == pix[(y+1)*stride+x] {
				flat++
			}
		}
	}
	if got, want := flatFraction(l, r), float64(flat)/float64(n); got != want {
		t.Fatalf("flatFraction %d×%d %v = %v, counting gives %v", w, h, r, got, want)
	}
}

// kernelLen is the length of x that case c needs: the four runs of its
// last group, and slack after them.
func kernelLen(c kernelCase) int {
	return c.off + (c.groups-1)*c.gstride + 3*c.d + c.m + 3
}

// twiddleLen is the length of the twiddle table case c needs.
func twiddleLen(c kernelCase) int {
	return c.t + 1 + (c.m-1)*(c.s+1) + 1
}

// TestKernelsMatchGo holds each kernel's body for this architecture (the
// WebAssembly assembly when the tests run in wazero) to its portable Go
// body, bit for bit, on the shapes the FFT uses and on odd ones.
// TestFusedFFTMatchesReference holds the transform built on them to the
// stage-by-stage one.
func TestKernelsMatchGo(t *testing.T) {
	cases := []kernelCase{
		{m: 1, d: 1, groups: 1},
		{m: 4, d: 4, groups: 4, gstride: 16, s: 2},
		{m: 8, d: 8, groups: 2, gstride: 32, s: 1, inverse: true},
		{off: 3, m: 5, d: 7, groups: 3, gstride: 29, t: 2, s: 3},
		{m: 64, d: 64 * 4, groups: 1, s: 0},
		{m: 32, d: 32, groups: 1, s: 0, t: 5, inverse: true},
		{off: 1, m: 2, d: 2, groups: 9, gstride: 8, s: 4},
	}
	for i, c := range cases {
		x := kernelValues(kernelLen(c), uint64(i), nil)
		tw := kernelValues(twiddleLen(c), uint64(100+i), nil)
		checkKernels(t, c, x, tw)
	}
	for i, f := range [][6]int{{8, 16, 0, 0, 16, 16}, {64, 100, 3, 5, 97, 20}, {4, 7, 1, 1, 5, 3}, {16, 33, 2, 0, 1, 1}} {
		checkFold(t, f[0], f[1], f[2], f[3], f[4], f[5], uint64(i), nil)
	}
	for i, f := range [][5]int{{32, 257, 257, 128, 128}, {32, 300, 200, 150, 90}, {4, 9, 5, 1, 1}, {8, 17, 3, 16, 2}} {
		checkSATFold(t, f[0], f[1], f[2], f[3], f[4], uint64(i), nil)
	}
	for i, f := range [][2]int{{64, 7}, {64, 1}, {1, 1}, {1, 9}, {5, 3}, {64, 129}, {10, 4}} {
		checkMaxRuns(t, f[0], f[1], uint64(i), nil)
	}
	for i, f := range [][2]int{{64, 6}, {64, 3}, {64, 2}, {1, 0}, {1, 2}, {5, 7}, {3, 1}, {16, 0}, {7, 3}} {
		checkPoolMax(t, f[0], f[1], uint64(i), nil)
	}
	for i, f := range [][2]int{{1000, 256}, {256, 1000}, {7, 3}, {3, 7}, {1, 1}, {1, 5}, {5, 1}, {97, 96}} {
		checkTaps(t, f[0], f[1], 0, 0, uint64(i), nil)
	}
	for i, f := range [][4]float64{{1000, 100, 3.5, 9.7}, {50, 40, 0, 1.25}, {50, 200, 0.25, 0.2}, {9, 1, 0, 9}, {64, 20, 1, 0.5}} {
		checkTaps(t, int(f[0]), int(f[1]), f[2], f[3], uint64(i), nil)
	}
	for i, f := range [][2]int{{256, 4}, {16, 4}, {1, 0}, {2, 1}, {9, 0}, {9, 8}, {33, 5}} {
		checkWhiten(t, f[0], f[1], uint64(i), nil)
	}
	for i, f := range [][2]int{{200, 2}, {200, 1}, {64, 7}, {1, 0}, {1, 3}, {5, 0}, {5, 4}, {5, 9}, {33, 16}} {
		checkBox(t, f[0], f[1], uint64(i), nil)
	}
	for i, f := range [][2]int{{64, 500}, {64, 1}, {32, 77}, {1, 9}, {48, 300}, {3, 20}} {
		checkWarpRow(t, f[0], f[1], uint64(i), nil)
	}
	for i, n := range []int{1024, 1, 7} {
		checkPackPair(t, n, uint64(i), nil)
	}
	for i, c := range [][5]int{{1000, 50, 1000, 3, 40}, {67, 9, 70, 0, 9}, {7, 3, 7, 1, 1}, {8, 2, 11, 0, 2}, {16, 300, 16, 0, 128}} {
		checkVertical(t, c[0], c[1], c[2], c[3], c[4], 0.37, 0.11, uint64(i), nil)
	}
	checkVertical(t, 33, 4, 40, 1, 2, 0, 0, 9, nil)
	for i, c := range [][4]int{{300, 200, 0, 300}, {300, 20, 17, 250}, {1, 1, 0, 1}, {9, 5, 3, 4}, {9, 0, 0, 9}, {9, 3, 4, 4}} {
		checkAbs(t, c[0], c[1], c[2], c[3], uint64(i), nil)
	}
	for i, c := range [][3]int{{300, 200, 32}, {200, 300, 32}, {1, 1, 1}, {7, 3, 2}, {3, 7, 5}} {
		checkProfile(t, c[0], c[1], c[2], uint64(i), nil)
	}
	checkFlat(t, 700, 500, 710, image.Rect(3, 5, 690, 480), 1, 1, nil)
	checkFlat(t, 700, 500, 700, image.Rect(0, 0, 700, 500), 3, 2, nil)
	checkFlat(t, 1200, 1000, 1200, image.Rect(10, 10, 1190, 990), 4, 3, nil)
	checkFlat(t, 2, 2, 2, image.Rect(0, 0, 2, 2), 1, 4, nil)
	checkFlat(t, 9, 9, 9, image.Rect(4, 4, 4, 9), 2, 5, nil)
	checkFoldAspect(t, 32, 64, 2, 1.1, 400, 560, 1, nil)
	checkFoldAspect(t, 32, 64, 2, 0.93, 0, 900, 2, nil)
	checkFoldAspect(t, 16, 64, 4, 1/3.0, 5, 6, 3, nil)
	checkFoldAspect(t, 4, 7, 2, 2.5, 0, 50, 4, nil)
	nan := math.Float32bits(float32(math.NaN()))
	raw := binary.LittleEndian.AppendUint32(nil, nan)
	raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(float32(math.Copysign(0, -1))))
	raw = binary.LittleEndian.AppendUint32(raw, 0)
	raw = binary.LittleEndian.AppendUint32(raw, nan)
	checkMaxRuns(t, 6, 3, 1, raw)
	// Equal values that differ in bits (+0 and −0): the kept one stays.
	negZero := math.Float32bits(float32(math.Copysign(0, -1)))
	raw = binary.LittleEndian.AppendUint32(nil, 0)
	raw = binary.LittleEndian.AppendUint32(raw, negZero)
	raw = binary.LittleEndian.AppendUint32(raw, negZero)
	checkMaxRuns(t, 2, 2, 1, raw)
	raw = binary.LittleEndian.AppendUint32(nil, negZero)
	raw = binary.LittleEndian.AppendUint32(raw, 0)
	raw = binary.LittleEndian.AppendUint32(raw, negZero)
	raw = binary.LittleEndian.AppendUint32(raw, 0)
	checkMaxRuns(t, 2, 3, 1, raw)
}

// FuzzKernelsMatchGo is TestKernelsMatchGo on any values (raw float64 bits,
// NaN and infinities included) and any shape.
func FuzzKernelsMatchGo(f *testing.F) {
	f.Add([]byte{}, uint8(4), uint8(0), uint8(4), uint8(2), uint8(1), false)
	f.Add([]byte("\x00\x00\x00\x00\x00\x00\xf0\x7f\x00\x00\x00\x00\x00\x00\x00\x80"), uint8(7), uint8(3), uint8(1), uint8(5), uint8(0), true)
	f.Fuzz(func(t *testing.T, raw []byte, m, gap, groups, gslack, s uint8, inverse bool) {
		c := kernelCase{m: 1 + int(m%40), groups: 1 + int(groups%6), s: int(s % 5), t: int(gap % 3), off: int(gslack % 3), inverse: inverse}
		c.d = c.m + int(gap%5)
		c.gstride = 4*c.d + int(gslack%7)
		x := kernelValues(kernelLen(c), uint64(m)<<8|uint64(gap), raw)
		tw := kernelValues(twiddleLen(c), uint64(s), raw)
		checkKernels(t, c, x, tw)
		w := c.m + int(gslack%9)
		checkFold(t, 1+int(s%16), w, c.off, c.t, 1+int(gap)%w, c.groups, uint64(m), raw)
		checkSATFold(t, 1+int(s%16), w, 1+c.groups, c.m, c.groups, uint64(gap), raw)
		checkMaxRuns(t, c.m, 1+int(gslack%9), uint64(s), raw)
		checkPoolMax(t, c.m, int(gslack%9), uint64(gap), raw)
		checkWhiten(t, 1+int(m%24), int(gslack)%(1+int(m%24)), uint64(s), raw)
		checkBox(t, w, int(gap%12), uint64(s), raw)
		checkWarpRow(t, 1+int(s%16), w, uint64(gap), raw)
		checkPackPair(t, w, uint64(s), raw)
		checkFlat(t, w, 2+int(groups), w+int(gslack%3), image.Rect(int(gap)%w, int(s)%3, w, 2+int(groups)), 1+int(m%4), uint64(s), raw)
		checkProfile(t, w, 1+int(groups), 1+int(gap), uint64(s), raw)
		checkAbs(t, w, int(groups), int(gap)%w, int(gap)%w+int(gslack)%(w-int(gap)%w+1), uint64(s), raw)
		vh := 1 + int(gap%5)
		checkVertical(t, w, vh, w+int(s%3), int(groups)%vh, 1+int(m)%(vh-int(groups)%vh), float32(gslack)/17, float32(s)/5, uint64(m), raw)
		G, C := 1+int(s%9), 1+int(gap%3)
		checkFoldAspect(t, G, 1+int(m)%(G*C), C, 0.25+float64(gslack)/40, int(groups), int(groups)+w, uint64(gap), raw)
		checkTaps(t, w, 1+int(groups)%w, 0, 0, uint64(m), raw)
		checkTaps(t, w, 1+int(s%7), float64(gap%4)/3, float64(1+int(gslack%13))/4, uint64(m), raw)
	})
}

// BenchmarkKernelBodies times each kernel's caller on the shapes of the
// search (the FFT at the three sizes it uses, the phase fold of a 512×512
// window into 64×64 bins, the peak scan and the spectrum product of a
// 64×64 plane). Built for wasip1 and run in wazero, it times the
// assembly bodies; natively, the portable ones:
//
//	GOOS=wasip1 GOARCH=wasm go test -c -o /tmp/wm.wasm ./shared/watermark
//	wazero run /tmp/wm.wasm -test.run '^$' -test.bench KernelBodies
func BenchmarkKernelBodies(b *testing.B) {
	for _, n := range []int{32, 64, 256} {
		f := newFFT2(n)
		src := kernelValues(n*n, uint64(n), nil)
		data := make([]complex128, n*n)
		b.Run("FFT"+strconv.Itoa(n), func(b *testing.B) {
			inv := false
			for b.Loop() {
				copy(data, src)
				f.transform(data, inv)
				inv = !inv
			}
		})
	}
	s := schemes()[len(schemes())-1]
	const w = 512
	hp := benchPlane(w, w)
	acc := make([]float64, s.tile*s.tile)
	b.Run("FoldPhase", func(b *testing.B) {
		for b.Loop() {
			s.foldPhaseTo(acc, hp, w, 1.03, 0.25, 0.5, 0, 0, w, w)
		}
	})
	x, y := kernelValues(64*64, 1, nil), kernelValues(64*64, 2, nil)
	dst := make([]complex128, len(x))
	b.Run("PeakZ2", func(b *testing.B) {
		for b.Loop() {
			peakZ2(x)
		}
	})
	b.Run("MulInto", func(b *testing.B) {
		for b.Loop() {
			mulInto(dst, x, y)
		}
	})
	// The chip fold of a 256×256 window from its summed-area table, and
	// the warp stage's running maximum over a 64-value line.
	sat := summedArea(hp, w, 0, 0, 256, 256)
	chips := make([]float64, s.grid*s.grid)
	b.Run("SATFold", func(b *testing.B) {
		for b.Loop() {
			s.foldChipsSATTo(chips, sat, 1.03, 0, 0, 256, 256)
		}
	})
	mx := newCyclicMax(64, 6)
	line, out := make([]float32, 64), make([]float32, 64)
	for i := range line {
		line[i] = float32(hp[i])
	}
	b.Run("MaxRuns", func(b *testing.B) {
		for b.Loop() {
			mx.apply(out, line)
		}
	})
}

// TestChipRunsIsThePerPixelChip holds chipRuns (a mask and a shift for
// the power-of-two tile and chip) to the runs the per-pixel chip
// (int((x+0.5)/scale) % T) / C gives, for the formats' shapes and one
// that is not a power of two, over scales and windows of the search.
func TestChipRunsIsThePerPixelChip(t *testing.T) {
	ref := func(T, C int, scale float64, lo, hi int) (bounds, bins []int) {
		prev := -1
		for x := lo; x < hi; x++ {
			if c := (int((float64(x)+0.5)/scale) % T) / C; c != prev {
				bounds, bins, prev = append(bounds, x-lo), append(bins, c), c
			}
		}
		return append(bounds, hi-lo), bins
	}
	shapes := []*scheme{{tile: 48, chip: 3}}
	for _, s := range schemes() {
		shapes = append(shapes, s)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, s := range shapes {
		for i := 0; i < 300; i++ {
			scale := 0.2 + 2.3*r.Float64()
			if i%10 == 0 {
				scale = []float64{1, 0.5, 0.25, 2, 1.012, 1 / 1.012}[i/10%6]
			}
			lo := r.IntN(600)
			hi := lo + r.IntN(700)
			gb, gc := s.chipRuns(scale, lo, hi)
			wb, wc := ref(s.tile, s.chip, scale, lo, hi)
			if !slices.Equal(gb, wb) || !slices.Equal(gc, wc) {
				t.Fatalf("T=%d C=%d scale %v [%d, %d): runs %v bins %v, per pixel %v %v", s.tile, s.chip, scale, lo, hi, gb, gc, wb, wc)
			}
		}
	}
}

// TestTapsApplyChecksShape: apply refuses a source shorter than the taps'
// input and an output longer than their outputs, before any kernel reads.
func TestTapsApplyChecksShape(t *testing.T) {
	tp := newTaps(10, 4)
	for _, c := range [][2]int{{4, 9}, {5, 10}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("apply to %d outputs from %d inputs (taps 10 → 4) did not panic", c[0], c[1])
				}
			}()
			tp.apply(make([]float32, c[0]), make([]float32, c[1]))
		}()
	}
	tp.apply(make([]float32, 4), make([]float32, 10))
}

// TestCountFlatChecksShape: countFlat refuses a rectangle whose last row
// has no row below it inside pix, or whose last column no right neighbour.
func TestCountFlatChecksShape(t *testing.T) {
	pix := make([]uint8, 4*5)
	for _, r := range []image.Rectangle{image.Rect(0, 0, 3, 5), image.Rect(0, 0, 4, 4)} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("countFlat over %v of a 4×5 plane did not panic", r)
				}
			}()
			countFlat(pix, 4, r, 1)
		}()
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Errorf("countFlat over (0,0)-(3,4) of a plane one byte short of its last row's third pixel did not panic")
			}
		}()
		countFlat(pix[:4*4+2], 4, image.Rect(0, 0, 3, 4), 1)
	}()
	if got := countFlat(pix, 4, image.Rect(0, 0, 3, 4), 1); got != 12 {
		t.Errorf("countFlat over a flat 3×4 = %d, want 12", got)
	}
}
