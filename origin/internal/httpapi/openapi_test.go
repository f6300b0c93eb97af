package httpapi

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/accounts"
	"github.com/provenant/provenant/origin/internal/content"
	"github.com/provenant/provenant/origin/internal/domains"
	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/origin/internal/mail"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/webhooks"
	"github.com/provenant/provenant/shared/clock"
	"github.com/provenant/provenant/widget"
)

func newTestAPI(t *testing.T) *API {
	t.Helper()
	st, err := store.Open(store.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatalf("store.Open: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	acc, err := accounts.New(accounts.Config{Store: st, Clock: clk, Rand: rand.Reader, TokenKey: priv,
		Mailer:   &mail.Outbox{Dir: t.TempDir(), Clock: clk},
		Password: accounts.PasswordParams{Memory: 64, Time: 1, Threads: 1, KeyLen: 32, SaltLen: 16}})
	if err != nil {
		t.Fatalf("accounts.New: %v", err)
	}
	master := make([]byte, keys.MasterKeySize)
	ks, err := keys.New(keys.Config{Store: st, Clock: clk, Rand: rand.Reader, MasterKey: master})
	if err != nil {
		t.Fatalf("keys.New: %v", err)
	}
	wh, err := webhooks.New(webhooks.Config{Store: st, Clock: clk, MasterKey: master, Guard: webhooks.NewGuard(webhooks.GuardConfig{})})
	if err != nil {
		t.Fatalf("webhooks.New: %v", err)
	}
	recs, err := content.New(content.Config{Store: st, Keys: ks, Accounts: acc, Clock: clk, Rand: rand.Reader})
	if err != nil {
		t.Fatalf("content.New: %v", err)
	}
	dom, err := domains.New(domains.Config{Store: st, Clock: clk, Rand: rand.Reader, Guard: webhooks.NewGuard(webhooks.GuardConfig{})})
	if err != nil {
		t.Fatalf("domains.New: %v", err)
	}
	api, err := New(Config{Accounts: acc, Keys: ks, Clock: clk, Webhooks: wh, Records: recs, Widget: widget.FS(), Domains: dom})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return api
}

// TestOpenAPICoversRoutes fails when a registered route is missing from
// openapi.json, or when the document describes an operation no route
// serves.
func TestOpenAPICoversRoutes(t *testing.T) {
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(OpenAPI(), &doc); err != nil {
		t.Fatalf("openapi.json does not parse: %v", err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}
	api := newTestAPI(t)
	registered := map[string]bool{}
	for _, r := range api.Routes() {
		m := strings.ToLower(r.Method)
		registered[m+" "+r.Path] = true
		if _, ok := doc.Paths[r.Path][m]; !ok {
			t.Errorf("route %s %s is not in openapi.json", r.Method, r.Path)
		}
	}
	methods := []string{"get", "put", "post", "delete", "patch", "head", "options", "trace"}
	for path, ops := range doc.Paths {
		for m := range ops {
			if !slices.Contains(methods, m) {
				continue // parameters, summary, ...
			}
			if !registered[m+" "+path] {
				t.Errorf("openapi.json documents %s %s but no route serves it", strings.ToUpper(m), path)
			}
		}
	}
	if len(registered) < 13 {
		t.Errorf("only %d routes registered; the built-in set has 13", len(registered))
	}
}

func TestRoutesAuthModes(t *testing.T) {
	api := newTestAPI(t)
	want := map[string]AuthMode{
		"GET /health":                       Public,
		"GET /ready":                        Public,
		"POST /api/v1/auth/register":        Public,
		"POST /api/v1/auth/login":           Public,
		"GET /api/v1/auth/me":               JWTOnly,
		"POST /api/v1/auth/forgot-password": Public,
		"POST /api/v1/auth/reset-password":  Public,
		"POST /api/v1/keys/api-keys":        JWTOnly,
		"GET /api/v1/keys/api-keys":         JWTOnly,
		"DELETE /api/v1/keys/api-keys/{id}": JWTOnly,
		"POST /api/v1/keys/signing-keys":    JWTOnly,
		"GET /api/v1/keys/signing-keys":     JWTOnly,
		"GET /api/v1/origin-types":          Public,
		"GET /api/v1/openapi.json":          Public,
		// Webhooks: an API key with the webhooks scope, or the owner's
		// session (the web app manages webhooks).
		"POST /api/v1/webhooks":                       JWTOrAPIKey,
		"GET /api/v1/webhooks":                        JWTOrAPIKey,
		"GET /api/v1/webhooks/{id}":                   JWTOrAPIKey,
		"PUT /api/v1/webhooks/{id}":                   JWTOrAPIKey,
		"DELETE /api/v1/webhooks/{id}":                JWTOrAPIKey,
		"POST /api/v1/webhooks/{id}/rotate-secret":    JWTOrAPIKey,
		"GET /api/v1/webhooks/{id}/deliveries":        JWTOrAPIKey,
		"POST /api/v1/webhooks/deliveries/{id}/retry": JWTOrAPIKey,
		// Spec Auth column, content records.
		"POST /api/v1/sign":                            JWTOrAPIKey,
		"POST /api/v1/verify":                          Public,
		"POST /api/v1/register":                        JWTOrAPIKey,
		"GET /api/v1/dashboard/stats":                  JWTOnly,
		"POST /api/v1/sign-batch":                      APIKeyOnly,
		"GET /api/v1/content-records":                  JWTOrAPIKey,
		"GET /api/v1/content-records/{id}":             JWTOrAPIKey,
		"GET /api/v1/content-records/{id}/certificate": Public,
		"DELETE /api/v1/content-records/{id}":          JWTOrAPIKey,
		"GET /api/v1/content-records/public/search":    Public,
	}
	got := map[string]AuthMode{}
	for _, r := range api.Routes() {
		got[r.Method+" "+r.Path] = r.Auth
		if strings.HasPrefix(r.Path, "/api/v1/webhooks") && r.Scope != keys.ScopeWebhooks {
			t.Errorf("route %s %s scope = %q, want %q", r.Method, r.Path, r.Scope, keys.ScopeWebhooks)
		}
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("route %s auth = %v (registered %v), want %v (spec Auth column)", k, g, ok, w)
		}
	}
}
