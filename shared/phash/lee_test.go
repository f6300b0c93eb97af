package phash

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// runPlan is the plan's meaning in Go (ext.go, leeSums … leeJoinAll): what
// the WebAssembly body does step by step.
func runPlan(d *lee, in []float64) {
	bufs := [2][]float64{in, d.temp}
	for ops := d.ops; len(ops) > 0; ops = ops[6:] {
		kind, b, off, half, a, c := ops[0], ops[1], ops[2], ops[3], ops[4], ops[5]
		n := 2 * half
		src, tmp := bufs[b][off:off+n], bufs[1-b][off:off+n]
		switch kind {
		case leeSums, leeSplit:
			for i := 0; i < half; i++ {
				x, y := src[i], src[n-1-i]
				tmp[i] = x + y
				if kind == leeSplit {
					tmp[half+i] = (x - y) / d.divs[a+i]
				}
			}
		default:
			for i := 0; i < a; i++ {
				src[2*i] = tmp[i]
			}
			for i := 0; i < c; i++ {
				src[2*i+1] = tmp[half+i] + tmp[half+i+1]
			}
			if kind == leeJoinAll {
				src[n-1] = tmp[n-1]
			}
		}
	}
}

// checkLee holds low(·, k) of length n (the WebAssembly plan when the tests
// run in wazero, the recursion elsewhere) and the plan run in Go to the
// recursion, forwardLow, on random values (raw's float64 bits first): the
// outputs it computes, bit for bit (any NaN for a NaN: WebAssembly leaves
// NaN payloads open).
func checkLee(t *testing.T, n, k int, seed uint64, raw []byte) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 29))
	src := make([]float64, n)
	for i := range src {
		if len(raw) >= 8*(i+1) {
			src[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
		} else {
			src[i] = math.Round(r.Float64()*255) * 0.999
		}
	}
	want, got, plan := append([]float64(nil), src...), append([]float64(nil), src...), append([]float64(nil), src...)
	ref := newLee(n)
	ref.forwardLow(want, ref.temp, n, 0, k)
	newLee(n).low(got, k)
	d := newLee(n)
	d.plan(k)
	runPlan(d, plan)
	outs := min(k, n)
	if k >= n-1 {
		outs = n
	}
	for i := 0; i < outs; i++ {
		for name, v := range map[string]float64{"low": got[i], "the plan in Go": plan[i]} {
			if math.Float64bits(v) != math.Float64bits(want[i]) && !(math.IsNaN(v) && math.IsNaN(want[i])) {
				t.Fatalf("n=%d k=%d: %s gives output %d = %v, the recursion %v", n, k, name, i, v, want[i])
			}
		}
	}
}

// TestLeeMatchesRecursion: every length the hashes could use and every
// number of outputs, against the recursion that TestExt256MatchesGoimagehash
// holds to goimagehash.
func TestLeeMatchesRecursion(t *testing.T) {
	for n := 1; n <= 256; n *= 2 {
		for k := 0; k <= n+1; k++ {
			if n > 32 && k > 20 && k < n-2 {
				continue
			}
			checkLee(t, n, k, uint64(n*1000+k), nil)
		}
	}
}

// FuzzLeeMatchesRecursion is TestLeeMatchesRecursion on any float64 bits.
func FuzzLeeMatchesRecursion(f *testing.F) {
	f.Fuzz(func(t *testing.T, raw []byte, logN, k uint8) {
		n := 1 << (logN % 9)
		checkLee(t, n, int(k)%(n+2), uint64(k), raw)
	})
}

// TestLeeLowRefusesNegativeCounts: low panics on a negative output count
// before any kernel runs; in WebAssembly the plan's joins would otherwise
// count down from a negative length through linear memory.
func TestLeeLowRefusesNegativeCounts(t *testing.T) {
	for _, k := range []int{-1, -2, -16} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("low(in, %d) did not panic", k)
				}
			}()
			d := newLee(32)
			d.low(make([]float64, 32), k)
		}()
	}
}
