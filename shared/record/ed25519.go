package record

import (
	"bytes"
	"strconv"

	"filippo.io/edwards25519"

	"github.com/provenant/provenant/shared/digest"
)

// verifyEd25519 is crypto/ed25519's Verify (pure Ed25519, RFC 8032, with
// the standard library's exact acceptance rules: the public key decoded by
// the same point decoding, S required canonical, the three high bits of
// the signature's last byte required zero, and R compared by encoding) on
// filippo.io/edwards25519, the upstream of the standard library's own
// curve code. Like crypto/ed25519 it panics when pub is not 32 bytes.
// TestVerifyEd25519MatchesStd and FuzzVerifyEd25519 hold the two equal.
func verifyEd25519(pub, msg, sig []byte) bool {
	if l := len(pub); l != PublicKeySize {
		panic("ed25519: bad public key length: " + strconv.Itoa(l))
	}
	a, err := new(edwards25519.Point).SetBytes(pub)
	if err != nil || len(sig) != SignatureSize || sig[63]&224 != 0 {
		return false
	}
	h := digest.Sum512Concat(sig[:32], pub, msg)
	k, err := edwards25519.NewScalar().SetUniformBytes(h[:])
	if err != nil {
		panic("record: a 64-byte hash did not reduce to a scalar") // SetUniformBytes fails only on a length other than 64
	}
	s, err := edwards25519.NewScalar().SetCanonicalBytes(sig[32:])
	if err != nil {
		return false
	}
	// [S]B = R + [k]A, checked as [k](-A) + [S]B = R.
	minusA := new(edwards25519.Point).Negate(a)
	r := new(edwards25519.Point).VarTimeDoubleScalarBaseMult(k, minusA, s)
	return bytes.Equal(sig[:32], r.Bytes())
}
