package server

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/receipt"
	"github.com/provenant/provenant/shared/wire"
)

// TestEmbeddedChainNamedNotPublic: with the default embedded chain, every
// surface that speaks of an anchor names the chain and says it is not
// public: verify (network object, blockchain check, no confidence from
// the anchor), the lookup answer and the browser module's verdict built
// from it, the certificate as JSON and as HTML, the record detail and the
// receipt.
func TestEmbeddedChainNamedNotPublic(t *testing.T) {
	ts := startServer(t, "", nil, func(c *Config, _ *deps) {
		c.Anchor.BatchSize = 1
		c.Anchor.PollInterval = 20 * time.Millisecond
	})
	s := ts.newSignerOrg("desk@network.example", "Network News")
	signed, id := ts.signTestdata(s, "meadow.jpg", "sign")
	ts.waitAnchored(s, id)
	want := wire.Network{Name: "provenant-dev", ChainID: 1337, Public: false, Description: wire.LocalChainDescription}

	v := ts.verifyWire(signed)
	if !v.Authentic || v.Network == nil || *v.Network != want {
		t.Fatalf("verify authentic %v network %+v, want %+v", v.Authentic, v.Network, want)
	}
	if bc := v.Checks.Blockchain; !bc.Passed || !strings.Contains(bc.Details, "a "+wire.LocalChainDescription) {
		t.Errorf("blockchain check %+v, want passed and labelled as the local development chain", bc)
	}
	if v.Confidence != 0.98 {
		t.Errorf("confidence %v, want 0.98: an anchor on a local chain adds nothing", v.Confidence)
	}

	bv, _ := ts.browserVerify(wasmVerifier(t), signed, false)
	if bv.Network == nil || *bv.Network != want || bv.Checks.Blockchain.Details != v.Checks.Blockchain.Details || bv.Confidence != v.Confidence {
		t.Errorf("browser verdict network %+v blockchain %+v confidence %v; want the origin's %+v %+v %v",
			bv.Network, bv.Checks.Blockchain, bv.Confidence, want, v.Checks.Blockchain, v.Confidence)
	}

	r := ts.do("GET", "/api/v1/content-records/"+id+"/certificate", "", nil)
	ts.mustStatus(r, 200, "certificate")
	var cert wire.Certificate
	if err := json.Unmarshal(r.body, &cert); err != nil || cert.Network == nil || *cert.Network != want {
		t.Errorf("certificate network %+v (%v), want %+v", cert.Network, err, want)
	}
	r = ts.sendWith("GET", "/api/v1/content-records/"+id+"/certificate", map[string]string{"Accept": "text/html"})
	ts.mustStatus(r, 200, "certificate page")
	page := string(r.body)
	for _, w := range []string{"Anchoring network: provenant-dev, a " + wire.LocalChainDescription,
		"anchored on the service's local development chain, not a public timestamp"} {
		if !strings.Contains(page, w) {
			t.Errorf("certificate page lacks %q:\n%s", w, page)
		}
	}
	if strings.Contains(page, "block explorer") {
		t.Error("certificate page links a block explorer for the local chain")
	}

	r = ts.do("GET", "/api/v1/content-records/"+id, s.apiKey, nil)
	ts.mustStatus(r, 200, "record detail")
	var detail struct {
		Certificate wire.Certificate `json:"certificate"`
		Anchoring   struct {
			Network *wire.Network `json:"network"`
		} `json:"anchoring"`
	}
	if err := json.Unmarshal(r.body, &detail); err != nil || detail.Anchoring.Network == nil || *detail.Anchoring.Network != want ||
		detail.Certificate.Network == nil || *detail.Certificate.Network != want {
		t.Errorf("record detail networks %+v / %+v (%v), want %+v", detail.Anchoring.Network, detail.Certificate.Network, err, want)
	}

	r = ts.do("GET", "/api/v1/content-records/"+id+"/receipt", "", nil)
	ts.mustStatus(r, 200, "receipt")
	rc, err := receipt.Parse(r.body)
	if err != nil {
		t.Fatal(err)
	}
	res, err := rc.Verify()
	if err != nil || res.Network == nil || res.Network.Public || res.Network.Name != "provenant-dev" || res.Network.Description != wire.LocalChainDescription {
		t.Errorf("receipt network %+v (%v), want the local chain, not public", res.Network, err)
	}
}
