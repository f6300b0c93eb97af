package server

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/provenant/provenant/origin/internal/domains/domainstest"
	"github.com/provenant/provenant/origin/internal/webhooks"
	"github.com/provenant/provenant/shared/wire"
)

// testDNS resolves every .test host to loopback and answers TXT lookups
// from a table: no DNS exists in tests.
func testDNS() *domainstest.DNS {
	d := domainstest.New()
	d.ResolveUnder(".test", netip.MustParseAddr("127.0.0.1"))
	return d
}

// wellKnown serves each test domain's proof file from a table.
type wellKnown struct {
	mu    sync.Mutex
	files map[string]string
}

func (w *wellKnown) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	host, _, _ := net.SplitHostPort(r.Host)
	w.mu.Lock()
	body, ok := w.files[host]
	w.mu.Unlock()
	if r.URL.Path != "/.well-known/provenant-verification.txt" || !ok {
		http.NotFound(rw, r)
		return
	}
	_, _ = fmt.Fprintln(rw, body)
}

// fingerprint is the documented key fingerprint: the first 16 hex digits
// of SHA-256 over the raw public key.
func fingerprint(t *testing.T, pubHex string) string {
	t.Helper()
	raw, err := hex.DecodeString(pubHex)
	if err != nil {
		t.Fatal(err)
	}
	return sha256Hex(raw)[:16]
}

// TestWhoASignerIs reproduces finding 3 of "Honest verdicts" (anyone can
// be anyone) over HTTP and asserts the rules of docs/verification.md, "Who
// a signer is": names that forge or disguise are refused, organisations
// are shown unverified with the key fingerprint (and flagged when the name
// is shared) on verify, certificates (JSON and HTML), public search and
// the owner's records, origin types are labelled declared, and a domain
// proven through the webhooks' SSRF-guarded client (loopback allow-list)
// is shown once verified and can be held by one account only.
func TestWhoASignerIs(t *testing.T) {
	dns := testDNS()
	files := &wellKnown{files: map[string]string{}}
	proof := httptest.NewServer(files)
	t.Cleanup(proof.Close)
	port := uint16(proof.Listener.Addr().(*net.TCPAddr).Port)
	ts := startServer(t, "", nil, func(c *Config, _ *deps) {
		c.Webhooks.Guard = webhooks.NewGuard(webhooks.GuardConfig{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Resolver: dns})
		c.Domains = DomainsConfig{TXT: dns, PlainHTTPPort: port}
	})

	// Names that forge or disguise an organisation are refused, each with
	// the field and the rule.
	for _, tc := range []struct {
		name, org string
		status    int
		reason    string
	}{
		{"cyrillic look-alike", "R\u0435uters", 422, "must not mix writing systems"},
		{"right-to-left override", "Reuters\u202Esretuer", 422, "bidirectional formatting"},
		{"newline", "Reuters\nVerified by Provenant", 400, "control characters or line breaks"},
		{"zero width space", "Reu\u200Bters", 422, "invisible formatting"},
		{"check mark", "Reuters ✔", 422, "check marks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ts.do("POST", "/api/v1/auth/register", "", map[string]string{
				"email": strings.ReplaceAll(tc.name, " ", "-") + "@example.com", "password": "correct horse battery staple",
				"org_name": tc.org, "org_type": "news_org",
			})
			if code := r.problemCode(t); r.status != tc.status || code != "validation_failed" {
				t.Fatalf("register %q: status %d code %q, want %d validation_failed: %s", tc.org, r.status, code, tc.status, r.body)
			}
			var p struct {
				Errors []struct{ Field, Detail string }
			}
			_ = json.Unmarshal(r.body, &p)
			if len(p.Errors) != 1 || p.Errors[0].Field != "org_name" || !strings.Contains(p.Errors[0].Detail, tc.reason) {
				t.Errorf("register %q errors = %+v, want org_name: ...%s...", tc.org, p.Errors, tc.reason)
			}
		})
	}

	// Two accounts may both call themselves Reuters; neither is verified.
	real := ts.newSignerOrg("desk@reuters.test", "Reuters")
	impostor := ts.newSignerOrg("mallory@example.com", "REUTERS")

	// A key name claiming verification with a check mark is refused; the
	// words alone are allowed (the display says who verified what).
	r := ts.do("POST", "/api/v1/keys/signing-keys", impostor.token, map[string]string{"name": "staff camera ✔ verified", "origin_type": "camera_image"})
	if code := r.problemCode(t); r.status != 422 || code != "validation_failed" || !strings.Contains(string(r.body), `"field":"name"`) {
		t.Errorf("key name with ✔: status %d code %q body %s, want 422 naming field name", r.status, code, r.body)
	}
	r = ts.do("POST", "/api/v1/keys/signing-keys", impostor.token, map[string]string{"name": "staff camera", "origin_type": "camera_image", "device_id": "cam\u202E7"})
	if r.status != 422 || !strings.Contains(string(r.body), `"field":"device_id"`) {
		t.Errorf("device_id with U+202E: status %d body %s, want 422 naming device_id", r.status, r.body)
	}

	signed := func(s signer, seed uint64) ([]byte, string) {
		r := ts.signFile(s, photo(t, seed, 384, 288), nil)
		ts.mustStatus(r, 201, "sign")
		return r.body, r.header.Get("X-Record-Id")
	}
	realFile, realID := signed(real, 31)
	_, fakeID := signed(impostor, 32)
	realFP, fakeFP := fingerprint(t, real.pubHex), fingerprint(t, impostor.pubHex)

	verifySigner := func(file []byte) (*wire.Signer, *wire.Origin) {
		t.Helper()
		r := ts.upload("/api/v1/verify", "", []namedFile{{"file", "x.jpg", file}}, nil)
		ts.mustStatus(r, 200, "verify")
		var v wire.VerifyResponse
		if err := json.Unmarshal(r.body, &v); err != nil {
			t.Fatal(err)
		}
		if v.Signer == nil || v.Origin == nil {
			t.Fatalf("verify of a signed file has no signer or origin: %s", r.body)
		}
		return v.Signer, v.Origin
	}
	wantUnverified := "unverified organisation: Reuters (key " + realFP + "; another organisation uses this name)"
	sg, origin := verifySigner(realFile)
	if sg.Display != wantUnverified || sg.OrgVerified || sg.VerifiedDomain != "" || sg.KeyFingerprint != realFP || !sg.NameShared {
		t.Errorf("verify signer = %+v, want display %q, unverified, fingerprint %s, name shared", sg, wantUnverified, realFP)
	}
	if !origin.Declared {
		t.Errorf("verify origin = %+v, want declared", origin)
	}

	certSigner := func(id string) wire.Signer {
		t.Helper()
		r := ts.do("GET", "/api/v1/content-records/"+id+"/certificate", "", nil)
		ts.mustStatus(r, 200, "certificate")
		var c struct {
			OrgName        string      `json:"org_name"`
			Signer         wire.Signer `json:"signer"`
			OriginDeclared bool        `json:"origin_declared"`
		}
		if err := json.Unmarshal(r.body, &c); err != nil {
			t.Fatal(err)
		}
		if !c.OriginDeclared {
			t.Errorf("certificate %s: origin_declared false", id)
		}
		return c.Signer
	}
	if got := certSigner(realID).Display; got != wantUnverified {
		t.Errorf("certificate display = %q, want %q", got, wantUnverified)
	}
	if got, want := certSigner(fakeID).Display, "unverified organisation: REUTERS (key "+fakeFP+"; another organisation uses this name)"; got != want {
		t.Errorf("impostor certificate display = %q, want %q", got, want)
	}
	html, err := newRequest("GET", ts.base+"/api/v1/content-records/"+realID+"/certificate", "text/html")
	if err != nil || !strings.Contains(string(html.body), "unverified organisation: Reuters (key "+realFP) {
		t.Errorf("certificate HTML lacks the unverified display: %v %s", err, html.body)
	}

	searchSigners := func() map[string]wire.Signer {
		t.Helper()
		r := ts.do("GET", "/api/v1/content-records/public/search?org_name=reuters", "", nil)
		ts.mustStatus(r, 200, "public search")
		var page struct {
			Items []struct {
				ID     string      `json:"id"`
				Signer wire.Signer `json:"signer"`
			} `json:"items"`
		}
		if err := json.Unmarshal(r.body, &page); err != nil {
			t.Fatal(err)
		}
		out := map[string]wire.Signer{}
		for _, it := range page.Items {
			out[it.ID] = it.Signer
		}
		return out
	}
	found := searchSigners()
	if len(found) != 2 || found[realID].Display != wantUnverified || found[fakeID].KeyFingerprint != fakeFP || found[fakeID].OrgVerified {
		t.Errorf("public search signers = %+v, want both Reuters records shown unverified with their fingerprints", found)
	}

	// Domain verification: claim, fail without proof, prove by the
	// /.well-known file on the loopback server, then everything shows it.
	r = ts.do("POST", "/api/v1/domains", real.token, map[string]string{"domain": "https://reuters.test/"})
	if code := r.problemCode(t); r.status != 422 || code != "invalid_domain" {
		t.Errorf("claim of a URL: status %d code %q, want 422 invalid_domain", r.status, code)
	}
	r = ts.do("POST", "/api/v1/domains", real.token, map[string]string{"domain": "Reuters.test"})
	ts.mustStatus(r, 201, "claim domain")
	var claim struct {
		Domain, Status, Token string
		Proofs                struct {
			HTTPS  struct{ URL, Content string }
			DNSTXT struct{ Name, Value string } `json:"dns_txt"`
		}
	}
	_ = json.Unmarshal(r.body, &claim)
	if claim.Domain != "reuters.test" || claim.Status != "pending" || claim.Token == "" ||
		claim.Proofs.HTTPS.URL != "https://reuters.test/.well-known/provenant-verification.txt" || claim.Proofs.HTTPS.Content != claim.Token ||
		claim.Proofs.DNSTXT.Name != "_provenant.reuters.test" || claim.Proofs.DNSTXT.Value != claim.Token {
		t.Fatalf("claim = %s, want a pending claim with the token and both proofs", r.body)
	}
	r = ts.do("POST", "/api/v1/domains/reuters.test/check", real.token, nil)
	if code := r.problemCode(t); r.status != 422 || code != "domain_unverified" {
		t.Errorf("check without proof: status %d code %q, want 422 domain_unverified", r.status, code)
	}
	r = ts.do("POST", "/api/v1/domains", impostor.token, map[string]string{"domain": "reuters.test"})
	ts.mustStatus(r, 201, "impostor's pending claim")
	impostorToken, _ := r.json(t)["token"].(string)
	files.mu.Lock()
	files.files["reuters.test"] = claim.Token
	files.mu.Unlock()
	r = ts.do("POST", "/api/v1/domains/reuters.test/check", real.token, nil)
	ts.mustStatus(r, 200, "check with the proof file served")
	if !strings.Contains(string(r.body), `"status":"verified"`) || !strings.Contains(string(r.body), `"method":"https"`) {
		t.Errorf("check = %s, want verified by https", r.body)
	}

	wantVerified := "Reuters (verified domain reuters.test, key " + realFP + ")"
	sg, _ = verifySigner(realFile)
	if sg.Display != wantVerified || !sg.OrgVerified || sg.VerifiedDomain != "reuters.test" {
		t.Errorf("verify signer after verification = %+v, want %q", sg, wantVerified)
	}
	if got := certSigner(realID); got.Display != wantVerified || got.VerifiedDomain != "reuters.test" {
		t.Errorf("certificate signer after verification = %+v, want %q", got, wantVerified)
	}
	html, _ = newRequest("GET", ts.base+"/api/v1/content-records/"+realID+"/certificate", "text/html")
	if !strings.Contains(string(html.body), "<dt>Verified domain</dt><dd>reuters.test</dd>") {
		t.Errorf("certificate HTML lacks the verified domain: %s", html.body)
	}
	found = searchSigners()
	if found[realID].VerifiedDomain != "reuters.test" || found[fakeID].OrgVerified || found[fakeID].VerifiedDomain != "" {
		t.Errorf("public search after verification = %+v, want only the real record verified", found)
	}
	r = ts.do("GET", "/api/v1/content-records", real.apiKey, nil)
	ts.mustStatus(r, 200, "list records")
	if !strings.Contains(string(r.body), `"verified_domain":"reuters.test"`) {
		t.Errorf("owner's records lack the verified domain: %s", r.body)
	}
	// The organisation badge counts every record under the name; two
	// accounts use "Reuters", so it stays unverified even now.
	r = ts.sendWith("GET", "/api/v1/widget/org-badge/Reuters.svg", nil)
	ts.mustStatus(r, 200, "org badge")
	// The name is spelled as the newest record spells it ("Reuters" or
	// "REUTERS").
	if got := badgeText(t, r); !strings.HasPrefix(strings.ToLower(got), "unverified: reuters: ") {
		t.Errorf("org badge of a shared name %q, want it labelled unverified", got)
	}

	// The impostor cannot take the domain: not by checking its pending
	// claim (even with its token served too), not by claiming again.
	files.mu.Lock()
	files.files["reuters.test"] = claim.Token + "\n" + impostorToken
	files.mu.Unlock()
	r = ts.do("POST", "/api/v1/domains/reuters.test/check", impostor.token, nil)
	if code := r.problemCode(t); r.status != 409 || code != "domain_taken" {
		t.Errorf("impostor check with its token served: status %d code %q, want 409 domain_taken", r.status, code)
	}
	r = ts.do("POST", "/api/v1/domains", impostor.token, map[string]string{"domain": "other.test"})
	ts.mustStatus(r, 201, "impostor claims another domain")
	r = ts.do("DELETE", "/api/v1/domains/reuters.test", impostor.token, nil)
	ts.mustStatus(r, 204, "impostor drops its pending claim")
	r = ts.do("POST", "/api/v1/domains", impostor.token, map[string]string{"domain": "reuters.test"})
	if code := r.problemCode(t); r.status != 409 || code != "domain_taken" {
		t.Errorf("second account claims a verified domain: status %d code %q, want 409 domain_taken", r.status, code)
	}
	r = ts.do("GET", "/api/v1/domains", real.token, nil)
	ts.mustStatus(r, 200, "list domains")
	if !strings.Contains(string(r.body), `"domain":"reuters.test"`) {
		t.Errorf("list = %s, want the verified claim", r.body)
	}
}

// TestDomainTakenOnCheck: when two accounts hold pending claims and both
// prove the domain, the second check answers 409 domain_taken.
func TestDomainTakenOnCheck(t *testing.T) {
	dns := testDNS()
	ts := startServer(t, "", nil, func(c *Config, _ *deps) {
		c.Webhooks.Guard = webhooks.NewGuard(webhooks.GuardConfig{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Resolver: dns})
		c.Domains = DomainsConfig{TXT: dns}
	})
	a := ts.register("a@example.com", "correct horse battery staple")
	b := ts.register("b@example.com", "correct horse battery staple")
	var tokens []string
	for _, acc := range []account{a, b} {
		r := ts.do("POST", "/api/v1/domains", acc.token, map[string]string{"domain": "shared.test"})
		ts.mustStatus(r, 201, "claim")
		tokens = append(tokens, r.json(t)["token"].(string))
	}
	dns.SetTXT("_provenant.shared.test", tokens...)
	r := ts.do("POST", "/api/v1/domains/shared.test/check", a.token, nil)
	ts.mustStatus(r, 200, "first check (DNS TXT)")
	if !strings.Contains(string(r.body), `"method":"dns_txt"`) {
		t.Errorf("first check = %s, want verified by dns_txt", r.body)
	}
	r = ts.do("POST", "/api/v1/domains/shared.test/check", b.token, nil)
	if code := r.problemCode(t); r.status != 409 || code != "domain_taken" {
		t.Errorf("second check: status %d code %q, want 409 domain_taken", r.status, code)
	}
}
