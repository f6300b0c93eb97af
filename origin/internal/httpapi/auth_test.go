package httpapi

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/origin/internal/keys"
)

// fillPath fills a route's path parameters: the records and webhooks it
// names do not exist, which is fine, since the credential is judged
// before the handler looks anything up.
func fillPath(path string) string {
	for _, p := range []string{"{id}", "{domain}", "{record_id}", "{manifestId}"} {
		path = strings.ReplaceAll(path, p, "00000000-0000-4000-8000-000000000000")
	}
	return path
}

// TestAPIKeyOnlyRoutes: every route the spec's Auth column marks "API
// Key" (sign-batch, content records except the public certificate and
// search, webhooks) refuses a session JWT sent as Authorization: Bearer
// with a 401 problem saying an API key is required, and accepts an API
// key. The web app's cookie session (CSRF token on writes) still reaches
// the routes it uses; sign-batch takes no cookie.
func TestAPIKeyOnlyRoutes(t *testing.T) {
	e := newTestEnv(t, nil)
	owner, jwt := e.account(t, "desk@example.com")
	key := e.apiKey(t, owner)

	spec := []string{
		"POST /api/v1/sign-batch",
		"GET /api/v1/content-records",
		"GET /api/v1/content-records/{id}",
		"DELETE /api/v1/content-records/{id}",
		"POST /api/v1/webhooks",
		"GET /api/v1/webhooks",
		"GET /api/v1/webhooks/{id}",
		"PUT /api/v1/webhooks/{id}",
		"DELETE /api/v1/webhooks/{id}",
		"POST /api/v1/webhooks/{id}/rotate-secret",
		"POST /api/v1/webhooks/{id}/test",
		"GET /api/v1/webhooks/{id}/deliveries",
		"POST /api/v1/webhooks/deliveries/{id}/retry",
	}
	var got []string
	for _, rt := range e.api.Routes() {
		if rt.Auth == APIKeyOnly || rt.Auth == APIKeyOrSession {
			got = append(got, rt.Method+" "+rt.Path)
		}
	}
	for _, s := range spec {
		if !slices.Contains(got, s) {
			t.Errorf("%s is not API-key-only (spec Auth column: API Key)", s)
		}
	}
	for _, g := range got {
		if !slices.Contains(spec, g) {
			t.Errorf("%s is API-key-only but not in the spec's list", g)
		}
	}

	for _, rt := range e.api.Routes() {
		if rt.Auth != APIKeyOnly && rt.Auth != APIKeyOrSession {
			continue
		}
		t.Run(rt.Method+" "+rt.Path, func(t *testing.T) {
			path := fillPath(rt.Path)
			r := e.do(t, rt.Method, path, bearer(jwt), "")
			if r.status != 401 || r.code() != CodeCredentialKind || !strings.Contains(r.body, "requires an API key") {
				t.Errorf("Bearer JWT: %d %s, want 401 %s saying an API key is required", r.status, r.body, CodeCredentialKind)
			}
			if r.header.Get("WWW-Authenticate") == "" {
				t.Errorf("Bearer JWT: 401 without WWW-Authenticate")
			}
			if r := e.do(t, rt.Method, path, bearer(key), ""); r.status == 401 || r.status == 403 {
				t.Errorf("API key: %d %s, want past authentication", r.status, r.body)
			}
			sess := e.do(t, rt.Method, path, cookie(jwt, CSRFToken(jwt)), "")
			switch rt.Auth {
			case APIKeyOrSession:
				if sess.status == 401 || sess.status == 403 {
					t.Errorf("web app session: %d %s, want past authentication", sess.status, sess.body)
				}
			case APIKeyOnly:
				if sess.status != 401 || sess.code() != CodeCredentialKind {
					t.Errorf("web app session on an API-key-only route: %d %s, want 401 %s", sess.status, sess.body, CodeCredentialKind)
				}
			}
		})
	}
}

// TestCSRFOnCookieWrites: a write authenticated by the session cookie
// needs that session's CSRF token; a read does not; a Bearer credential
// needs none.
func TestCSRFOnCookieWrites(t *testing.T) {
	e := newTestEnv(t, nil)
	owner, jwt := e.account(t, "web@example.com")
	_, other := e.account(t, "other@example.com")
	key := e.apiKey(t, owner)
	hook := `{"url":"http://127.0.0.1:9/hook"}`
	tests := []struct {
		name   string
		method string
		header map[string]string
		want   int
		code   string
	}{
		{"write without token", "POST", cookie(jwt, ""), 403, CodeCSRF},
		{"write with a wrong token", "POST", cookie(jwt, otherFirst(CSRFToken(jwt))), 403, CodeCSRF},
		{"write with a truncated token", "POST", cookie(jwt, CSRFToken(jwt)[:20]), 403, CodeCSRF},
		{"write with another session's token", "POST", cookie(jwt, CSRFToken(other)), 403, CodeCSRF},
		{"write with the session's token", "POST", cookie(jwt, CSRFToken(jwt)), 201, ""},
		{"read without token", "GET", cookie(jwt, ""), 200, ""},
		{"API key write without token", "POST", bearer(key), 201, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := ""
			if tc.method == "POST" {
				body = hook
			}
			r := e.do(t, tc.method, "/api/v1/webhooks", tc.header, body)
			if r.status != tc.want || r.code() != tc.code {
				t.Errorf("%s /api/v1/webhooks: %d %q %s, want %d %q", tc.method, r.status, r.code(), r.body, tc.want, tc.code)
			}
		})
	}
}

// otherFirst returns tok with its first character changed, whatever
// that character is (a fixed replacement would leave one token in 64
// unchanged).
func otherFirst(tok string) string {
	if tok[0] == 'x' {
		return "y" + tok[1:]
	}
	return "x" + tok[1:]
}

func TestCheckCSRF(t *testing.T) {
	tok := CSRFToken("a.b.c")
	tests := []struct {
		name, jwt, got string
		want           bool
	}{
		{"own token", "a.b.c", tok, true},
		{"empty token", "a.b.c", "", false},
		{"other session's token", "a.b.d", tok, false},
		{"one character off", "a.b.c", tok[:len(tok)-1] + "A", false},
		{"prefix", "a.b.c", tok[:10], false},
		{"token plus a suffix", "a.b.c", tok + "A", false},
		{"no session", "", CSRFToken(""), false},
	}
	for _, tc := range tests {
		if got := CheckCSRF(tc.jwt, tc.got); got != tc.want {
			t.Errorf("%s: CheckCSRF = %v, want %v", tc.name, got, tc.want)
		}
	}
	if CSRFToken("a.b.c") == CSRFToken("a.b.d") {
		t.Error("two sessions share a CSRF token")
	}
}

// TestScopes: an API key acts only within its scopes; the owner's session
// has every scope.
func TestScopes(t *testing.T) {
	e := newTestEnv(t, nil)
	owner, jwt := e.account(t, "scopes@example.com")
	keyOf := map[string]string{
		keys.ScopeSign:     e.apiKey(t, owner, keys.ScopeSign),
		keys.ScopeRead:     e.apiKey(t, owner, keys.ScopeRead),
		keys.ScopeWebhooks: e.apiKey(t, owner, keys.ScopeWebhooks),
	}
	missing := "/api/v1/content-records/00000000-0000-4000-8000-000000000000"
	routes := []struct {
		method, path, body, scope string
	}{
		{"GET", "/api/v1/content-records", "", keys.ScopeRead},
		{"GET", missing, "", keys.ScopeRead},
		{"DELETE", missing, "", keys.ScopeSign},
		{"GET", "/api/v1/webhooks", "", keys.ScopeWebhooks},
		{"POST", "/api/v1/webhooks", `{"url":"http://127.0.0.1:9/hook"}`, keys.ScopeWebhooks},
		{"POST", "/api/v1/sign", "", keys.ScopeSign},
		{"POST", "/api/v1/register", "{}", keys.ScopeSign},
		{"POST", "/api/v1/sign-batch", "", keys.ScopeSign},
	}
	for _, rt := range routes {
		for scope, key := range keyOf {
			r := e.do(t, rt.method, rt.path, bearer(key), rt.body)
			denied := r.status == 403 && r.code() == CodeInsufficientScope
			if scope == rt.scope && (denied || r.status == 401) {
				t.Errorf("%s %s with a %q key: %d %s, want past the scope check", rt.method, rt.path, scope, r.status, r.body)
			}
			if scope != rt.scope && !denied {
				t.Errorf("%s %s with a %q key: %d %s, want 403 %s", rt.method, rt.path, scope, r.status, r.body, CodeInsufficientScope)
			}
		}
		if rt.path == "/api/v1/sign-batch" {
			continue // no session there
		}
		if r := e.do(t, rt.method, rt.path, cookie(jwt, CSRFToken(jwt)), rt.body); r.status == 401 || r.status == 403 {
			t.Errorf("%s %s with the owner's session: %d %s, want every scope", rt.method, rt.path, r.status, r.body)
		}
	}
}

// TestIdempotencyKeyScoping: an Idempotency-Key belongs to the credential
// that used it. Another account, or another API key of the same account,
// using the same key gets its own request run (never the first one's
// stored response, which holds a webhook secret); the same credential
// gets the replay, and a different body under its key is refused.
func TestIdempotencyKeyScoping(t *testing.T) {
	e := newTestEnv(t, nil)
	alice, aliceJWT := e.account(t, "alice@example.com")
	_, bobJWT := e.account(t, "bob@example.com")
	aliceKey := e.apiKey(t, alice, keys.ScopeWebhooks)
	aliceKey2 := e.apiKey(t, alice, keys.ScopeWebhooks)
	create := func(h map[string]string, url string) reply {
		t.Helper()
		hdr := map[string]string{"Idempotency-Key": "same-key"}
		for k, v := range h {
			hdr[k] = v
		}
		return e.do(t, "POST", "/api/v1/webhooks", hdr, `{"url":"`+url+`"}`)
	}
	secret := func(r reply) string {
		t.Helper()
		var w struct{ ID, Secret string }
		if r.status != 201 || json.Unmarshal([]byte(r.body), &w) != nil || w.Secret == "" {
			t.Fatalf("create webhook: %d %s", r.status, r.body)
		}
		return w.ID + " " + w.Secret
	}

	first := create(bearer(aliceKey), "http://127.0.0.1:9/a")
	a := secret(first)
	replay := create(bearer(aliceKey), "http://127.0.0.1:9/a")
	if secret(replay) != a || replay.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("retry with the same key and body: %s (replayed %q), want the first response replayed", replay.body, replay.header.Get("Idempotent-Replayed"))
	}
	if r := create(bearer(aliceKey), "http://127.0.0.1:9/other"); r.status != 422 || r.code() != CodeIdempotencyKeyReused {
		t.Errorf("same key, other body: %d %s, want 422 %s", r.status, r.body, CodeIdempotencyKeyReused)
	}
	others := []struct {
		name string
		h    map[string]string
	}{
		{"another API key of the same account", bearer(aliceKey2)},
		{"the account's own session", cookie(aliceJWT, CSRFToken(aliceJWT))},
		{"another account", cookie(bobJWT, CSRFToken(bobJWT))},
	}
	seen := map[string]string{a: "first"}
	for _, o := range others {
		r := create(o.h, "http://127.0.0.1:9/a")
		s := secret(r)
		if prev, dup := seen[s]; dup || r.header.Get("Idempotent-Replayed") != "" {
			t.Errorf("%s with the same Idempotency-Key got the response of %s (replayed %q), want its own", o.name, prev, r.header.Get("Idempotent-Replayed"))
		}
		seen[s] = o.name
	}
}

// TestIdempotencyConcurrentDuplicates: duplicates sent at once create one
// webhook; every answer is that one's.
func TestIdempotencyConcurrentDuplicates(t *testing.T) {
	e := newTestEnv(t, nil)
	owner, _ := e.account(t, "race@example.com")
	key := e.apiKey(t, owner, keys.ScopeWebhooks)
	var wg sync.WaitGroup
	bodies := make([]string, 6)
	for i := range bodies {
		wg.Go(func() {
			r := e.do(t, "POST", "/api/v1/webhooks", map[string]string{"Authorization": "Bearer " + key, "Idempotency-Key": "k1"}, `{"url":"http://127.0.0.1:9/a"}`)
			bodies[i] = r.body
		})
	}
	wg.Wait()
	for i, b := range bodies {
		if b != bodies[0] {
			t.Errorf("answer %d differs from the first: %s vs %s", i, b, bodies[0])
		}
	}
	var page struct{ Items []json.RawMessage }
	r := e.do(t, "GET", "/api/v1/webhooks", bearer(key), "")
	if err := json.Unmarshal([]byte(r.body), &page); err != nil || len(page.Items) != 1 {
		t.Errorf("webhooks after 6 concurrent duplicates: %s, want exactly one", r.body)
	}
}

// TestIdempotencyKeyLifetime: only a success is kept (a refused request
// under a key runs again when retried), and a kept response is replayed
// for 24 hours, not after.
func TestIdempotencyKeyLifetime(t *testing.T) {
	e := newTestEnv(t, nil)
	owner, _ := e.account(t, "ttl@example.com")
	key := e.apiKey(t, owner, keys.ScopeWebhooks)
	post := func(idem, url string) reply {
		t.Helper()
		return e.do(t, "POST", "/api/v1/webhooks", map[string]string{"Authorization": "Bearer " + key, "Idempotency-Key": idem}, `{"url":"`+url+`"}`)
	}
	for i := range 2 {
		if r := post("bad", "ftp://127.0.0.1/x"); r.status != 400 || r.header.Get("Idempotent-Replayed") != "" {
			t.Errorf("refused request, attempt %d: %d (replayed %q) %s, want 400 run again", i+1, r.status, r.header.Get("Idempotent-Replayed"), r.body)
		}
	}
	first := post("good", "http://127.0.0.1:9/a")
	if first.status != 201 {
		t.Fatalf("create: %d %s", first.status, first.body)
	}
	e.clock.Advance(IdempotencyTTL - time.Second)
	if r := post("good", "http://127.0.0.1:9/a"); r.body != first.body || r.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("retry a second before 24 h: %d %s, want the first response replayed", r.status, r.body)
	}
	e.clock.Advance(time.Second)
	if r := post("good", "http://127.0.0.1:9/a"); r.status != 201 || r.body == first.body || r.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("retry at 24 h: %d (replayed %q) %s, want a new webhook", r.status, r.header.Get("Idempotent-Replayed"), r.body)
	}
}

// TestJWTOnlyRoutes: every route the spec's Auth column marks "JWT"
// (auth/me, API key and signing key management, dashboard stats; domains
// too) refuses an API key with a 401 problem saying a session is
// required, before looking the key up, and accepts the session.
func TestJWTOnlyRoutes(t *testing.T) {
	e := newTestEnv(t, nil)
	owner, jwt := e.account(t, "owner@example.com")
	key := e.apiKey(t, owner)
	n := 0
	for _, rt := range e.api.Routes() {
		if rt.Auth != JWTOnly {
			continue
		}
		n++
		t.Run(rt.Method+" "+rt.Path, func(t *testing.T) {
			path := fillPath(rt.Path)
			r := e.do(t, rt.Method, path, bearer(key), "")
			if r.status != 401 || r.code() != CodeCredentialKind || !strings.Contains(r.body, "requires a session token") {
				t.Errorf("API key: %d %s, want 401 %s", r.status, r.body, CodeCredentialKind)
			}
			jwt := jwt
			if rt.Path == "/api/v1/auth/logout" {
				// Logout ends every session of its account: give it one
				// of its own so the routes after it keep theirs.
				_, jwt = e.account(t, "leaving@example.com")
			}
			if r := e.do(t, rt.Method, path, bearer(jwt), ""); r.status == 401 || r.status == 403 {
				t.Errorf("session JWT: %d %s, want past authentication", r.status, r.body)
			}
		})
	}
	if n < 7 {
		t.Errorf("%d JWT-only routes, want at least the spec's 7", n)
	}
}

// TestIdempotencyStoresOnlySuccess: a handler that answers a failure
// itself (without returning an error) is not replayed either: only a 2xx
// is kept.
func TestIdempotencyStoresOnlySuccess(t *testing.T) {
	e := newTestEnv(t, nil)
	owner, _ := e.account(t, "flaky@example.com")
	key := e.apiKey(t, owner)
	var runs atomic.Int64
	e.api.Handle(Route{Method: "POST", Path: "/test/flaky", Auth: APIKeyOnly, Idempotent: true}, func(ctx *fasthttp.RequestCtx) error {
		var body struct{}
		if err := DecodeJSON(ctx, 1<<10, &body); err != nil {
			return err
		}
		n := runs.Add(1)
		status := fasthttp.StatusServiceUnavailable
		if n == 3 {
			status = fasthttp.StatusCreated
		}
		ctx.SetStatusCode(status)
		ctx.SetBodyString(strconv.FormatInt(n, 10))
		return nil
	})
	for i, want := range []int{503, 503, 201, 201} {
		r := e.do(t, "POST", "/test/flaky", map[string]string{"Authorization": "Bearer " + key, "Idempotency-Key": "k"}, "{}")
		if r.status != want {
			t.Errorf("attempt %d: %d %s, want %d", i+1, r.status, r.body, want)
		}
	}
	if n := runs.Load(); n != 3 {
		t.Errorf("the handler ran %d times, want 3 (two failures run again, the success replayed)", n)
	}
}
