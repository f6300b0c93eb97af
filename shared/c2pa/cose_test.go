package c2pa

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"testing"

	"github.com/veraison/go-cose"
)

// Certificates whose key is marked id-RSASSA-PSS (as C2PA's PS256 signers
// are) get their key parsed, and PS256 claim signatures verify with it.
func TestPSSKeyAndSignature(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der := selfSignedDER(t, key, "pss")
	// rsaEncryption (1.2.840.113549.1.1.1) and id-RSASSA-PSS (…1.1.10)
	// differ in the OID's last byte only.
	rsaOID := []byte{0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(cert.RawSubjectPublicKeyInfo, rsaOID)
	at := bytes.Index(der, cert.RawSubjectPublicKeyInfo) + i + len(rsaOID) - 1
	pssDER := bytes.Clone(der)
	pssDER[at] = 0x0a
	pss, err := x509.ParseCertificate(pssDER)
	if err != nil {
		t.Fatal(err)
	}
	if pss.PublicKey != nil {
		t.Skip("crypto/x509 now parses RSASSA-PSS keys itself")
	}
	usePSSKey(pss)
	k, ok := pss.PublicKey.(*rsa.PublicKey)
	if !ok || !k.Equal(&key.PublicKey) {
		t.Fatalf("key %T not recovered", pss.PublicKey)
	}
	tbs := []byte("to be signed")
	d := sha256.Sum256(tbs)
	sig, err := rsa.SignPSS(rand.Reader, key, crypto.SHA256, d[:], &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		alg  cose.Algorithm
		tbs  []byte
		want bool
	}{
		{cose.AlgorithmPS256, tbs, true},
		{cose.AlgorithmPS256, []byte("something else"), false},
		{cose.AlgorithmES256, tbs, false},
	} {
		if ok, known := verifySig(tc.alg, k, tc.tbs, sig); !known || ok != tc.want {
			t.Errorf("%v over %q: ok=%v known=%v", tc.alg, tc.tbs, ok, known)
		}
	}
}
