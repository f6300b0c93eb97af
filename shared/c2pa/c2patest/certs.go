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
	// NotBefore and NotAfter bound the leaf's validity (default one hour
	// ago to one day ahead).
	NotBefore, NotAfter time.Time
	// NoEKU leaves the extended key usage out of the leaf, which readers
	// refuse.
	NoEKU bool
}

// NewSigner returns a fresh ECDSA P-256 test CA and a leaf under it with
// the C2PA signer profile (critical key usage digitalSignature, EKU
// emailProtection and documentSigning, authority key id), as a c2pa.Signer
// whose chain is leaf then CA.
func NewSigner(t testing.TB, opts CertOptions) c2pa.Signer {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	ca := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{Organization: []string{"Provenant Test CA"}, CommonName: "Provenant Test Root"},
		NotBefore:             now.Add(-2 * time.Hour),
		NotAfter:              now.Add(48 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, caKey.Public(), caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := LeafTemplate(opts)
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, caCert, leafKey.Public(), caKey)
	if err != nil {
		t.Fatal(err)
	}
	leafCert, err := x509.ParseCertificate(leafDER)
	if err != nil {
		t.Fatal(err)
	}
	return c2pa.Signer{Key: leafKey, Chain: []*x509.Certificate{leafCert, caCert}}
}

// LeafTemplate is the certificate template of a C2PA claim signer.
func LeafTemplate(opts CertOptions) *x509.Certificate {
	now := time.Now()
	if opts.Org == "" {
		opts.Org = "Provenant Test Org"
	}
	if opts.NotBefore.IsZero() {
		opts.NotBefore = now.Add(-time.Hour)
	}
	if opts.NotAfter.IsZero() {
		opts.NotAfter = now.Add(24 * time.Hour)
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

var _ crypto.Signer = (*ecdsa.PrivateKey)(nil)
