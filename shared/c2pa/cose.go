package c2pa

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"fmt"
	"math/big"

	"github.com/fxamacker/cbor/v2"
	"github.com/veraison/go-cose"
)

// ErrSigner is wrapped by errors about a Signer that cannot sign a claim.
var ErrSigner = errors.New("c2pa: unusable signer")

// signatureAlg maps the signer's key to its COSE algorithm: ES256 for
// ECDSA P-256, EdDSA for Ed25519 (the two the contract allows).
func signatureAlg(s Signer) (cose.Algorithm, error) {
	if s.Key == nil || len(s.Chain) == 0 || s.Chain[0] == nil {
		return 0, fmt.Errorf("%w: key and leaf certificate required", ErrSigner)
	}
	switch k := s.Key.Public().(type) {
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return 0, fmt.Errorf("%w: ECDSA key not on P-256", ErrSigner)
		}
		if !k.Equal(s.Chain[0].PublicKey) {
			return 0, fmt.Errorf("%w: key does not match the leaf certificate", ErrSigner)
		}
		return cose.AlgorithmES256, nil
	case ed25519.PublicKey:
		if !k.Equal(s.Chain[0].PublicKey) {
			return 0, fmt.Errorf("%w: key does not match the leaf certificate", ErrSigner)
		}
		return cose.AlgorithmEdDSA, nil
	}
	return 0, fmt.Errorf("%w: key type %T", ErrSigner, s.Key.Public())
}

// signClaim returns the COSE_Sign1_Tagged signature over claim with a
// detached payload: the protected header carries alg and x5chain (label
// 33, the chain leaf first); no timestamp (sigTst) is included, so readers
// judge the certificate's validity at validation time.
func signClaim(claim []byte, s Signer) ([]byte, error) {
	alg, err := signatureAlg(s)
	if err != nil {
		return nil, err
	}
	signer, err := cose.NewSigner(alg, s.Key)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSigner, err)
	}
	chain := make([]any, len(s.Chain))
	for i, c := range s.Chain {
		chain[i] = c.Raw
	}
	msg := cose.NewSign1Message()
	msg.Headers.Protected.SetAlgorithm(alg)
	msg.Headers.Protected[cose.HeaderLabelX5Chain] = chain
	msg.Payload = claim
	if err := msg.Sign(rand.Reader, nil, signer); err != nil {
		return nil, fmt.Errorf("c2pa: signing the claim: %w", err)
	}
	msg.Payload = nil
	return msg.MarshalCBOR()
}

// verifiedSignature is what checking a claim signature yields.
type verifiedSignature struct {
	chain []*x509.Certificate
	codes []string // failure codes; empty when the signature verifies
}

// verifyClaim checks sig (COSE_Sign1, detached) over claim with the leaf
// of the x5chain it carries, wherever the writer put x5chain (protected or
// unprotected, label 33 or "x5chain").
func verifyClaim(sig, claim []byte) (verifiedSignature, error) {
	var msg cose.Sign1Message
	if err := msg.UnmarshalCBOR(sig); err != nil {
		var um cose.UntaggedSign1Message
		if err2 := um.UnmarshalCBOR(sig); err2 != nil {
			return verifiedSignature{}, malformed("claim signature is not COSE_Sign1: %v", err)
		}
		msg = cose.Sign1Message(um)
	}
	raw, err := x5chain(msg.Headers)
	if err != nil {
		return verifiedSignature{codes: []string{"signingCredential.invalid"}}, nil
	}
	chain := make([]*x509.Certificate, 0, len(raw))
	for _, r := range raw {
		c, err := x509.ParseCertificate(r)
		if err != nil {
			return verifiedSignature{codes: []string{"signingCredential.invalid"}}, nil
		}
		usePSSKey(c)
		chain = append(chain, c)
	}
	v := verifiedSignature{chain: chain}
	alg, err := msg.Headers.Protected.Algorithm()
	if err != nil {
		v.codes = append(v.codes, "algorithm.unsupported")
		return v, nil
	}
	// The Sig_structure is built from the protected header bytes exactly
	// as stored: go-cose would re-encode a header that is not in
	// deterministic CBOR, and other writers (cbor-x) do not always emit it.
	var protected []byte
	if err := decMode.Unmarshal(msg.Headers.RawProtected, &protected); err != nil {
		return verifiedSignature{}, malformed("claim signature protected header: %v", err)
	}
	tbs, err := encMode.Marshal([]any{"Signature1", protected, []byte{}, claim})
	if err != nil {
		return verifiedSignature{}, fmt.Errorf("c2pa: encoding Sig_structure: %w", err)
	}
	switch ok, known := verifySig(alg, chain[0].PublicKey, tbs, msg.Signature); {
	case !known:
		v.codes = append(v.codes, "algorithm.unsupported")
	case !ok:
		v.codes = append(v.codes, "claimSignature.mismatch")
	}
	return v, nil
}

// verifySig checks sig over tbs for the C2PA signature algorithms. ECDSA
// signatures are COSE's fixed-size r||s; an ASN.1 DER signature, which some
// writers emit, is accepted too, as other readers do.
func verifySig(alg cose.Algorithm, pub any, tbs, sig []byte) (ok, known bool) {
	var h crypto.Hash
	switch alg {
	case cose.AlgorithmES256, cose.AlgorithmPS256:
		h = crypto.SHA256
	case cose.AlgorithmES384, cose.AlgorithmPS384:
		h = crypto.SHA384
	case cose.AlgorithmES512, cose.AlgorithmPS512:
		h = crypto.SHA512
	case cose.AlgorithmEdDSA:
		k, isEd := pub.(ed25519.PublicKey)
		return isEd && ed25519.Verify(k, tbs, sig), true
	default:
		return false, false
	}
	hh := h.New()
	hh.Write(tbs)
	digest := hh.Sum(nil)
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		if alg != cose.AlgorithmES256 && alg != cose.AlgorithmES384 && alg != cose.AlgorithmES512 {
			return false, true
		}
		n := (k.Curve.Params().BitSize + 7) / 8
		if len(sig) == 2*n {
			r := new(big.Int).SetBytes(sig[:n])
			s := new(big.Int).SetBytes(sig[n:])
			return ecdsa.Verify(k, digest, r, s), true
		}
		return ecdsa.VerifyASN1(k, digest, sig), true
	case *rsa.PublicKey:
		if alg != cose.AlgorithmPS256 && alg != cose.AlgorithmPS384 && alg != cose.AlgorithmPS512 {
			return false, true
		}
		return rsa.VerifyPSS(k, h, digest, sig, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash}) == nil, true
	}
	return false, true
}

func x5chain(h cose.Headers) ([][]byte, error) {
	var found []any
	for _, m := range []map[any]any{h.Protected, h.Unprotected} {
		for _, k := range []any{cose.HeaderLabelX5Chain, "x5chain"} {
			if v, ok := m[k]; ok {
				found = append(found, v)
			}
		}
	}
	if len(found) != 1 {
		return nil, errors.New("x5chain missing or repeated")
	}
	switch v := found[0].(type) {
	case []byte:
		return [][]byte{v}, nil
	case []any:
		if len(v) == 0 || len(v) > 16 {
			return nil, errors.New("x5chain length")
		}
		out := make([][]byte, len(v))
		for i, e := range v {
			b, ok := e.([]byte)
			if !ok {
				return nil, errors.New("x5chain entry not a byte string")
			}
			out[i] = b
		}
		return out, nil
	case cbor.RawMessage:
		var one []byte
		if err := decMode.Unmarshal(v, &one); err == nil {
			return [][]byte{one}, nil
		}
		var many [][]byte
		if err := decMode.Unmarshal(v, &many); err == nil && len(many) > 0 && len(many) <= 16 {
			return many, nil
		}
	}
	return nil, errors.New("x5chain of unexpected type")
}

var oidRSAPSS = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 10}

// usePSSKey fills in the public key of a certificate whose key is marked
// id-RSASSA-PSS, which crypto/x509 leaves unparsed (C2PA's PS256 test and
// production certificates use it). The key itself is a plain PKCS #1 RSA
// public key.
func usePSSKey(c *x509.Certificate) {
	if c.PublicKey != nil {
		return
	}
	var spki struct {
		Algorithm pkix.AlgorithmIdentifier
		PublicKey asn1.BitString
	}
	if rest, err := asn1.Unmarshal(c.RawSubjectPublicKeyInfo, &spki); err != nil || len(rest) > 0 {
		return
	}
	if !spki.Algorithm.Algorithm.Equal(oidRSAPSS) {
		return
	}
	if k, err := x509.ParsePKCS1PublicKey(spki.PublicKey.Bytes); err == nil {
		c.PublicKey = k
		c.PublicKeyAlgorithm = x509.RSA
	}
}
