package phash

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// sameFloats reports whether a and b hold the same bits (any NaN matching
// any NaN: WebAssembly leaves a NaN's payload open).
func sameFloats(a, b []float64) bool {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}

// checkLee runs leeSplit and leeSum and their Go loops on the same inputs
// and fails unless every output is the same float64.
func checkLee(t *testing.T, in, div []float64, n int) {
	t.Helper()
	want, got := make([]float64, n+3), make([]float64, n+3)
	for i := range want {
		want[i], got[i] = float64(i)+0.25, float64(i)+0.25
	}
	leeSplitGo(in, want, div, n)
	leeSplit(in, got, div, n)
	if !sameFloats(got, want) {
		t.Fatalf("leeSplit n=%d: %v, Go loop %v", n, got, want)
	}
	leeSumGo(in, want, n)
	leeSum(in, got, n)
	if !sameFloats(got, want) {
		t.Fatalf("leeSum n=%d: %v, Go loop %v", n, got, want)
	}
}

// TestLeeKernelsMatchGo: random rows at every even length up to 512 (on
// WebAssembly the assembly bodies; run under wazero for them:
// GOOS=wasip1 GOARCH=wasm go test -run Lee ./shared/phash).
func TestLeeKernelsMatchGo(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for n := 2; n <= 512; n += 2 {
		in, div := make([]float64, n), make([]float64, n/2)
		for i := range in {
			in[i] = (r.Float64() - 0.5) * math.Pow(2, float64(r.IntN(40)-20))
		}
		for i := range div {
			div[i] = math.Cos((float64(i)+0.5)*math.Pi/float64(n)) * 2
		}
		checkLee(t, in, div, n)
	}
}

// FuzzLeeKernelsMatchGo: any float64 bits (NaN, infinities, subnormals,
// -0) in the row and the divisors.
func FuzzLeeKernelsMatchGo(f *testing.F) {
	f.Add(make([]byte, 32))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0xf0, 0x7f, 0, 0, 0, 0, 0, 0, 0xf0, 0xff, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0xf8, 0x7f, 0x9a, 0x99, 0x99, 0x99, 0x99, 0x99, 0xb9, 0x3f, 0, 0, 0, 0, 0, 0, 0xe0, 0x3f, 0, 0, 0, 0, 0, 0, 0x10, 0x40})
	f.Fuzz(func(t *testing.T, raw []byte) {
		vals := make([]float64, len(raw)/8)
		for i := range vals {
			vals[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
		}
		n := len(vals) * 2 / 3 &^ 1
		if n < 2 {
			return
		}
		checkLee(t, vals[:n], vals[len(vals)-n/2:], n)
	})
}
