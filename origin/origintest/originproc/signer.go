package originproc

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"
)

// Signer is an account on a running origin with a signing key and an API
// key (default scopes), as a test that signs through the HTTP API needs.
type Signer struct {
	// Token is the account's session JWT.
	Token string
	// KeyID is the signing key's id, for ?signing_key_id=.
	KeyID string
	// APIKey is the API key's secret.
	APIKey string
}

// NewSigner registers an account of organisation org under email on the
// origin at base (a news organisation with a fixed test password) and
// creates its signing key and API key, failing t unless each step
// answers 201.
func NewSigner(t testing.TB, base, email, org string) Signer {
	t.Helper()
	c := &http.Client{Timeout: time.Minute}
	call := func(path, token string, body any) map[string]any {
		t.Helper()
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		req, err := http.NewRequest("POST", base+path, bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("POST %s: %v", path, err)
		}
		defer resp.Body.Close()
		rb, _ := io.ReadAll(resp.Body)
		var m map[string]any
		if resp.StatusCode != http.StatusCreated || json.Unmarshal(rb, &m) != nil {
			t.Fatalf("POST %s: %d %s", path, resp.StatusCode, rb)
		}
		return m
	}
	reg := call("/api/v1/auth/register", "", map[string]string{
		"email": email, "password": "correct horse battery staple", "org_name": org, "org_type": "news_org"})
	var s Signer
	s.Token, _ = reg["access_token"].(string)
	key := call("/api/v1/keys/signing-keys", s.Token, map[string]string{"name": org + " desk", "origin_type": "camera_image"})
	s.KeyID, _ = key["id"].(string)
	api := call("/api/v1/keys/api-keys", s.Token, map[string]any{"name": "test"})
	s.APIKey, _ = api["key"].(string)
	return s
}
