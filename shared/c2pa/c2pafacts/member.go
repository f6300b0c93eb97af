package c2pafacts

import (
	"bytes"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"strings"

	"github.com/provenant/provenant/shared/wire"
)

// Member is the verify response's c2pa member for the manifest f the
// file carries (nil when none), with trust decided against the origin's
// Provenant CA (caPEM; empty when unknown, and then nothing is trusted).
// The decision uses no clock: the signing certificate is trusted when the
// manifest validates and the CA's key signed that certificate, so that the
// origin, an edge and the browser answer alike whenever they are asked.
func Member(f *wire.C2PAFacts, caPEM string) *wire.C2PA {
	if f == nil {
		return nil
	}
	m := &wire.C2PA{C2PAManifest: f.C2PAManifest}
	if m.Actions == nil {
		m.Actions = []wire.C2PAAction{}
	}
	if f.ValidationState != "valid" {
		m.RecordID = ""
		m.Details = "the C2PA manifest does not validate"
		if len(f.ValidationCodes) > 0 {
			m.Details += ": " + strings.Join(f.ValidationCodes, ", ")
		}
		return m
	}
	ca := parseCA(caPEM)
	if ca == nil {
		m.Details = "valid C2PA manifest signed by " + quoted(f.Signer) + "; this origin's CA was not given, so its trust is not decided"
		return m
	}
	if !issuedBy(f.Chain, ca) {
		m.Details = "valid C2PA manifest signed by " + quoted(f.Signer) + ", issued by " + quoted(f.Issuer) +
			", a certificate this origin's CA did not issue: whether to trust it is the reader's decision"
		return m
	}
	m.Trusted = true
	if f.RecordID == "" {
		m.Details = "valid C2PA manifest signed under this origin's Provenant CA (not on any public trust list)"
		return m
	}
	m.Ours = true
	m.Details = "valid Provenant C2PA manifest naming record " + f.RecordID +
		", signed under this origin's Provenant CA (not on any public trust list)"
	return m
}

func quoted(s string) string {
	if s == "" {
		return "an unnamed signer"
	}
	return "\"" + s + "\""
}

func parseCA(p string) *x509.Certificate {
	b, _ := pem.Decode([]byte(p))
	if b == nil || b.Type != "CERTIFICATE" {
		return nil
	}
	c, err := x509.ParseCertificate(b.Bytes)
	if err != nil || !c.IsCA {
		return nil
	}
	return c
}

// issuedBy reports whether the leaf of chain (base64 DER) names ca as its
// issuer and carries ca's signature.
func issuedBy(chain []string, ca *x509.Certificate) bool {
	if len(chain) == 0 {
		return false
	}
	der, err := base64.StdEncoding.DecodeString(chain[0])
	if err != nil {
		return false
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil || leaf.IsCA {
		return false
	}
	return bytes.Equal(leaf.RawIssuer, ca.RawSubject) && leaf.CheckSignatureFrom(ca) == nil
}
