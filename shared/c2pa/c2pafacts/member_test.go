package c2pafacts

import (
	"encoding/base64"
	"encoding/pem"
	"strings"
	"testing"

	"github.com/provenant/provenant/shared/c2pa/c2patest"
	"github.com/provenant/provenant/shared/wire"
)

// TestMember: trust is decided against the CA given, never by the
// manifest's own claim, and only for a manifest that validates.
func TestMember(t *testing.T) {
	ours := c2patest.NewCA(t, "Provenant")
	other := c2patest.NewCA(t, "Somebody Else")
	leaf := ours.Signer(t, c2patest.CertOptions{Org: "Example News"}).Chain[0]
	foreign := other.Signer(t, c2patest.CertOptions{Org: "Example News"}).Chain[0]
	b64 := func(der []byte) []string { return []string{base64.StdEncoding.EncodeToString(der)} }
	caPEM := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ours.Cert.Raw}))
	leafPEM := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leaf.Raw}))
	facts := func(state, record string, chain []string, codes ...string) *wire.C2PAFacts {
		return &wire.C2PAFacts{C2PAManifest: wire.C2PAManifest{ActiveManifest: "urn:uuid:1", ClaimGenerator: "Provenant/1.0", Signer: "Example News",
			ValidationState: state, ValidationCodes: codes, RecordID: record}, Chain: chain}
	}
	for _, tc := range []struct {
		name          string
		f             *wire.C2PAFacts
		ca            string
		trusted, ours bool
		record        string
		details       string
	}{
		{"ours", facts("valid", "rec-1", b64(leaf.Raw)), caPEM, true, true, "rec-1", "naming record rec-1"},
		{"our CA, no record", facts("valid", "", b64(leaf.Raw)), caPEM, true, false, "", "signed under this origin's Provenant CA"},
		{"another CA", facts("valid", "rec-1", b64(foreign.Raw)), caPEM, false, false, "rec-1", "did not issue"},
		{"no CA given", facts("valid", "rec-1", b64(leaf.Raw)), "", false, false, "rec-1", "not decided"},
		{"CA is a leaf", facts("valid", "rec-1", b64(leaf.Raw)), leafPEM, false, false, "rec-1", "not decided"},
		{"chain not DER", facts("valid", "rec-1", []string{"AAAA"}), caPEM, false, false, "rec-1", "did not issue"},
		{"chain not base64", facts("valid", "rec-1", []string{"!!"}), caPEM, false, false, "rec-1", "did not issue"},
		{"no chain", facts("valid", "rec-1", nil), caPEM, false, false, "rec-1", "did not issue"},
		{"CA as leaf", facts("valid", "rec-1", b64(ours.Cert.Raw)), caPEM, false, false, "rec-1", "did not issue"},
		{"invalid", facts("invalid", "rec-1", b64(leaf.Raw), "assertion.dataHash.mismatch"), caPEM, false, false, "", "assertion.dataHash.mismatch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := Member(tc.f, tc.ca)
			if m == nil || m.Trusted != tc.trusted || m.Ours != tc.ours || m.RecordID != tc.record || !strings.Contains(m.Details, tc.details) {
				t.Fatalf("member %+v, want trusted=%v ours=%v record=%q details containing %q", m, tc.trusted, tc.ours, tc.record, tc.details)
			}
			if m.Actions == nil {
				t.Error("actions must be an array, never null")
			}
		})
	}
	if Member(nil, caPEM) != nil {
		t.Error("no manifest must give no member")
	}
}

// FuzzMember: whatever a client sends as the manifest's summary and
// whatever comes as the CA, the member is computed without panicking, and
// trust never goes to a manifest that does not validate or to a chain the
// CA did not sign.
func FuzzMember(f *testing.F) {
	f.Add("valid", "rec-1", "AAAA", "")
	f.Add("invalid", "", "", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
	ca := c2patest.NewCA(f, "Provenant")
	leaf := ca.Signer(f, c2patest.CertOptions{}).Chain[0]
	f.Add("valid", "rec-1", base64.StdEncoding.EncodeToString(leaf.Raw), string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Cert.Raw})))
	f.Fuzz(func(t *testing.T, state, record, chain, ca string) {
		m := Member(&wire.C2PAFacts{C2PAManifest: wire.C2PAManifest{ValidationState: state, RecordID: record}, Chain: []string{chain}}, ca)
		if m == nil {
			t.Fatal("a manifest gave no member")
		}
		if m.Trusted && (state != "valid" || parseCA(ca) == nil) {
			t.Fatalf("trusted without a valid manifest and a CA: %+v", m)
		}
		if m.Ours && (!m.Trusted || record == "") {
			t.Fatalf("ours without trust or record: %+v", m)
		}
	})
}
