// Package c2patest holds test helpers for C2PA manifests: certificates
// with the C2PA signing profile generated on the fly, and the independent
// reader (the @trustnxt/c2pa-ts npm package run by node) that tests use to
// check what package c2pa writes.
package c2patest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"math/big"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/c2pa"
)

// OIDDocumentSigning is the id-kp-documentSigning extended key usage
// (RFC 9336) C2PA accepts for claim signers.
var OIDDocumentSigning = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 3, 36}

// CertOptions shape the test chain; the zero value is a valid C2PA chain.
type CertOptions struct {
	// Org is the leaf's organisation (default "Provenant Test Org").
	Org string
	// NotBefore and NotAfter bound the leaf's validity (default five
	// years ago to five years ahead: hosts judge credentials at their own
	// clock, which in tests is often a fixed date).
	NotBefore, NotAfter time.Time
	// NoEKU leaves the extended key usage out of the leaf, which readers
	// refuse.
	NoEKU bool
}

// CA is a throwaway ECDSA P-256 certificate authority for tests.
type CA struct {
	Cert *x509.Certificate
	Key  crypto.Signer
}

// NewCA returns a fresh self-signed test CA (key usage keyCertSign and
// cRLSign, a subject key id, valid from ten years ago to ten years ahead,
// so tests that judge credentials at a fixed or fake time find it valid).
func NewCA(t testing.TB, org string) *CA {
	t.Helper()
	ca, err := GenerateCA(org)
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

// GenerateCA is NewCA for code without a testing.TB (examples).
func GenerateCA(org string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{Organization: []string{org}, CommonName: org + " Root"},
		NotBefore:             now.AddDate(-10, 0, 0),
		NotAfter:              now.AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{Cert: cert, Key: key}, nil
}

// Issue returns a claim-signer certificate for pub under the CA.
func (ca *CA) Issue(t testing.TB, pub crypto.PublicKey, opts CertOptions) *x509.Certificate {
	t.Helper()
	c, err := ca.IssueCert(pub, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// IssueCert is Issue for code without a testing.TB.
func (ca *CA) IssueCert(pub crypto.PublicKey, opts CertOptions) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	tmpl := LeafTemplate(opts)
	tmpl.SerialNumber = serial.Add(serial, big.NewInt(2))
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, pub, ca.Key)
	if err != nil {
		return nil, err
	}
	return x509.ParseCertificate(der)
}

// Signer returns a fresh ECDSA P-256 key with a leaf certificate under the
// CA, chain leaf then CA.
func (ca *CA) Signer(t testing.TB, opts CertOptions) c2pa.Signer {
	t.Helper()
	s, err := ca.GenerateSigner(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// GenerateSigner is Signer for code without a testing.TB.
func (ca *CA) GenerateSigner(opts CertOptions) (c2pa.Signer, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return c2pa.Signer{}, err
	}
	leaf, err := ca.IssueCert(key.Public(), opts)
	if err != nil {
		return c2pa.Signer{}, err
	}
	return c2pa.Signer{Key: key, Chain: []*x509.Certificate{leaf, ca.Cert}}, nil
}

// NewSigner returns a signer under a fresh test CA with the C2PA signer
// profile (critical key usage digitalSignature, EKU emailProtection and
// documentSigning, authority key id), chain leaf then CA.
func NewSigner(t testing.TB, opts CertOptions) c2pa.Signer {
	t.Helper()
	return NewCA(t, "Provenant Test CA").Signer(t, opts)
}

// LeafTemplate is the certificate template of a C2PA claim signer.
func LeafTemplate(opts CertOptions) *x509.Certificate {
	now := time.Now()
	if opts.Org == "" {
		opts.Org = "Provenant Test Org"
	}
	if opts.NotBefore.IsZero() {
		opts.NotBefore = now.AddDate(-5, 0, 0)
	}
	if opts.NotAfter.IsZero() {
		opts.NotAfter = now.AddDate(5, 0, 0)
	}
	leaf := &x509.Certificate{
		SerialNumber:          big.NewInt(2),
		Subject:               pkix.Name{Organization: []string{opts.Org}, CommonName: opts.Org + " claim signer"},
		NotBefore:             opts.NotBefore,
		NotAfter:              opts.NotAfter,
		KeyUsage:              x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
	}
	if !opts.NoEKU {
		leaf.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageEmailProtection}
		leaf.UnknownExtKeyUsage = []asn1.ObjectIdentifier{OIDDocumentSigning}
	}
	return leaf
}
