package digest

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"
)

// splits cuts b into parts at the given offsets (clamped), so the generic
// functions see every alignment of part boundaries against the block size.
func splits(b []byte, at ...int) [][]byte {
	var out [][]byte
	prev := 0
	for _, a := range at {
		a = min(max(a, prev), len(b))
		out = append(out, b[prev:a])
		prev = a
	}
	return append(out, b[prev:])
}

func check(t *testing.T, b []byte, at ...int) {
	t.Helper()
	want256, want512 := sha256.Sum256(b), sha512.Sum512(b)
	parts := splits(b, at...)
	if got := sum256Generic(parts...); got != want256 {
		t.Fatalf("sum256Generic(len %d, cuts %v) = %x, want %x", len(b), at, got, want256)
	}
	if got := sum512Generic(parts...); got != want512 {
		t.Fatalf("sum512Generic(len %d, cuts %v) = %x, want %x", len(b), at, got, want512)
	}
	if got := Sum256(b); got != want256 {
		t.Fatalf("Sum256(len %d) = %x, want %x", len(b), got, want256)
	}
	if got := Sum256Concat(parts...); got != want256 {
		t.Fatalf("Sum256Concat(len %d, cuts %v) = %x, want %x", len(b), at, got, want256)
	}
	if got := Sum512Concat(parts...); got != want512 {
		t.Fatalf("Sum512Concat(len %d, cuts %v) = %x, want %x", len(b), at, got, want512)
	}
}

// TestGenericMatchesStd covers every length around the padding boundaries
// of both block sizes, with and without part boundaries inside a block.
func TestGenericMatchesStd(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 1100)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	for n := 0; n <= 300; n++ {
		check(t, b[:n])
		check(t, b[:n], 1)
		check(t, b[:n], n/3, n/2)
		check(t, b[:n], 63, 64, 65)
		check(t, b[:n], 111, 112, 128)
	}
	for _, n := range []int{511, 512, 513, 1023, 1024, 1025, 1100} {
		check(t, b[:n], r.IntN(n), n-1)
	}
	check(t, bytes.Repeat([]byte{0}, 1<<20), 1, 1000, 70000)
}

// FuzzGenericMatchesStd: for any input and any two cut points, the
// portable functions give the standard library's digests.
func FuzzGenericMatchesStd(f *testing.F) {
	f.Add([]byte(""), 0, 0)
	f.Add([]byte("abc"), 1, 2)
	f.Add(bytes.Repeat([]byte{0xa5}, 55), 3, 54)
	f.Add(bytes.Repeat([]byte{0x5a}, 56), 0, 56)
	f.Add(bytes.Repeat([]byte{1}, 112), 64, 100)
	f.Add(bytes.Repeat([]byte{2}, 129), 127, 128)
	f.Fuzz(func(t *testing.T, b []byte, i, j int) {
		if i < 0 {
			i = -i
		}
		if j < 0 {
			j = -j
		}
		check(t, b, i%(len(b)+1), j%(len(b)+1))
	})
}

// BenchmarkSum256 times 4 MiB through the portable function and through
// crypto/sha256. Built for wasip1 the portable function runs its
// WebAssembly block kernel (blocks_wasm.s) and crypto/sha256 its Go code:
//
//	GOOS=wasip1 GOARCH=wasm go test -run '^$' -bench Sum256 ./shared/digest
func BenchmarkSum256(b *testing.B) {
	buf := bytes.Repeat([]byte{0x5a}, 4<<20)
	b.Run("generic", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			sum256Generic(buf)
		}
	})
	b.Run("std", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			sha256.Sum256(buf)
		}
	})
}

// BenchmarkSum512 times the portable SHA-512, the verifyonly build's hash
// for Ed25519, on 1 MiB and on a signature-sized 200-byte message, with
// crypto/sha512 beside it as the floor.
func BenchmarkSum512(b *testing.B) {
	for _, n := range []int{200, 1 << 20} {
		buf := bytes.Repeat([]byte{0x5a}, n)
		b.Run(fmt.Sprintf("generic/%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(buf)))
			for b.Loop() {
				sum512Generic(buf)
			}
		})
		b.Run(fmt.Sprintf("std/%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(buf)))
			for b.Loop() {
				sha512.Sum512(buf)
			}
		})
	}
}

// TestConstantsFromPrimes derives the initial hash values and round
// constants from the primes, as FIPS 180-4 defines them, so a mistyped
// constant is found even where the comparison with the standard library
// would not say which one.
func TestConstantsFromPrimes(t *testing.T) {
	var primes []int64
	for n := int64(2); len(primes) < 80; n++ {
		prime := true
		for _, p := range primes {
			if n%p == 0 {
				prime = false
				break
			}
		}
		if prime {
			primes = append(primes, n)
		}
	}
	// frac64 is the first 64 bits of the fractional part of p^(1/k):
	// floor(root(p·2^(64k))) mod 2^64.
	frac64 := func(p int64, k uint) uint64 {
		n := new(big.Int).Lsh(big.NewInt(p), 64*k)
		lo, hi := big.NewInt(0), new(big.Int).Lsh(big.NewInt(1), 64+8)
		for new(big.Int).Sub(hi, lo).Cmp(big.NewInt(1)) > 0 {
			mid := new(big.Int).Rsh(new(big.Int).Add(lo, hi), 1)
			if new(big.Int).Exp(mid, big.NewInt(int64(k)), nil).Cmp(n) <= 0 {
				lo = mid
			} else {
				hi = mid
			}
		}
		return lo.Uint64() // the low 64 bits: the integer part is dropped
	}
	for i, p := range primes {
		k := frac64(p, 3)
		if k512[i] != k {
			t.Errorf("k512[%d] = %#x, want %#x", i, k512[i], k)
		}
		if i < 64 && k256[i] != uint32(k>>32) {
			t.Errorf("k256[%d] = %#x, want %#x", i, k256[i], k>>32)
		}
		if i < 8 {
			v := frac64(p, 2)
			if iv512[i] != v || iv256[i] != uint32(v>>32) {
				t.Errorf("iv[%d] = %#x, %#x, want %#x", i, iv256[i], iv512[i], v)
			}
		}
	}
}
