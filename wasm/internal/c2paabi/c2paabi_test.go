package c2paabi

import (
	"encoding/json"
	"encoding/pem"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/c2pa/c2patest"
	"github.com/provenant/provenant/shared/wire"
	"github.com/provenant/provenant/wasm/internal/testphoto"
)

// TestReadAndMember: c2pa_read gives the manifest's facts (null for a
// file without one), c2pa_member the member with trust decided against
// the CA passed, and bad input is a bad_input failure.
func TestReadAndMember(t *testing.T) {
	raw := testphoto.File(t)
	ca := c2patest.NewCA(t, "Provenant")
	signed, _, _, err := c2pa.Embed(raw, c2pa.Manifest{ClaimGenerator: "Provenant/1.0", Format: "image/jpeg"},
		ca.Signer(t, c2patest.CertOptions{Org: "Example News"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(Read(raw, time.Now())); got != `{"ok":true,"c2pa":null}` {
		t.Errorf("a file without a manifest: %s", got)
	}
	var r struct {
		OK   bool            `json:"ok"`
		C2PA *wire.C2PAFacts `json:"c2pa"`
	}
	if err := json.Unmarshal(Read(signed, time.Now()), &r); err != nil || !r.OK || r.C2PA == nil || r.C2PA.ValidationState != "valid" {
		t.Fatalf("c2pa_read of a signed file: %+v (%v)", r.C2PA, err)
	}
	caPEM := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Cert.Raw}))
	in, _ := json.Marshal(map[string]any{"c2pa": r.C2PA, "ca": caPEM})
	var m struct {
		OK   bool       `json:"ok"`
		C2PA *wire.C2PA `json:"c2pa"`
	}
	if err := json.Unmarshal(Member(in), &m); err != nil || !m.OK || m.C2PA == nil || !m.C2PA.Trusted {
		t.Fatalf("c2pa_member with the issuing CA: %+v (%v)", m.C2PA, err)
	}
	for _, bad := range [][]byte{nil, []byte(`{"c2pa":{},"extra":1}`), []byte(`[]`)} {
		if out := string(Member(bad)); !strings.Contains(out, `"code":"bad_input"`) {
			t.Errorf("c2pa_member(%q) = %s", bad, out)
		}
	}
	if out := string(Read(nil, time.Now())); !strings.Contains(out, `"code":"bad_input"`) {
		t.Errorf("c2pa_read without input = %s", out)
	}
}
