package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/origin/internal/events"
	"github.com/provenant/provenant/origin/internal/httpapi"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/webhooks"
)

// serverRef lets a test-only route reach the Server, which exists only
// after New returns (routes run only after Serve).
type serverRef struct {
	mu  sync.Mutex
	srv *Server
}

func (r *serverRef) get() *Server {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.srv
}

func (r *serverRef) set(s *Server) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.srv = s
}

// publishRoute adds POST /test/publish?type=<event type>: it publishes an
// event with the request body as data, for the caller's account, inside a
// store transaction (as sign/verify/anchoring do), and answers 204 once the
// transaction has committed.
func publishRoute(ref *serverRef, clk func() time.Time) func(*httpapi.API) {
	return func(a *httpapi.API) {
		testRoutes(a)
		a.Handle(httpapi.Route{Method: "POST", Path: "/test/publish", Auth: httpapi.APIKeyOnly}, func(ctx *fasthttp.RequestCtx) error {
			p, _ := httpapi.PrincipalFrom(ctx)
			srv := ref.get()
			ev := events.Event{Type: string(ctx.QueryArgs().Peek("type")), Time: clk(), Accounts: []string{p.AccountID},
				Data: json.RawMessage(append([]byte(nil), ctx.PostBody()...))}
			err := srv.store.Update(context.Background(), func(tx store.Txn) error { return srv.webhooks.Publish(tx, ev) })
			if err != nil {
				return err
			}
			ctx.SetStatusCode(fasthttp.StatusNoContent)
			return nil
		})
	}
}

// hookReceiver is a real loopback receiver that answers with the statuses
// in script (the last repeats) and records every request.
type hookReceiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	script []int
	reqs   []*http.Request
	bodies [][]byte
}

func newHookReceiver(t *testing.T, script ...int) *hookReceiver {
	t.Helper()
	h := &hookReceiver{script: script}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.reqs = append(h.reqs, r)
		h.bodies = append(h.bodies, b)
		code := 200
		if len(h.script) > 0 {
			code = h.script[min(len(h.reqs)-1, len(h.script)-1)]
		}
		h.mu.Unlock()
		w.WriteHeader(code)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hookReceiver) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.reqs)
}

func (h *hookReceiver) request(i int) (http.Header, []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.reqs[i].Header, h.bodies[i]
}

type webhookServer struct {
	*testServer
	attempts chan webhooks.AttemptResult
}

func startWebhookServer(t *testing.T, dataDir string) *webhookServer {
	t.Helper()
	ref := &serverRef{}
	attempts := make(chan webhooks.AttemptResult, 100)
	var clk func() time.Time
	ts := startServer(t, dataDir, nil, func(c *Config, d *deps) {
		clk = c.Clock.Now
		d.routes = publishRoute(ref, func() time.Time { return clk() })
		c.Webhooks = loopbackWebhooks()
		c.Webhooks.Timeout = 2 * time.Second
		c.Webhooks.OnAttempt = func(r webhooks.AttemptResult) { attempts <- r }
	})
	ref.set(ts.srv)
	return &webhookServer{testServer: ts, attempts: attempts}
}

func (ws *webhookServer) waitAttempt(what string) webhooks.AttemptResult {
	ws.t.Helper()
	select {
	case r := <-ws.attempts:
		return r
	case <-time.After(10 * time.Second):
		ws.t.Fatalf("%s: no delivery attempt within 10s", what)
	}
	return webhooks.AttemptResult{}
}

// noneDue asserts that no delivery is due at the fake clock's time: a
// DispatchDue pass of its own starts nothing, and no attempt was reported.
// An attempt the background loop started early would also carry the early
// time, which the callers check against the schedule.
func (ws *webhookServer) noneDue(what string) {
	ws.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if n, err := ws.srv.webhooks.DispatchDue(ctx); err != nil || n != 0 {
		ws.t.Fatalf("%s: DispatchDue started %d attempts (%v), want none due", what, n, err)
	}
	select {
	case r := <-ws.attempts:
		ws.t.Fatalf("%s: unexpected attempt %+v", what, r)
	default:
	}
}

func (ws *webhookServer) publish(key, typ, data string) {
	ws.t.Helper()
	r := ws.doRaw("POST", "/test/publish?type="+typ, key, data, "application/json")
	ws.mustStatus(r, 204, "publish "+typ)
}

// apiKeyFor registers an account and returns an API key with every scope.
func (ws *webhookServer) apiKeyFor(email string) string {
	ws.t.Helper()
	acct := ws.register(email, "correct horse battery")
	key, _ := ws.createAPIKey(acct.token, map[string]any{"name": "hooks"})
	return key
}

func TestWebhooksEndpoints(t *testing.T) {
	ws := startWebhookServer(t, "")
	rcv := newHookReceiver(t, 200)
	key := ws.apiKeyFor("a@example.com")
	other := ws.apiKeyFor("b@example.com")

	r := ws.do("POST", "/api/v1/webhooks", key, map[string]any{"url": rcv.srv.URL + "/hook", "events": []string{"content.signed"}})
	ws.mustStatus(r, 201, "create webhook")
	created := r.json(t)
	secret, _ := created["secret"].(string)
	id, _ := created["id"].(string)
	if !strings.HasPrefix(secret, "whsec_") || id == "" {
		t.Fatalf("create response %s lacks id or whsec_ secret", r.body)
	}
	if got := created["events"]; fmt.Sprint(got) != "[content.signed]" || created["active"] != true {
		t.Errorf("created events/active = %v/%v, want [content.signed]/true", got, created["active"])
	}

	// Omitted events means all of them.
	r = ws.do("POST", "/api/v1/webhooks", key, map[string]any{"url": rcv.srv.URL})
	ws.mustStatus(r, 201, "create webhook without events")
	if got := fmt.Sprint(r.json(t)["events"]); got != "[content.signed batch.anchored content.verified]" {
		t.Errorf("events when omitted = %s, want all three", got)
	}

	// Secrets never appear after creation.
	var seen []string
	r = ws.do("GET", "/api/v1/webhooks", key, nil)
	ws.mustStatus(r, 200, "list webhooks")
	seen = append(seen, string(r.body))
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(r.body, &list); err != nil || len(list.Items) != 2 {
		t.Fatalf("list = %s, want 2 items", r.body)
	}
	r = ws.do("PUT", "/api/v1/webhooks/"+id, key, map[string]any{"events": []string{"content.signed", "batch.anchored"}, "active": false})
	ws.mustStatus(r, 200, "update webhook")
	seen = append(seen, string(r.body))
	upd := r.json(t)
	if upd["active"] != false || fmt.Sprint(upd["events"]) != "[content.signed batch.anchored]" || upd["url"] != rcv.srv.URL+"/hook" {
		t.Errorf("updated webhook = %s, want inactive, two events, url unchanged", r.body)
	}
	r = ws.do("GET", "/api/v1/webhooks/"+id, key, nil)
	ws.mustStatus(r, 200, "get webhook")
	seen = append(seen, string(r.body))
	for _, b := range seen {
		if strings.Contains(b, secret) || strings.Contains(b, "secret\"") || strings.Contains(b, strings.TrimPrefix(secret, "whsec_")) {
			t.Errorf("response exposes the secret: %s", b)
		}
	}

	r = ws.do("POST", "/api/v1/webhooks/"+id+"/rotate-secret", key, nil)
	ws.mustStatus(r, 200, "rotate secret")
	if s2, _ := r.json(t)["secret"].(string); !strings.HasPrefix(s2, "whsec_") || s2 == secret {
		t.Errorf("rotate-secret returned %q, want a new whsec_ secret", s2)
	}

	bad := []struct {
		name string
		body any
		code string
	}{
		{"ftp", map[string]any{"url": "ftp://example.com/"}, "validation_failed"},
		{"loopback", map[string]any{"url": "http://127.0.0.2/"}, "validation_failed"},
		{"metadata", map[string]any{"url": "http://169.254.169.254/"}, "validation_failed"},
		{"private", map[string]any{"url": "http://10.0.0.1/"}, "validation_failed"},
		{"localhost", map[string]any{"url": "http://localhost/"}, "validation_failed"},
		{"mapped", map[string]any{"url": "http://[::ffff:10.0.0.1]/"}, "validation_failed"},
		{"empty events", map[string]any{"url": rcv.srv.URL, "events": []string{}}, "validation_failed"},
		{"unknown event", map[string]any{"url": rcv.srv.URL, "events": []string{"content.deleted"}}, "validation_failed"},
		{"unknown member", map[string]any{"url": rcv.srv.URL, "secret": "whsec_mine"}, "unknown_field"},
	}
	for _, tc := range bad {
		r := ws.do("POST", "/api/v1/webhooks", key, tc.body)
		if r.status != 400 || r.problemCode(t) != tc.code {
			t.Errorf("%s: create = %d %s, want 400 %s", tc.name, r.status, r.body, tc.code)
		}
	}

	// Another account sees nothing.
	for _, c := range []struct{ method, path string }{
		{"GET", "/api/v1/webhooks/" + id},
		{"PUT", "/api/v1/webhooks/" + id},
		{"DELETE", "/api/v1/webhooks/" + id},
		{"POST", "/api/v1/webhooks/" + id + "/rotate-secret"},
		{"GET", "/api/v1/webhooks/" + id + "/deliveries"},
	} {
		var body any
		if c.method == "PUT" {
			body = map[string]any{"active": true}
		}
		r := ws.do(c.method, c.path, other, body)
		if r.status != 404 || r.problemCode(t) != "not_found" {
			t.Errorf("other account %s %s = %d %s, want 404 not_found", c.method, c.path, r.status, r.body)
		}
	}
	r = ws.do("GET", "/api/v1/webhooks", other, nil)
	if r.status != 200 || strings.Contains(string(r.body), id) {
		t.Errorf("other account's list = %d %s, want 200 without %s", r.status, r.body, id)
	}

	// Credentials: a Bearer JWT is refused (API key only), a key
	// without the webhooks scope is refused.
	acct := ws.register("c@example.com", "correct horse battery")
	r = ws.do("GET", "/api/v1/webhooks", acct.token, nil)
	if r.status != 401 || r.problemCode(t) != "credential_kind_not_allowed" {
		t.Errorf("Bearer JWT on webhooks = %d %s, want 401 credential_kind_not_allowed", r.status, r.body)
	}
	signOnly, _ := ws.createAPIKey(acct.token, map[string]any{"name": "s", "scopes": []string{"sign"}})
	r = ws.do("GET", "/api/v1/webhooks", signOnly, nil)
	if r.status != 403 || r.problemCode(t) != "insufficient_scope" {
		t.Errorf("sign-only key on webhooks = %d %s, want 403 insufficient_scope", r.status, r.body)
	}

	r = ws.do("DELETE", "/api/v1/webhooks/"+id, key, nil)
	ws.mustStatus(r, 204, "delete webhook")
	r = ws.do("GET", "/api/v1/webhooks/"+id, key, nil)
	ws.mustStatus(r, 404, "get deleted webhook")

	if logs := ws.logs.String(); strings.Contains(logs, strings.TrimPrefix(secret, "whsec_")) {
		t.Errorf("server logs contain a webhook secret")
	}
}

type deliveryList struct {
	Items []struct {
		ID       string `json:"id"`
		Status   string `json:"status"`
		Attempts []struct {
			Attempt    int       `json:"attempt"`
			At         time.Time `json:"at"`
			StatusCode int       `json:"status_code"`
			Error      string    `json:"error"`
			Manual     bool      `json:"manual"`
		} `json:"attempts"`
		NextAttemptAt *time.Time      `json:"next_attempt_at"`
		Payload       json.RawMessage `json:"payload"`
	} `json:"items"`
}

func (ws *webhookServer) deliveries(key, hook, query string) deliveryList {
	ws.t.Helper()
	r := ws.do("GET", "/api/v1/webhooks/"+hook+"/deliveries"+query, key, nil)
	ws.mustStatus(r, 200, "list deliveries")
	var l deliveryList
	if err := json.Unmarshal(r.body, &l); err != nil {
		ws.t.Fatalf("deliveries body %s: %v", r.body, err)
	}
	return l
}

func TestWebhookDeliveryRetriesAndManualRetry(t *testing.T) {
	ws := startWebhookServer(t, "")
	key := ws.apiKeyFor("a@example.com")
	flaky := newHookReceiver(t, 500, 500, 200)
	r := ws.do("POST", "/api/v1/webhooks", key, map[string]any{"url": flaky.srv.URL, "events": []string{"content.signed"}})
	ws.mustStatus(r, 201, "create")
	hook, _ := r.json(t)["id"].(string)
	secret, _ := r.json(t)["secret"].(string)

	ws.publish(key, "batch.anchored", `{"batch_id":"b"}`) // not subscribed
	ws.publish(key, "content.signed", `{"record_id":"r1"}`)
	if a := ws.waitAttempt("attempt 1"); a.Attempt.StatusCode != 500 || a.Status != webhooks.StatusPending {
		t.Fatalf("attempt 1 = %+v, want 500 and pending", a)
	}
	ws.clock.Advance(59 * time.Second)
	ws.noneDue("at +59s")
	ws.clock.Advance(time.Second)
	if a := ws.waitAttempt("attempt 2"); a.Attempt.Number != 2 || a.Attempt.StatusCode != 500 {
		t.Fatalf("attempt 2 = %+v, want number 2, 500", a)
	}
	ws.clock.Advance(5 * time.Minute)
	if a := ws.waitAttempt("attempt 3"); a.Attempt.Number != 3 || a.Status != webhooks.StatusSucceeded {
		t.Fatalf("attempt 3 = %+v, want succeeded", a)
	}
	if n := flaky.count(); n != 3 {
		t.Fatalf("receiver got %d requests, want exactly 3 (the unsubscribed event is not sent)", n)
	}
	var ids []string
	for i := 0; i < 3; i++ {
		h, body := flaky.request(i)
		ids = append(ids, h.Get("X-Service-Delivery"))
		if !webhooks.VerifySignature(secret, body, h.Get("X-Service-Signature")) {
			t.Errorf("attempt %d: signature does not verify over the raw body", i+1)
		}
		if h.Get("X-Service-Event") != "content.signed" {
			t.Errorf("attempt %d: X-Service-Event = %q", i+1, h.Get("X-Service-Event"))
		}
	}
	if ids[0] == "" || ids[0] != ids[1] || ids[1] != ids[2] {
		t.Errorf("delivery ids = %v, want one id on every attempt", ids)
	}
	l := ws.deliveries(key, hook, "?status=succeeded")
	if len(l.Items) != 1 || l.Items[0].ID != ids[0] || len(l.Items[0].Attempts) != 3 {
		t.Fatalf("succeeded deliveries = %+v, want the one delivery with 3 attempts", l.Items)
	}
	wantAt := []time.Time{t0, t0.Add(time.Minute), t0.Add(6 * time.Minute)}
	for i, a := range l.Items[0].Attempts {
		if !a.At.Equal(wantAt[i]) {
			t.Errorf("attempt %d at %v, want %v", i+1, a.At, wantAt[i])
		}
	}

	// A receiver that never succeeds: failed after three, then manual retry.
	down := newHookReceiver(t, 503, 503, 503, 200)
	r = ws.do("POST", "/api/v1/webhooks", key, map[string]any{"url": down.srv.URL, "events": []string{"batch.anchored"}})
	ws.mustStatus(r, 201, "create")
	hook2, _ := r.json(t)["id"].(string)
	ws.publish(key, "batch.anchored", `{"batch_id":"b2"}`)
	ws.waitAttempt("down attempt 1")
	ws.clock.Advance(time.Minute)
	ws.waitAttempt("down attempt 2")
	ws.clock.Advance(5 * time.Minute)
	if a := ws.waitAttempt("down attempt 3"); a.Status != webhooks.StatusFailed {
		t.Fatalf("after 3 failures status = %s, want failed", a.Status)
	}
	failed := ws.deliveries(key, hook2, "?status=failed")
	if len(failed.Items) != 1 || len(ws.deliveries(key, hook2, "?status=pending").Items) != 0 {
		t.Fatalf("failed = %d items, want 1 and no pending", len(failed.Items))
	}
	did := failed.Items[0].ID
	other := ws.apiKeyFor("b@example.com")
	r = ws.do("POST", "/api/v1/webhooks/deliveries/"+did+"/retry", other, nil)
	if r.status != 404 {
		t.Errorf("retry by another account = %d, want 404", r.status)
	}
	r = ws.do("POST", "/api/v1/webhooks/deliveries/"+did+"/retry", key, nil)
	ws.mustStatus(r, 202, "manual retry")
	if a := ws.waitAttempt("manual retry"); a.Status != webhooks.StatusSucceeded || !a.Attempt.Manual || a.DeliveryID != did {
		t.Fatalf("manual retry attempt = %+v, want manual success of %s", a, did)
	}
	if h, _ := down.request(3); h.Get("X-Service-Delivery") != did {
		t.Errorf("manual retry sent delivery id %q, want %q", h.Get("X-Service-Delivery"), did)
	}
	r = ws.do("POST", "/api/v1/webhooks/deliveries/"+did+"/retry", key, nil)
	if r.status != 409 || r.problemCode(t) != "delivery_not_failed" {
		t.Errorf("retry of a succeeded delivery = %d %s, want 409 delivery_not_failed", r.status, r.body)
	}
	r = ws.do("GET", "/api/v1/webhooks/"+hook2+"/deliveries?status=bogus", key, nil)
	if r.status != 400 || r.problemCode(t) != "validation_failed" {
		t.Errorf("status=bogus = %d %s, want 400", r.status, r.body)
	}
}
