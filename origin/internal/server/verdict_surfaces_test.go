package server

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/lookup"
	"github.com/provenant/provenant/shared/present"
	"github.com/provenant/provenant/shared/receipt"
	"github.com/provenant/provenant/shared/wire"
	"github.com/provenant/provenant/wasm/wasmtest"
)

// nativeVerify is what an edge compiled with the core does: the facts in
// Go, the origin's lookup answer, shared/lookup.Decide in Go.
func (ts *testServer) nativeVerify(file []byte) wire.VerifyResponse {
	t := ts.t
	t.Helper()
	f, err := facts.Analyze(file, limits.Default(), time.Now())
	if err != nil {
		t.Fatalf("analyze: %v", err)
	}
	w := f.Wire()
	wm := w.Watermark
	r := ts.do("POST", "/api/v1/verify/lookup", "", wire.LookupRequest{SHA256: w.SHA256, PerceptualHash: w.PerceptualHash,
		Watermark: &wm, Format: w.Format, Width: w.Width, Height: w.Height, C2PA: w.C2PA})
	ts.mustStatus(r, 200, "lookup")
	var resp wire.LookupResponse
	if err := json.Unmarshal(r.body, &resp); err != nil {
		t.Fatal(err)
	}
	res := lookup.Decide(f, resp, limits.Default())
	if len(res.Rejected) != 0 {
		t.Errorf("native decide rejected candidates of an honest origin: %+v", res.Rejected)
	}
	return res.Response
}

// everySurface verifies file at the origin (POST /verify), natively from
// the lookup answer, and in the WebAssembly module from the lookup
// answer; it fails the test unless the three answers and their
// presentations are equal, and returns the origin's answer.
func (ts *testServer) everySurface(m *wasmtest.Module, what string, file []byte) wire.VerifyResponse {
	t := ts.t
	t.Helper()
	want := ts.verifyWire(file)
	for name, got := range map[string]wire.VerifyResponse{"native": ts.nativeVerify(file), "module": func() wire.VerifyResponse {
		v, _ := ts.browserVerify(m, file, false)
		return v
	}()} {
		// A batch may move on between the calls (queued, then sent):
		// the words of a pending anchoring may differ, nothing else.
		if b, wb := got.Checks.Blockchain, want.Checks.Blockchain; !b.Passed && !wb.Passed &&
			strings.HasPrefix(b.Details, "pending") && strings.HasPrefix(wb.Details, "pending") {
			got.Checks.Blockchain.Details = wb.Details
		}
		if !reflect.DeepEqual(got, want) {
			gj, _ := json.MarshalIndent(got, "", " ")
			wj, _ := json.MarshalIndent(want, "", " ")
			t.Errorf("%s: %s verdict\n%s\norigin verdict\n%s", what, name, gj, wj)
		}
	}
	p := present.Present(want, present.Options{})
	for _, v := range present.WordingViolations(want, p) {
		t.Errorf("%s: wording: %s", what, v)
	}
	return want
}

// TestKeyRevocationEverySurface: a record whose signing key was revoked
// with compromised_since before its anchoring is not authentic at the
// origin, from the lookup answer natively and in the module alike (the
// key's state travels in the lookup candidate and shared/lookup decides);
// one anchored before compromised_since stays authentic everywhere, with
// the rule that applied in key_revocation.
func TestKeyRevocationEverySurface(t *testing.T) {
	ts := anchoredServer(t)
	m := wasmVerifier(t)
	s := ts.newSignerOrg("keyrev@surfaces.example", "Surface News")

	before, after := ts.anchoredAround(s, 91)

	// Before the revocation every surface says authentic.
	if v := ts.everySurface(m, "after, key active", after.file); !v.Authentic || v.KeyRevocation != nil {
		t.Fatalf("before the revocation: authentic %v key_revocation %+v", v.Authentic, v.KeyRevocation)
	}

	s.token = ts.freshToken(s.account)
	cutoff := t0.Add(30 * time.Minute)
	ts.mustStatus(ts.do("DELETE", "/api/v1/keys/signing-keys/"+s.keyID, s.token, map[string]any{
		"reason": "laptop stolen", "compromised_since": cutoff.Format(time.RFC3339)}), 200, "revoke")

	v := ts.everySurface(m, "anchored before compromised_since", before.file)
	if !v.Authentic || v.RecordID != before.id || v.KeyRevocation == nil || v.KeyRevocation.Rule != wire.KeyRuleCompromised ||
		v.KeyRevocation.Decision != wire.KeyDecisionValid {
		t.Errorf("record anchored before the compromise: authentic %v record %s key_revocation %+v", v.Authentic, v.RecordID, v.KeyRevocation)
	}
	v = ts.everySurface(m, "anchored after compromised_since", after.file)
	if v.Authentic || v.Resembles == nil || v.Resembles.Relation != wire.RelationRevoked || v.KeyRevocation == nil ||
		v.KeyRevocation.Decision != wire.KeyDecisionNotAuthentic || v.KeyRevocation.Rule != wire.KeyRuleCompromised {
		t.Errorf("record anchored after the compromise: authentic %v resembles %+v key_revocation %+v", v.Authentic, v.Resembles, v.KeyRevocation)
	}
	if p := present.Present(v, present.Options{}); p.Tone != present.ToneNotAuthentic || !strings.Contains(p.Headline, "signing key revoked") {
		t.Errorf("presentation of the record anchored after the compromise: %q (%s)", p.Headline, p.Tone)
	}
	// The organisation's badge counts only the record that stays valid.
	ob := ts.do("GET", "/api/v1/widget/org-badge/Surface%20News.svg", "", nil)
	ts.mustStatus(ob, 200, "org badge")
	if !strings.Contains(string(ob.body), "1 signed · 1 anchored") {
		t.Errorf("org badge after the key's compromise: %s, want 1 signed · 1 anchored", ob.body)
	}
	// The lookup answer carries the key's state, not a decision.
	lr := ts.do("POST", "/api/v1/verify/lookup", "", map[string]any{"sha256": sha256Hex(after.file), "perceptual_hash": strings.Repeat("0", 80)})
	ts.mustStatus(lr, 200, "lookup")
	var lresp wire.LookupResponse
	if err := json.Unmarshal(lr.body, &lresp); err != nil || len(lresp.Candidates) == 0 {
		t.Fatalf("lookup: %s (%v)", lr.body, err)
	}
	if k := lresp.Candidates[0].SigningKey; k == nil || k.Custody != wire.CustodyService || k.RevokedAt == "" || k.CompromisedSince == "" ||
		lresp.Candidates[0].Status != wire.RecordActive {
		t.Errorf("lookup candidate: status %s signing_key %+v, want the record active and the key's revocation as data", lresp.Candidates[0].Status, k)
	}
	// The badge does not vouch for it either, and still does for the
	// record anchored before the compromise.
	for id, want := range map[string]string{after.id: "revoked", before.id: "record anchored"} {
		b := ts.do("GET", "/api/v1/widget/badge/"+id+".svg", "", nil)
		ts.mustStatus(b, 200, "badge")
		if !strings.Contains(strings.ToLower(string(b.body)), want) {
			t.Errorf("badge of %s does not say %s: %s", id, want, b.body)
		}
	}
}

// TestKeyRetirementKeepsSignedRecords: retiring a service-held key without
// compromised_since right after signing loses nothing: the record is
// authentic while pending and once anchored, on every surface, and the
// verify answer, the certificate and the receipt name the rule
// (retired_service_time). A record its holder signed on a device and
// registered before the retirement counts once the chain holds it: not
// authentic while pending, authentic once anchored (retired_anchor_time).
func TestKeyRetirementKeepsSignedRecords(t *testing.T) {
	// Batches of two: a record stays pending until a second one is
	// signed, so "right after retirement" is not racing the anchoring.
	ts := startServer(t, "", nil, batchesOf(2))
	m := wasmVerifier(t)
	s := ts.newSignerOrg("retire@surfaces.example", "Retire News")
	other := ts.newSignerOrg("retire-other@surfaces.example", "Other News")
	r := ts.signFile(s, photo(t, 93, 384, 288), nil)
	ts.mustStatus(r, 201, "sign")
	id, file := r.header.Get("X-Record-Id"), r.body
	ts.clock.Advance(time.Second)
	ts.mustStatus(ts.do("DELETE", "/api/v1/keys/signing-keys/"+s.keyID, s.token, nil), 200, "retire")

	check := func(when string) {
		v := ts.everySurface(m, when, file)
		if !v.Authentic || v.RecordID != id || v.KeyRevocation == nil || v.KeyRevocation.Rule != wire.KeyRuleRetiredServiceTime ||
			v.KeyRevocation.Decision != wire.KeyDecisionValid {
			t.Errorf("%s: authentic %v record %s key_revocation %+v, want authentic by the service's time of signing", when, v.Authentic, v.RecordID, v.KeyRevocation)
		}
	}
	check("right after retirement")
	ts.mustStatus(ts.signFile(other, photo(t, 95, 384, 288), nil), 201, "sign to close the batch")
	ts.waitAnchored(s, id)
	check("once anchored")

	cert := ts.do("GET", "/api/v1/content-records/"+id+"/certificate", "", nil).json(t)
	if kr, _ := cert["signing_key_revocation"].(map[string]any); kr["decision"] != "valid" || kr["rule"] != wire.KeyRuleRetiredServiceTime {
		t.Errorf("certificate: signing_key_revocation %v, want valid by retired_service_time", kr)
	}
	rr := ts.do("GET", "/api/v1/content-records/"+id+"/receipt", "", nil)
	ts.mustStatus(rr, 200, "receipt")
	rc, err := receipt.Parse(rr.body)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := rc.Verify(); err != nil || res.KeyRevocation == nil || res.KeyRevocation.Rule != wire.KeyRuleRetiredServiceTime {
		t.Errorf("receipt: Verify = %v, key_revocation %+v, want valid by retired_service_time", err, res.KeyRevocation)
	}

	// A device key: the service only received what it signed.
	dev := ts.startDeviceSigner("device-retire@surfaces.example")
	ts.clock.Advance(time.Minute)
	signed, req := deviceSign(t, ts.clock.Now(), dev.priv, dev.org, "camera_image", photo(t, 94, 384, 288), 0x2233_4455_6677_8899)
	req["signing_key_id"] = dev.keyID
	ts.mustStatus(ts.do("POST", "/api/v1/register", dev.apiKey, req), 201, "register")
	ts.clock.Advance(time.Second)
	ts.mustStatus(ts.do("DELETE", "/api/v1/keys/signing-keys/"+dev.keyID, dev.token, nil), 200, "retire device key")
	// While its batch is pending, the record received before the
	// retirement is not yet authentic: only the chain dates what a
	// device signed.
	v := ts.everySurface(m, "device record retired while pending", signed)
	if v.Authentic || v.KeyRevocation == nil || v.KeyRevocation.Rule != wire.KeyRuleRetiredAnchorTime || v.KeyRevocation.Decision != wire.KeyDecisionNotAuthentic ||
		!strings.Contains(v.KeyRevocation.Detail, "until its batch is anchored") {
		t.Errorf("device record pending after its key's retirement: authentic %v, key_revocation %+v, want not authentic until anchored", v.Authentic, v.KeyRevocation)
	}
	if v.KeyRevocation == nil || !v.KeyRevocation.AwaitingAnchor {
		t.Errorf("device record pending after its key's retirement: key_revocation %+v, want awaiting_anchor", v.KeyRevocation)
	}
	if b := ts.do("GET", "/api/v1/widget/badge/"+req["record_id"].(string)+".svg", "", nil); !strings.Contains(string(b.body), "pending") {
		t.Errorf("badge of a device record waiting for its anchoring: %s, want pending", b.body)
	}
	ts.clock.Advance(time.Minute)
	ts.mustStatus(ts.signFile(other, photo(t, 96, 384, 288), nil), 201, "sign to close the batch")
	ts.waitAnchored(signer{apiKey: dev.apiKey}, req["record_id"].(string))
	v = ts.everySurface(m, "device record anchored after the retirement", signed)
	if !v.Authentic || v.KeyRevocation == nil || v.KeyRevocation.Rule != wire.KeyRuleRetiredAnchorTime || v.KeyRevocation.Decision != wire.KeyDecisionValid {
		t.Errorf("device record received before its key's retirement, anchored after: authentic %v, key_revocation %+v, want authentic", v.Authentic, v.KeyRevocation)
	}
	// Nothing registers under the retired key.
	_, late := deviceSign(t, ts.clock.Now(), dev.priv, dev.org, "camera_image", photo(t, 97, 384, 288), 0x3344_5566_7788_99aa)
	late["signing_key_id"] = dev.keyID
	if r := ts.do("POST", "/api/v1/register", dev.apiKey, late); r.status != 409 {
		t.Errorf("register under a retired key: %d %s, want 409", r.status, r.body)
	}
}

type deviceSigner struct {
	org, keyID, apiKey, token string
	priv                      ed25519.PrivateKey
}

// startDeviceSigner registers an account with a device key (the private
// half only here) and an API key.
func (ts *testServer) startDeviceSigner(email string) deviceSigner {
	t := ts.t
	t.Helper()
	a := ts.register(email, "correct horse battery staple")
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	r := ts.do("POST", "/api/v1/keys/signing-keys", a.token, map[string]any{"name": "Field camera", "origin_type": "camera_image", "public_key_hex": hex.EncodeToString(pub)})
	ts.mustStatus(r, 201, "create device key")
	apiKey, _ := ts.createAPIKey(a.token, map[string]any{"name": "device sdk"})
	me := ts.do("GET", "/api/v1/auth/me", a.token, nil).json(t)
	org, _ := me["org_name"].(string)
	return deviceSigner{org: org, keyID: r.json(t)["id"].(string), apiKey: apiKey, token: a.token, priv: priv}
}
