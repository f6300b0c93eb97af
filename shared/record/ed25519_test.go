package record

import (
	"crypto/ed25519"
	"encoding/hex"
	"math/rand/v2"
	"testing"
)

// edCase is one (public key, message, signature) triple, whatever its
// validity.
type edCase struct{ pub, msg, sig []byte }

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// edCases returns valid signatures and their mutations: every single-bit
// flip of key and signature, S + L (non-canonical), the high bits of the
// last byte set, keys that do not decode, small-order keys and R values,
// and wrong signature lengths.
func edCases(t testing.TB) []edCase {
	r := rand.New(rand.NewChaCha8([32]byte{7}))
	var cases []edCase
	// L, the group order, little-endian.
	l := mustHex("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")
	// Encodings of small-order points (identity, order 2, 4 and 8) and a
	// y that is not on the curve.
	odd := [][]byte{
		mustHex("0100000000000000000000000000000000000000000000000000000000000000"),
		mustHex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),
		mustHex("0000000000000000000000000000000000000000000000000000000000000000"),
		mustHex("0000000000000000000000000000000000000000000000000000000000000080"),
		mustHex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"),
		mustHex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"),
		mustHex("0200000000000000000000000000000000000000000000000000000000000000"),
		mustHex("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),
		mustHex("ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"),
	}
	for range 8 {
		seed := make([]byte, ed25519.SeedSize)
		for i := range seed {
			seed[i] = byte(r.Uint32())
		}
		priv := ed25519.NewKeyFromSeed(seed)
		pub := priv.Public().(ed25519.PublicKey)
		msg := make([]byte, r.IntN(300))
		for i := range msg {
			msg[i] = byte(r.Uint32())
		}
		sig := ed25519.Sign(priv, msg)
		cases = append(cases, edCase{pub, msg, sig})
		for bit := range 8 * len(sig) {
			s := append([]byte(nil), sig...)
			s[bit/8] ^= 1 << (bit % 8)
			cases = append(cases, edCase{pub, msg, s})
		}
		for bit := range 8 * len(pub) {
			p := append([]byte(nil), pub...)
			p[bit/8] ^= 1 << (bit % 8)
			cases = append(cases, edCase{p, msg, sig})
		}
		// S + L: the same scalar, not canonical.
		s := append([]byte(nil), sig...)
		carry := 0
		for i := range 32 {
			v := int(s[32+i]) + int(l[i]) + carry
			s[32+i], carry = byte(v), v>>8
		}
		cases = append(cases, edCase{pub, msg, s})
		for _, hi := range []byte{0x20, 0x40, 0x80} {
			s := append([]byte(nil), sig...)
			s[63] |= hi
			cases = append(cases, edCase{pub, msg, s})
		}
		for _, o := range odd {
			cases = append(cases, edCase{o, msg, sig})
			s := append(append([]byte(nil), o...), sig[32:]...)
			cases = append(cases, edCase{pub, msg, s})
			cases = append(cases, edCase{o, msg, s})
		}
		cases = append(cases, edCase{pub, msg, sig[:63]}, edCase{pub, msg, append(append([]byte(nil), sig...), 0)}, edCase{pub, msg, nil})
		if len(msg) > 0 {
			m := append([]byte(nil), msg...)
			m[0] ^= 1
			cases = append(cases, edCase{pub, m, sig})
		}
	}
	return cases
}

// TestVerifyEd25519MatchesStd: the module's Ed25519 verification accepts
// exactly what crypto/ed25519 accepts, valid signatures included.
func TestVerifyEd25519MatchesStd(t *testing.T) {
	valid := 0
	for i, c := range edCases(t) {
		want := ed25519.Verify(c.pub, c.msg, c.sig)
		if got := verifyEd25519(c.pub, c.msg, c.sig); got != want {
			t.Fatalf("case %d: verifyEd25519(%x, %d-byte msg, %x) = %v, crypto/ed25519 says %v", i, c.pub, len(c.msg), c.sig, got, want)
		}
		if want {
			valid++
		}
	}
	if valid < 8 {
		t.Fatalf("only %d valid cases; the table must include the genuine signatures", valid)
	}
}

// TestVerifyEd25519BadKeyLengthPanics: as crypto/ed25519.Verify does.
func TestVerifyEd25519BadKeyLengthPanics(t *testing.T) {
	for _, n := range []int{0, 31, 33} {
		func() {
			defer func() {
				got, _ := recover().(string)
				want := func() (s string) {
					defer func() { s, _ = recover().(string) }()
					ed25519.Verify(make([]byte, n), nil, make([]byte, 64))
					return ""
				}()
				if got != want || got == "" {
					t.Errorf("key of %d bytes: panic %q, crypto/ed25519 panics %q", n, got, want)
				}
			}()
			verifyEd25519(make([]byte, n), nil, make([]byte, 64))
		}()
	}
}

// FuzzVerifyEd25519: for any 32-byte key, message and signature, the
// answer is crypto/ed25519's. The seeds are the table's cases.
func FuzzVerifyEd25519(f *testing.F) {
	for _, c := range edCases(f)[:200] {
		f.Add(c.pub, c.msg, c.sig)
	}
	f.Fuzz(func(t *testing.T, pub, msg, sig []byte) {
		if len(pub) != PublicKeySize {
			return
		}
		if got, want := verifyEd25519(pub, msg, sig), ed25519.Verify(pub, msg, sig); got != want {
			t.Fatalf("verifyEd25519(%x, %x, %x) = %v, crypto/ed25519 says %v", pub, msg, sig, got, want)
		}
	})
}
