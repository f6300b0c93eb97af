package server

import (
	"context"
	"github.com/provenant/provenant/internal/connlimit/conntest"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// rawExchange writes req on a fresh connection and reads the answer; wait
// bounds the whole exchange (a safety net, far above what an early answer
// takes and below the timeouts that would otherwise answer).
func rawExchange(t *testing.T, base, req string, wait time.Duration) (*http.Response, error) {
	t.Helper()
	return conntest.Exchange(t, "", strings.TrimPrefix(base, "http://"), req, wait)
}

// TestHostileRequests: a declared Content-Length over a route's cap is
// answered 413 before any of the body is read (the server would otherwise
// wait for it); a header that never ends is answered 408 at the header
// timeout; legitimate requests are served meanwhile.
func TestHostileRequests(t *testing.T) {
	ts := startServer(t, "", nil, func(c *Config, _ *deps) { c.Conns.HeaderTimeout = 2 * time.Second })
	for _, tc := range []struct{ what, req string }{
		{"40 MB to a JSON route", "POST /api/v1/keys/api-keys HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 40000000\r\n\r\n"},
		{"10 GB to sign", "POST /api/v1/sign HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000000\r\n\r\n"},
		{"300 MB to verify", "POST /api/v1/verify?x=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 300000000\r\n\r\n"},
	} {
		resp, err := rawExchange(t, ts.base, tc.req, 1500*time.Millisecond)
		if err != nil || resp.StatusCode != 413 || !strings.Contains(resp.Header.Get("Content-Type"), "problem+json") {
			t.Errorf("%s with no body: %v %v, want 413 problem at once", tc.what, resp, err)
		}
	}
	resp, err := rawExchange(t, ts.base, "GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ", 6*time.Second)
	if err != nil || resp.StatusCode != 408 {
		t.Errorf("a header that never ends: %v %v, want 408 at the header timeout", resp, err)
	}
	if r := ts.do("GET", "/health", "", nil); r.status != 200 {
		t.Errorf("health: %d", r.status)
	}
	if st := ts.srv.ConnStats(); st.MaxConns != 10000 || st.MaxConnsPerIP != 256 {
		t.Errorf("default budget %+v", st)
	}
}

// TestAdminListenerGuard: the admin listener refuses a foreign Host (DNS
// rebinding), cross-site requests, and with a token configured every
// request without it; /backup never streams to a browser.
func TestAdminListenerGuard(t *testing.T) {
	ts := startServer(t, "", nil, func(c *Config, _ *deps) {
		c.AdminAddr, c.AdminHosts, c.AdminToken = "127.0.0.1:0", []string{"ops.internal"}, "op-token"
	})
	admin := "http://" + ts.srv.AdminAddr().String()
	get := func(path string, hdr map[string]string) int {
		t.Helper()
		req, _ := http.NewRequest("GET", admin+path, nil)
		for k, v := range hdr {
			if k == "Host" {
				req.Host = v
				continue
			}
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode
	}
	tok := "Bearer op-token"
	for _, tc := range []struct {
		what, path string
		hdr        map[string]string
		want       int
	}{
		{"metrics without the token", "/metrics", nil, 401},
		{"metrics with a wrong token", "/metrics", map[string]string{"Authorization": "Bearer nope"}, 401},
		{"metrics", "/metrics", map[string]string{"Authorization": tok}, 200},
		{"metrics under a configured name", "/metrics", map[string]string{"Authorization": tok, "Host": "ops.internal:9090"}, 200},
		{"metrics under a rebound name", "/metrics", map[string]string{"Authorization": tok, "Host": "attacker.example"}, 403},
		{"pprof from another site", "/debug/pprof/", map[string]string{"Authorization": tok, "Sec-Fetch-Site": "cross-site"}, 403},
		{"pprof with a foreign Origin", "/debug/pprof/", map[string]string{"Authorization": tok, "Origin": "http://attacker.example"}, 403},
		{"backup navigated to", "/backup", map[string]string{"Authorization": tok, "Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}, 403},
		{"backup fetched by a page of the listener", "/backup", map[string]string{"Authorization": tok, "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors", "Origin": admin}, 403},
		{"backup without the token", "/backup", nil, 401},
		{"backup", "/backup", map[string]string{"Authorization": tok}, 200},
	} {
		if got := get(tc.path, tc.hdr); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.what, got, tc.want)
		}
	}
}

// TestLogoutEndsSession: logging out, in the web app or through the API,
// ends the session on the server: the old cookie and its JWT are refused
// at once; a login in the same second works.
func TestLogoutEndsSession(t *testing.T) {
	ts := startServer(t, "", nil)
	w := newWebClient(t, ts.base)
	a := ts.register("logout@example.com", "correct horse battery")
	r := w.sameOriginPost("/login", "", url.Values{"email": {a.email}, "password": {a.password}})
	if r.status != 303 || r.cookie == nil {
		t.Fatalf("login = %d", r.status)
	}
	session := r.cookie.Value
	page := w.send("GET", "/keys", session, nil, nil)
	m := csrfMeta.FindStringSubmatch(page.body)
	if m == nil {
		t.Fatalf("no CSRF token on /keys (%d)", page.status)
	}
	if r := w.sameOriginPost("/logout", session, url.Values{"csrf_token": {m[1]}}); r.status != 303 {
		t.Fatalf("logout = %d", r.status)
	}
	if r := w.send("GET", "/api/v1/auth/me", session, nil, nil); r.status != 401 {
		t.Errorf("the logged-out cookie on the API = %d, want 401", r.status)
	}
	if r := ts.do("GET", "/api/v1/auth/me", session, nil); r.status != 401 {
		t.Errorf("the logged-out JWT as Bearer = %d, want 401", r.status)
	}
	if r := ts.do("GET", "/api/v1/auth/me", a.token, nil); r.status != 401 {
		t.Errorf("the account's other session after logout = %d, want 401", r.status)
	}

	// Through the API, then a login in the same second (the fake clock
	// does not move).
	r2 := ts.do("POST", "/api/v1/auth/login", "", map[string]string{"email": a.email, "password": a.password})
	ts.mustStatus(r2, 200, "login")
	tok := r2.json(t)["access_token"].(string)
	ts.mustStatus(ts.do("GET", "/api/v1/auth/me", tok, nil), 200, "me")
	ts.mustStatus(ts.do("POST", "/api/v1/auth/logout", tok, nil), 204, "API logout")
	ts.mustStatus(ts.do("GET", "/api/v1/auth/me", tok, nil), 401, "me after the API logout")
	r2 = ts.do("POST", "/api/v1/auth/login", "", map[string]string{"email": a.email, "password": a.password})
	ts.mustStatus(r2, 200, "login in the logout's second")
	ts.mustStatus(ts.do("GET", "/api/v1/auth/me", r2.json(t)["access_token"].(string), nil), 200, "me with the new session")
}

// TestPublicTextAndCertificate: text that reaches a public page refuses
// bidi controls (device_info, a key's revocation reason, a registered
// record's original_filename); a key's revocation reason may span lines;
// a record's revocation reason is on its certificate, which is never
// framed.
func TestPublicTextAndCertificate(t *testing.T) {
	ts := startServer(t, "", nil)
	s := ts.newSigner("text@example.com")
	r := ts.do("POST", "/api/v1/keys/signing-keys", s.token, map[string]string{
		"name": "Desk camera", "origin_type": "camera_image", "device_info": "model \u202Eexe.gpj"})
	if r.status != 400 || !strings.Contains(string(r.body), "device_info") {
		t.Errorf("device_info with U+202E: %d %s, want 400 naming the field", r.status, r.body)
	}
	k := ts.do("POST", "/api/v1/keys/signing-keys", s.token, map[string]string{"name": "Spare camera", "origin_type": "camera_image"})
	ts.mustStatus(k, 201, "create key")
	kid := k.json(t)["id"].(string)
	if r := ts.do("DELETE", "/api/v1/keys/signing-keys/"+kid, s.token, map[string]any{"reason": "lost \u2067at sea"}); r.status != 400 {
		t.Errorf("key revocation reason with U+2067: %d %s, want 400", r.status, r.body)
	}
	r = ts.do("DELETE", "/api/v1/keys/signing-keys/"+kid, s.token, map[string]any{"reason": "lost at sea\nreported to the insurer"})
	ts.mustStatus(r, 200, "key revocation with a two-line reason")

	sr := ts.signFile(s, photo(t, 91, 320, 240), nil)
	ts.mustStatus(sr, 201, "sign")
	id := sr.header.Get("X-Record-Id")
	ts.mustStatus(ts.do("DELETE", "/api/v1/content-records/"+id, s.apiKey, map[string]any{"reason": "published by mistake\nsee the correction"}), 200, "revoke record")
	if r := ts.do("DELETE", "/api/v1/content-records/"+id, s.apiKey, map[string]any{"reason": "x\u202Ey"}); r.status != 400 {
		t.Errorf("record revocation reason with U+202E: %d, want 400 (the field is checked first)", r.status)
	}
	c := ts.get("/api/v1/content-records/"+id+"/certificate", map[string]string{"Accept": "text/html"})
	if c.status != 200 || !strings.Contains(string(c.body), "published by mistake\nsee the correction") {
		t.Errorf("certificate of a revoked record lacks its reason: %d\n%s", c.status, c.body)
	}
	if csp := c.header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || c.header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("certificate page may be framed: CSP %q, X-Frame-Options %q", csp, c.header.Get("X-Frame-Options"))
	}
	j := ts.get("/api/v1/content-records/"+id+"/certificate", nil)
	if !strings.Contains(string(j.body), `"revoked_reason":"published by mistake\nsee the correction"`) {
		t.Errorf("certificate JSON lacks revoked_reason: %s", j.body)
	}
}

// TestShutdownBounded: a stalled client cannot hold a shutdown: once the
// deadline passes, the connections still open are closed.
func TestShutdownBounded(t *testing.T) {
	ts := startServer(t, "", nil, func(c *Config, _ *deps) { c.Conns.HeaderTimeout = time.Minute })
	c, err := net.Dial("tcp", strings.TrimPrefix(ts.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "GET /health HTTP/1.1\r\nHost: x\r\n"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ts.srv.ConnStats().Open != 1; {
		if time.Now().After(deadline) {
			t.Fatalf("the stalled connection is not open: %+v", ts.srv.ConnStats())
		}
		time.Sleep(10 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	ts.stopped = true
	_ = ts.srv.Shutdown(ctx)
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadAll(c); err != nil {
		t.Errorf("the stalled connection after the shutdown deadline: %v, want it closed by the server", err)
	}
	if st := ts.srv.ConnStats(); st.Open != 0 {
		t.Errorf("after shutdown: %+v", st)
	}
}
