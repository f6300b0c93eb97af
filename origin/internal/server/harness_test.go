package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/origin/internal/accounts/accountstest"
	"github.com/provenant/provenant/origin/internal/httpapi"
	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/origin/internal/logbuf"
	"github.com/provenant/provenant/origin/internal/webhooks"
	"github.com/provenant/provenant/shared/clock"
)

// cheapPassword keeps argon2id fast in tests; production uses the OWASP set.
var cheapPassword = accountstest.CheapPassword()

var t0 = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)

type testServer struct {
	t       testing.TB
	srv     *Server
	base    string
	dataDir string
	clock   *clock.Fake
	logs    *logbuf.Buffer
	stopped bool
}

// serverOpt adjusts the configuration and the test substitutes of a
// server before it is built.
type serverOpt func(*Config, *deps)

// startServer runs a real origin on a loopback port over a real Badger in
// dataDir ("" means a fresh t.TempDir()).
func startServer(t testing.TB, dataDir string, clk *clock.Fake, opts ...serverOpt) *testServer {
	t.Helper()
	if dataDir == "" {
		dataDir = t.TempDir()
	}
	if clk == nil {
		clk = clock.NewFake(t0)
	}
	logs := &logbuf.Buffer{}
	cfg := Config{
		DataDir:  dataDir,
		Logger:   slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Clock:    clk,
		Password: cheapPassword,
	}
	d := deps{routes: testRoutes}
	for _, o := range opts {
		o(&cfg, &d)
	}
	srv, err := newServer(cfg, d)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	go func() { _ = srv.Serve(ln) }()
	ts := &testServer{t: t, srv: srv, base: "http://" + ln.Addr().String(), dataDir: dataDir, clock: clk, logs: logs}
	t.Cleanup(ts.stop)
	return ts
}

func (ts *testServer) stop() {
	if ts.stopped {
		return
	}
	ts.stopped = true
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := ts.srv.Shutdown(ctx); err != nil {
		ts.t.Errorf("Shutdown: %v", err)
	}
}

// loopbackWebhooks lets webhooks target 127.0.0.1 (the test receivers),
// polling often so that deliveries are quick.
func loopbackWebhooks() webhooks.Config {
	return webhooks.Config{
		Guard:        webhooks.NewGuard(webhooks.GuardConfig{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}),
		PollInterval: 5 * time.Millisecond,
	}
}

// testRoutes adds routes that exercise auth modes and scopes not yet used
// by a production endpoint.
func testRoutes(a *httpapi.API) {
	whoami := func(ctx *fasthttp.RequestCtx) error {
		p, _ := httpapi.PrincipalFrom(ctx)
		return httpapi.WriteJSON(ctx, 200, map[string]any{"account_id": p.AccountID, "kind": p.Kind, "api_key_id": p.APIKeyID, "scopes": p.Scopes})
	}
	a.Handle(httpapi.Route{Method: "GET", Path: "/test/api-key-only", Auth: httpapi.APIKeyOnly}, whoami)
	a.Handle(httpapi.Route{Method: "GET", Path: "/test/either", Auth: httpapi.JWTOrAPIKey}, whoami)
	a.Handle(httpapi.Route{Method: "GET", Path: "/test/needs-sign", Auth: httpapi.JWTOrAPIKey, Scope: keys.ScopeSign}, whoami)
	a.Handle(httpapi.Route{Method: "GET", Path: "/test/needs-webhooks", Auth: httpapi.APIKeyOnly}, func(ctx *fasthttp.RequestCtx) error {
		if err := httpapi.RequireScope(ctx, keys.ScopeWebhooks); err != nil {
			return err
		}
		return whoami(ctx)
	})
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("response body %q is not a JSON object: %v", r.body, err)
	}
	return m
}

// problemCode returns the problem's code after checking the media type.
func (r response) problemCode(t testing.TB) string {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type = %q, want application/problem+json (status %d, body %s)", ct, r.status, r.body)
	}
	m := r.json(t)
	if got, _ := m["status"].(float64); int(got) != r.status {
		t.Errorf("problem status member = %v, want %d", m["status"], r.status)
	}
	code, _ := m["code"].(string)
	return code
}

func (ts *testServer) do(method, path, token string, body any) response {
	ts.t.Helper()
	var rd io.Reader
	if body != nil {
		switch b := body.(type) {
		case string:
			rd = strings.NewReader(b)
		case []byte:
			rd = bytes.NewReader(b)
		default:
			enc, err := json.Marshal(body)
			if err != nil {
				ts.t.Fatalf("marshal: %v", err)
			}
			rd = bytes.NewReader(enc)
		}
	}
	contentType := ""
	if body != nil {
		contentType = "application/json"
	}
	return ts.send(method, path, token, rd, contentType)
}

// send makes one request with the given body (nil for none), Content-Type
// (omitted when "") and bearer token (omitted when ""), and returns the
// whole response. Any transport error fails the test.
func (ts *testServer) send(method, path, token string, body io.Reader, contentType string) response {
	ts.t.Helper()
	req, err := http.NewRequest(method, ts.base+path, body)
	if err != nil {
		ts.t.Fatalf("NewRequest: %v", err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return ts.sendReq(req)
}

// sendReq sends req and returns the whole response; a transport or read
// error fails the test.
func (ts *testServer) sendReq(req *http.Request) response {
	ts.t.Helper()
	r, err := exchange(req)
	if err != nil {
		ts.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	return r
}

// exchange sends req and reads the whole response, without the test's
// fatal helpers (for goroutines that may outlive the test's checks).
func exchange(req *http.Request) (response, error) {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: b}, err
}

func (ts *testServer) mustStatus(r response, want int, what string) {
	ts.t.Helper()
	if r.status != want {
		ts.t.Fatalf("%s: status %d, want %d; body %s", what, r.status, want, r.body)
	}
}

type account struct {
	id, email, password, token string
}

func (ts *testServer) register(email, password string) account {
	ts.t.Helper()
	r := ts.do("POST", "/api/v1/auth/register", "", map[string]string{
		"email": email, "password": password, "org_name": "Example News", "org_type": "news_org",
	})
	ts.mustStatus(r, 201, "register "+email)
	m := r.json(ts.t)
	user, _ := m["user"].(map[string]any)
	tok, _ := m["access_token"].(string)
	id, _ := user["id"].(string)
	if tok == "" || id == "" {
		ts.t.Fatalf("register response lacks access_token or user.id: %s", r.body)
	}
	return account{id: id, email: email, password: password, token: tok}
}

// createAPIKey returns the key text and id.
func (ts *testServer) createAPIKey(token string, body map[string]any) (string, string) {
	ts.t.Helper()
	r := ts.do("POST", "/api/v1/keys/api-keys", token, body)
	ts.mustStatus(r, 201, "create API key")
	m := r.json(ts.t)
	key, _ := m["key"].(string)
	id, _ := m["id"].(string)
	if !strings.HasPrefix(key, "iai_") || id == "" {
		ts.t.Fatalf("create API key response = %s, want key with iai_ prefix and id", r.body)
	}
	return key, id
}

func (ts *testServer) doRaw(method, path, token, body, contentType string) response {
	ts.t.Helper()
	return ts.send(method, path, token, strings.NewReader(body), contentType)
}
