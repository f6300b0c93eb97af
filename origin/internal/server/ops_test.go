package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/httpapi"
	"github.com/provenant/provenant/origin/internal/store"
)

// accessLine is one "request" log line as the JSON handler writes it.
type accessLine struct {
	Msg       string `json:"msg"`
	Method    string `json:"method"`
	Route     string `json:"route"`
	Status    int    `json:"status"`
	RequestID string `json:"request_id"`
	ClientIP  string `json:"client_ip"`
	AccountID string `json:"account_id"`
	BytesIn   *int   `json:"bytes_in"`
	BytesOut  *int   `json:"bytes_out"`
	Duration  *int64 `json:"duration_ms"`
}

func accessLines(t *testing.T, logs string) []accessLine {
	t.Helper()
	var out []accessLine
	for _, l := range strings.Split(strings.TrimSpace(logs), "\n") {
		var a accessLine
		if err := json.Unmarshal([]byte(l), &a); err != nil {
			t.Fatalf("log line %q is not JSON: %v", l, err)
		}
		if a.Msg == "request" {
			out = append(out, a)
		}
	}
	return out
}

// sendWithID sends a request with the given X-Request-Id ("" for none) and
// returns the response.
func (ts *testServer) sendWithID(method, path, auth, reqID, contentType string, body []byte) response {
	ts.t.Helper()
	req, err := http.NewRequest(method, ts.base+path, bytes.NewReader(body))
	if err != nil {
		ts.t.Fatalf("new request: %v", err)
	}
	if auth != "" {
		req.Header.Set("Authorization", "Bearer "+auth)
	}
	if reqID != "" {
		req.Header.Set("X-Request-Id", reqID)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return ts.sendReq(req)
}

// TestAccessLogsEveryRoute drives every route of the OpenAPI document with
// requests full of secrets (passwords, API keys, JWTs, a webhook secret)
// and checks that each produced exactly one access line, with the route
// template and the request id of the response header (and of the problem
// body, if any), and that no secret reached the logs.
func TestAccessLogsEveryRoute(t *testing.T) {
	ts := startServer(t, "", nil, func(c *Config, _ *deps) { c.Webhooks = loopbackWebhooks() })
	const pw = "access log secret password"
	acct := ts.register("access@example.com", pw)
	key, _ := ts.createAPIKey(acct.token, map[string]any{"name": "all", "scopes": []string{"sign", "read", "webhooks"}})
	r := ts.do("POST", "/api/v1/webhooks", key, map[string]any{"url": "http://127.0.0.1:9/hook", "events": []string{"content.signed"}})
	ts.mustStatus(r, 201, "create webhook")
	whSecret, _ := r.json(t)["secret"].(string)
	whID, _ := r.json(t)["id"].(string)
	if len(whSecret) < 16 || whID == "" {
		t.Fatalf("create webhook response = %s, want an id and a secret", r.body)
	}
	before := len(accessLines(t, ts.logs.String()))

	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(httpapi.OpenAPI(), &doc); err != nil {
		t.Fatalf("openapi: %v", err)
	}
	type sent struct{ method, route, id string }
	var reqs []sent
	paths := make([]string, 0, len(doc.Paths))
	for p := range doc.Paths {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	// Logout ends every session of the account, so it goes last: the
	// routes after it would otherwise see the JWT refused.
	for i, p := range paths {
		if p == "/api/v1/auth/logout" {
			paths = append(append(paths[:i:i], paths[i+1:]...), p)
			break
		}
	}
	secretBody, _ := json.Marshal(map[string]any{
		"email": acct.email, "password": pw, "new_password": pw, "token": acct.token,
		"api_key": key, "secret": whSecret, "url": "http://127.0.0.1:9/hook?key=" + key, "name": pw,
	})
	// The raw path carries a secret too: only the route template may be logged.
	idValue := "00000000-0000-4000-8000-000000000000" + strings.Map(func(r rune) rune {
		if r == '/' || r == '?' || r == '#' || r == '%' {
			return -1
		}
		return r
	}, whSecret)
	for _, p := range paths {
		for m := range doc.Paths[p] {
			method := strings.ToUpper(m)
			raw := strings.ReplaceAll(p, "{id}", idValue) + "?q=" + url.QueryEscape(pw)
			for i, auth := range []string{acct.token, key, ""} {
				id := "t-" + strings.ReplaceAll(strings.Trim(p, "/"), "/", ".") + "." + method + "." + string(rune('0'+i))
				id = strings.NewReplacer("{", "", "}", "").Replace(id)
				if len(id) > 64 {
					id = id[len(id)-64:]
				}
				var body []byte
				ct := ""
				if method != "GET" && method != "DELETE" {
					body, ct = secretBody, "application/json"
				}
				res := ts.sendWithID(method, raw, auth, id, ct, body)
				if got := res.header.Get("X-Request-Id"); got != id {
					t.Errorf("%s %s: X-Request-Id = %q, want the client's %q", method, p, got, id)
				}
				if res.header.Get("Content-Type") == "application/problem+json" && method != "HEAD" { // HEAD answers have no body
					if got, _ := res.json(t)["request_id"].(string); got != id {
						t.Errorf("%s %s: problem request_id = %q, want %q", method, p, got, id)
					}
				}
				reqs = append(reqs, sent{method, p, id})
			}
		}
	}
	// A request fasthttp cannot parse (a space in the request line) never
	// reaches the router; its raw bytes, Authorization included, must not
	// reach the logs either, and it still gets its one access line.
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.base, "http://"))
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	_, _ = io.WriteString(conn, "GET /api/v1/auth/me?q="+pw+" HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+acct.token+"\r\n\r\n")
	status, _ := io.ReadAll(conn)
	conn.Close()
	if !bytes.HasPrefix(status, []byte("HTTP/1.1 400")) {
		t.Errorf("malformed request answered %.40q, want 400", status)
	}
	ts.stop()

	logs := ts.logs.String()
	lines := accessLines(t, logs)[before:]
	byID := map[string][]accessLine{}
	for _, l := range lines {
		byID[l.RequestID] = append(byID[l.RequestID], l)
	}
	if len(lines) != len(reqs)+1 {
		t.Errorf("%d access lines for %d requests and one malformed request", len(lines), len(reqs))
	}
	if l := lines[len(lines)-1]; l.Status != 400 || l.Route != "-" || len(l.RequestID) != 32 {
		t.Errorf("malformed request's access line = %+v, want status 400, route -, a generated request id", l)
	}
	for _, s := range reqs {
		got := byID[s.id]
		if len(got) != 1 {
			t.Errorf("%s %s (id %s): %d access lines, want 1", s.method, s.route, s.id, len(got))
			continue
		}
		l := got[0]
		if l.Method != s.method || l.Route != s.route || l.Status == 0 || l.ClientIP != "127.0.0.1" ||
			l.BytesIn == nil || l.BytesOut == nil || l.Duration == nil {
			t.Errorf("%s %s: access line %+v, want method, route template, status, client_ip, bytes and duration", s.method, s.route, l)
		}
	}
	if me := byID["t-api.v1.auth.me.GET.0"]; len(me) != 1 || me[0].Status != 200 || me[0].AccountID != acct.id {
		t.Errorf("GET /api/v1/auth/me with a JWT: access lines %+v, want one 200 with account_id %s", me, acct.id)
	}
	if strings.Contains(logs, "00000000-0000-4000-8000-000000000000") {
		t.Errorf("logs contain a raw request path")
	}
	secrets := map[string]string{
		"password": pw, "API key": key, "API key body": key[4 : len(key)-6], "JWT": acct.token,
		"JWT signature": acct.token[strings.LastIndexByte(acct.token, '.')+1:], "webhook secret": whSecret,
	}
	for name, s := range secrets {
		if strings.Contains(logs, s) {
			t.Errorf("logs contain the %s", name)
		}
	}
}

func TestRequestIDs(t *testing.T) {
	ts := startServer(t, "", nil)
	tests := []struct {
		name, sent string
		echoed     bool
	}{
		{"valid client id echoed", "abc-DEF_1.2", true},
		{"64 characters accepted", strings.Repeat("a", 64), true},
		{"none sent", "", false},
		{"65 characters replaced", strings.Repeat("a", 65), false},
		{"space replaced", "abc def", false},
		{"slash replaced", "abc/def", false},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := ts.sendWithID("GET", "/no/such/route", "", tt.sent, "", nil)
			got := res.header.Get("X-Request-Id")
			if tt.echoed && got != tt.sent {
				t.Fatalf("X-Request-Id = %q, want %q", got, tt.sent)
			}
			if !tt.echoed && (got == tt.sent || len(got) != 32 || seen[got]) {
				t.Fatalf("X-Request-Id = %q, want a fresh 32-hex-digit id", got)
			}
			seen[got] = true
			if code := res.problemCode(t); code != "not_found" {
				t.Errorf("code = %q, want not_found", code)
			}
			if id, _ := res.json(t)["request_id"].(string); id != got {
				t.Errorf("problem request_id = %q, want the header's %q", id, got)
			}
		})
	}
}

func TestReady(t *testing.T) {
	ts := startServer(t, "", nil)
	check := func(wantStatus int, want map[string]string) {
		t.Helper()
		r := ts.do("GET", "/ready", "", nil)
		var got struct {
			Status string            `json:"status"`
			Checks map[string]string `json:"checks"`
		}
		if err := json.Unmarshal(r.body, &got); err != nil {
			t.Fatalf("body %s: %v", r.body, err)
		}
		wantWord := map[int]string{200: "ready", 503: "not_ready"}[wantStatus]
		if r.status != wantStatus || got.Status != wantWord {
			t.Errorf("GET /ready = %d %q, want %d %q (body %s)", r.status, got.Status, wantStatus, wantWord, r.body)
		}
		for k, v := range want {
			if got.Checks[k] != v {
				t.Errorf("check %s = %q, want %q (body %s)", k, got.Checks[k], v, r.body)
			}
		}
	}
	check(200, map[string]string{"store": "ok", "chain": "ok", "mailer": "ok"})

	// A real failure: the outbox path is taken by a file, so no mail can be
	// written (unlike a permission change, this also holds for root).
	outbox := filepath.Join(ts.dataDir, outboxSubdir)
	if err := os.RemoveAll(outbox); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outbox, []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	check(503, map[string]string{"store": "ok", "chain": "ok", "mailer": "fail"})
	if !strings.Contains(ts.logs.String(), `"check":"mailer"`) {
		t.Errorf("the failed check was not logged")
	}

	if err := os.Remove(outbox); err != nil {
		t.Fatal(err)
	}
	check(200, map[string]string{"mailer": "ok"})

	// Liveness is unaffected by readiness.
	ts.mustStatus(ts.do("GET", "/health", "", nil), 200, "health")

	// Another real failure: the chain goes away (the embedded node is
	// stopped). Shutdown then reports the second close of the chain, which
	// is expected here; the store must still close cleanly.
	if err := ts.srv.chain.Close(); err != nil {
		t.Fatalf("close chain: %v", err)
	}
	check(503, map[string]string{"store": "ok", "chain": "fail", "mailer": "ok"})
	ts.stopped = true
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = ts.srv.Shutdown(ctx)
	st, err := store.Open(store.Config{Dir: filepath.Join(ts.dataDir, dbSubdir)})
	if err != nil {
		t.Fatalf("store after shutdown: %v", err)
	}
	if err := st.Close(); err != nil {
		t.Errorf("close reopened store: %v", err)
	}
}
