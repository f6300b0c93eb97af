package server

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/receipt"
	"github.com/provenant/provenant/shared/record"
)

// TestSigningKeyRevocation: revoking a key with compromised_since keeps
// the records anchored before that time authentic and makes the ones
// anchored after it not authentic, with the reason in the checks, the
// certificate and the receipt; the revoked key signs and registers nothing.
func TestSigningKeyRevocation(t *testing.T) {
	ts := anchoredServer(t)
	s := ts.newSignerOrg("revoke@example.com", "Revoke News")

	// Record "before": signed and anchored at t0; "after" an hour later.
	before, after := ts.anchoredAround(s, 81)
	s.token = ts.freshToken(s.account)
	for _, tc := range []struct {
		name string
		body map[string]any
		code int
	}{
		{"compromised in the future", map[string]any{"compromised_since": ts.clock.Now().Add(time.Hour).Format(time.RFC3339)}, 400},
		{"not a time", map[string]any{"compromised_since": "last tuesday"}, 400},
		{"unknown member", map[string]any{"when": "now"}, 400},
	} {
		if r := ts.do("DELETE", "/api/v1/keys/signing-keys/"+s.keyID, s.token, tc.body); r.status != tc.code {
			t.Errorf("%s: %d %s, want %d", tc.name, r.status, r.body, tc.code)
		}
	}
	other := ts.register("other-revoke@example.com", "correct horse battery staple")
	if r := ts.do("DELETE", "/api/v1/keys/signing-keys/"+s.keyID, other.token, nil); r.status != 404 {
		t.Errorf("another account revoking the key: %d, want 404", r.status)
	}
	if r := ts.do("DELETE", "/api/v1/keys/signing-keys/"+s.keyID, s.apiKey, nil); r.status != 401 {
		t.Errorf("revoking with an API key: %d, want 401 (JWT only)", r.status)
	}

	cutoff := t0.Add(30 * time.Minute)
	r := ts.do("DELETE", "/api/v1/keys/signing-keys/"+s.keyID, s.token, map[string]any{
		"reason": "camera stolen", "compromised_since": cutoff.Format(time.RFC3339)})
	ts.mustStatus(r, 200, "revoke")
	k := r.json(t)
	if k["revoked_at"] == nil || k["compromised_since"] == nil || k["revocation_reason"] != "camera stolen" {
		t.Errorf("revoked key = %v", k)
	}
	if r := ts.do("DELETE", "/api/v1/keys/signing-keys/"+s.keyID, s.token, nil); r.status != 409 || r.problemCode(t) != "signing_key_already_revoked" {
		t.Errorf("second revocation: %d %s", r.status, r.body)
	}

	v := ts.verifyHonest(before.file)
	if !v.Authentic || v.RecordID != before.id {
		t.Errorf("record anchored before the compromise: authentic %v record %q, want authentic:\n%s", v.Authentic, v.RecordID, v.raw)
	}
	v = ts.verifyHonest(after.file)
	if v.Authentic {
		t.Errorf("record anchored after the compromise verifies authentic:\n%s", v.raw)
	}
	if !strings.Contains(v.raw, "compromised since "+cutoff.Format(record.TimeFormat)) || !strings.Contains(v.raw, "after that, so it is not authentic") {
		t.Errorf("verify of the record anchored after the compromise does not say why:\n%s", v.raw)
	}

	cert := ts.do("GET", "/api/v1/content-records/"+before.id+"/certificate", "", nil).json(t)
	if kr, _ := cert["signing_key_revocation"].(map[string]any); kr["decision"] != "valid" || kr["reason"] != "camera stolen" {
		t.Errorf("certificate of the earlier record: signing_key_revocation %v, want decision valid", kr)
	}
	cert = ts.do("GET", "/api/v1/content-records/"+after.id+"/certificate", "", nil).json(t)
	if kr, _ := cert["signing_key_revocation"].(map[string]any); kr["decision"] != "not_authentic" {
		t.Errorf("certificate of the later record: signing_key_revocation %v, want decision not_authentic", kr)
	}

	// The badges follow the same decision: the later record's badge says
	// its key is revoked, and the organisation's counts leave it out.
	for id, want := range map[string]string{before.id: "Provenant: record anchored", after.id: "Provenant: signing key revoked — "} {
		if got := badgeText(t, ts.sendWith("GET", "/api/v1/widget/badge/"+id+".svg", nil)); !strings.HasPrefix(got, want) {
			t.Errorf("badge of %s: %q, want %q", id, got, want)
		}
	}
	if got := badgeText(t, ts.sendWith("GET", "/api/v1/widget/org-badge/"+url.PathEscape("Revoke News")+".svg", nil)); got != "unverified: Revoke News: 1 signed · 1 anchored" {
		t.Errorf("org badge %q, want 1 signed · 1 anchored (the record the key's revocation makes not authentic left out)", got)
	}

	req, _ := http.NewRequest("GET", ts.base+"/api/v1/content-records/"+after.id+"/certificate", nil)
	req.Header.Set("Accept", "text/html")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), "Not authentic: the signing key was revoked at") || !strings.Contains(string(page), "Reason given: camera stolen.") {
		t.Errorf("certificate page of the later record does not say it is not authentic:\n%s", page)
	}

	for id, want := range map[string]error{before.id: nil, after.id: receipt.ErrKeyRevoked} {
		r := ts.do("GET", "/api/v1/content-records/"+id+"/receipt", "", nil)
		ts.mustStatus(r, 200, "receipt")
		rc, err := receipt.Parse(r.body)
		if err != nil {
			t.Fatal(err)
		}
		res, err := rc.Verify()
		if !errors.Is(err, want) || (want == nil) != (err == nil) || res.KeyRevocation == nil {
			t.Errorf("receipt of %s: Verify = %v (revocation %+v), want %v", id, err, res.KeyRevocation, want)
		}
	}

	r = ts.upload("/api/v1/sign?signing_key_id="+s.keyID, s.apiKey, []namedFile{{"file", "p.jpg", photo(t, 83, 384, 288)}}, nil)
	if r.status != 409 || r.problemCode(t) != "signing_key_revoked" {
		t.Errorf("sign with a revoked key: %d %s, want 409 signing_key_revoked", r.status, r.body)
	}
	r = ts.upload("/api/v1/sign-batch?signing_key_id="+s.keyID, s.apiKey, []namedFile{{"files", "p.jpg", photo(t, 84, 384, 288)}}, nil)
	if r.status != 409 || r.problemCode(t) != "signing_key_revoked" {
		t.Errorf("sign-batch with a revoked key: %d %s, want 409 signing_key_revoked", r.status, r.body)
	}
	r = ts.do("POST", "/api/v1/register", s.apiKey, map[string]any{"record_id": "7b7c2f36-0d6f-4b8e-9d55-8f1b9a0e5c11",
		"sha256": strings.Repeat("ab", 32), "perceptual_hash": strings.Repeat("cd", 40), "signature_hex": strings.Repeat("00", 64),
		"signing_key_id": s.keyID, "timestamp": t0.Format(time.RFC3339)})
	if r.status != 409 || r.problemCode(t) != "signing_key_revoked" {
		t.Errorf("register with a revoked key: %d %s, want 409 signing_key_revoked", r.status, r.body)
	}
}

// TestSigningKeyRevocationNow: without compromised_since the cutoff is
// the revocation itself: what was anchored before stays authentic.
func TestSigningKeyRevocationNow(t *testing.T) {
	ts := anchoredServer(t)
	s := ts.newSignerOrg("revoke-now@example.com", "Now News")
	_, file := ts.signAnchored(s, photo(t, 85, 384, 288), "sign")
	ts.clock.Advance(time.Minute)
	s.token = ts.freshToken(s.account)
	ts.mustStatus(ts.do("DELETE", "/api/v1/keys/signing-keys/"+s.keyID, s.token, nil), 200, "revoke without a body")
	if v := ts.verifyHonest(file); !v.Authentic {
		t.Errorf("record anchored before the revocation: not authentic:\n%s", v.raw)
	}
	keysList := ts.do("GET", "/api/v1/keys/signing-keys", s.token, nil).json(t)
	if k := keysList["items"].([]any)[0].(map[string]any); k["revoked_at"] == nil || k["compromised_since"] != nil {
		t.Errorf("listed key after revocation: %v", k)
	}
}

// freshToken logs a in again (its token may have expired on the test
// clock).
func (ts *testServer) freshToken(a account) string {
	ts.t.Helper()
	r := ts.do("POST", "/api/v1/auth/login", "", map[string]string{"email": a.email, "password": a.password})
	ts.mustStatus(r, 200, "login")
	tok, _ := r.json(ts.t)["access_token"].(string)
	return tok
}
