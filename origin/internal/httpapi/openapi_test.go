package httpapi

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/provenant/provenant/origin/internal/keys"
)

func newTestAPI(t *testing.T) *API {
	t.Helper()
	return newTestEnv(t, nil).api
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
		// Webhooks: an API key with the webhooks scope, or the web app's
		// cookie session (it manages webhooks); never a Bearer JWT.
		"POST /api/v1/webhooks":                       APIKeyOrSession,
		"GET /api/v1/webhooks":                        APIKeyOrSession,
		"GET /api/v1/webhooks/{id}":                   APIKeyOrSession,
		"PUT /api/v1/webhooks/{id}":                   APIKeyOrSession,
		"DELETE /api/v1/webhooks/{id}":                APIKeyOrSession,
		"POST /api/v1/webhooks/{id}/rotate-secret":    APIKeyOrSession,
		"GET /api/v1/webhooks/{id}/deliveries":        APIKeyOrSession,
		"POST /api/v1/webhooks/deliveries/{id}/retry": APIKeyOrSession,
		// Spec Auth column, content records.
		"POST /api/v1/sign":                            JWTOrAPIKey,
		"POST /api/v1/verify":                          Public,
		"POST /api/v1/register":                        JWTOrAPIKey,
		"GET /api/v1/dashboard/stats":                  JWTOnly,
		"POST /api/v1/sign-batch":                      APIKeyOnly,
		"GET /api/v1/content-records":                  APIKeyOrSession,
		"GET /api/v1/content-records/{id}":             APIKeyOrSession,
		"GET /api/v1/content-records/{id}/certificate": Public,
		"DELETE /api/v1/content-records/{id}":          APIKeyOrSession,
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

// TestOpenAPISecurity: each operation's security requirements in
// openapi.json are those its route's auth mode accepts (the session
// cookie is implied wherever bearerJWT is listed).
func TestOpenAPISecurity(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			Security []map[string][]string `json:"security"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[AuthMode][]string{
		Public:          nil,
		JWTOnly:         {"bearerJWT"},
		APIKeyOnly:      {"bearerAPIKey"},
		JWTOrAPIKey:     {"bearerAPIKey", "bearerJWT"},
		APIKeyOrSession: {"bearerAPIKey", "sessionCookie"},
	}
	for _, r := range newTestAPI(t).Routes() {
		op, ok := doc.Paths[r.Path][strings.ToLower(r.Method)]
		if !ok {
			continue // TestOpenAPICoversRoutes reports it
		}
		var got []string
		for _, req := range op.Security {
			for name := range req {
				got = append(got, name)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want[r.Auth]) {
			t.Errorf("%s %s: openapi security %v, want %v for auth %v", r.Method, r.Path, got, want[r.Auth], r.Auth)
		}
	}
}
