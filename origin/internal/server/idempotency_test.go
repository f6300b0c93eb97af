package server

import (
	"bytes"
	"encoding/json"
	"github.com/provenant/provenant/internal/formdata"
	"strings"
	"sync"
	"testing"
	"time"
)

// idemSign sends a sign request with an Idempotency-Key (none when key is
// empty), building a fresh multipart body (a new random boundary) each
// time, as a client retry does.
func (ts *testServer) idemSign(s signer, key string, pic []byte, fields map[string]string) response {
	ts.t.Helper()
	return ts.mustSend(signForm(s, key, pic, fields))
}

// signForm is a sign of pic with the form fields by s's API key under the
// idempotency key.
func signForm(s signer, key string, pic []byte, fields map[string]string) idemRequest {
	body, ct := formdata.File("file", "pic.jpg", pic, fields)
	return idemRequest{path: "/api/v1/sign?signing_key_id=" + s.keyID, token: s.apiKey, key: key,
		contentType: ct, body: body}
}

// idemJSON posts a JSON body with an Idempotency-Key.
func (ts *testServer) idemJSON(path, token, key string, body any) response {
	ts.t.Helper()
	return ts.mustSend(jsonRequest(path, token, key, body))
}

// mustSend sends r to this origin and fails the test on a transport error.
func (ts *testServer) mustSend(r idemRequest) response {
	ts.t.Helper()
	resp, err := r.send(ts.base)
	if err != nil {
		ts.t.Fatal(err)
	}
	return resp
}

func (ts *testServer) recordCount(s signer) int {
	ts.t.Helper()
	r := ts.do("GET", "/api/v1/content-records?limit=100", s.apiKey, nil)
	ts.mustStatus(r, 200, "list records")
	var p struct {
		Items []any `json:"items"`
	}
	_ = json.Unmarshal(r.body, &p)
	return len(p.Items)
}

// TestIdempotentSign: a retried sign with the same Idempotency-Key gets
// the same stored response (same record, one record stored), even encoded
// with another multipart boundary and after a restart; another request
// under the same key is refused; other credentials have their own keys;
// keys expire after 24 hours.
func TestIdempotentSign(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir, nil)
	s := ts.newSigner("idem@example.com")
	pic := photo(t, 71, 384, 288)

	first := ts.idemSign(s, "4f1c2a9e-sign-1", pic, nil)
	ts.mustStatus(first, 201, "first sign")
	again := ts.idemSign(s, "4f1c2a9e-sign-1", pic, nil)
	ts.mustStatus(again, 201, "retried sign")
	if !bytes.Equal(first.body, again.body) || again.header.Get("Idempotent-Replayed") != "true" || again.header.Get("Location") != first.header.Get("Location") {
		t.Fatalf("retry answered %s (replayed %q), want the first response %s", again.body, again.header.Get("Idempotent-Replayed"), first.body)
	}
	if first.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("first response marked replayed")
	}
	if n := ts.recordCount(s); n != 1 {
		t.Fatalf("%d records after a retried sign, want 1", n)
	}

	r := ts.idemSign(s, "4f1c2a9e-sign-1", photo(t, 72, 384, 288), nil)
	if r.status != 422 || r.problemCode(t) != "idempotency_key_reused" {
		t.Errorf("same key, other file: %d %s, want 422 idempotency_key_reused", r.status, r.body)
	}
	r = ts.idemSign(s, "4f1c2a9e-sign-1", pic, map[string]string{"return_file": "true"})
	if r.status != 422 || r.problemCode(t) != "idempotency_key_reused" {
		t.Errorf("same key, other form field: %d %s, want 422 idempotency_key_reused", r.status, r.body)
	}
	for _, bad := range []string{strings.Repeat("k", 256), "has space", "tab\tkey", "ünïcode"} {
		r := ts.idemJSON("/api/v1/register", s.apiKey, bad, map[string]any{})
		if r.status != 400 || r.problemCode(t) != "invalid_idempotency_key" {
			t.Errorf("Idempotency-Key %q: %d %s, want 400 invalid_idempotency_key", bad, r.status, r.body)
		}
	}

	// A signed file answered inline replays byte for byte (a large one is
	// replayed from the kept file rather than stored twice).
	big := photo(t, 75, 1400, 1000)
	f1 := ts.idemSign(s, "file-key-1", big, map[string]string{"return_file": "true"})
	ts.mustStatus(f1, 201, "sign with return_file")
	f2 := ts.idemSign(s, "file-key-1", big, map[string]string{"return_file": "true"})
	if f2.status != 201 || !bytes.Equal(f1.body, f2.body) || f2.header.Get("X-Record-Id") != f1.header.Get("X-Record-Id") ||
		f2.header.Get("Content-Type") != "image/jpeg" || f2.header.Get("Content-Disposition") != f1.header.Get("Content-Disposition") {
		t.Errorf("replayed signed file: %d, %d bytes, record %q; want the %d bytes of record %q with the same headers",
			f2.status, len(f2.body), f2.header.Get("X-Record-Id"), len(f1.body), f1.header.Get("X-Record-Id"))
	}
	if len(f1.body) <= 256<<10 {
		t.Errorf("signed file of %d bytes does not exercise the replay from the kept file", len(f1.body))
	}

	// Another credential of the same account has its own key space.
	otherKey, _ := ts.createAPIKey(s.token, map[string]any{"name": "second"})
	s2 := s
	s2.apiKey = otherKey
	r = ts.idemSign(s2, "4f1c2a9e-sign-1", photo(t, 73, 384, 288), nil)
	ts.mustStatus(r, 201, "same key under another API key")

	// After a restart the stored response is still replayed.
	ts.stop()
	ts2 := startServer(t, dir, ts.clock)
	after := ts2.idemSign(s, "4f1c2a9e-sign-1", pic, nil)
	if after.status != 201 || !bytes.Equal(after.body, first.body) {
		t.Fatalf("after restart: %d %s, want the first response", after.status, after.body)
	}

	// 24 hours later the key is forgotten: the same request signs anew.
	ts.clock.Advance(24*time.Hour + time.Minute)
	late := ts2.idemSign(s, "4f1c2a9e-sign-1", pic, nil)
	ts2.mustStatus(late, 201, "sign with an expired key")
	if late.header.Get("Idempotent-Replayed") != "" || bytes.Equal(late.body, first.body) {
		t.Errorf("an expired key was replayed")
	}
	if again := ts2.idemSign(s, "4f1c2a9e-sign-1", pic, nil); !bytes.Equal(again.body, late.body) || again.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("the key reused after expiry is not replayed: %d %s", again.status, again.body)
	}
}

// TestIdempotentConcurrentDuplicates: duplicates sent at the same time
// wait for the first and all get its response; one record is stored.
func TestIdempotentConcurrentDuplicates(t *testing.T) {
	ts := startServer(t, "", nil)
	s := ts.newSigner("idem-conc@example.com")
	pic := photo(t, 74, 640, 480)
	const n = 6
	out := make([]response, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { out[i] = ts.idemSign(s, "concurrent-key-1", pic, nil) })
	}
	wg.Wait()
	replayed := 0
	for i, r := range out {
		if r.status != 201 || !bytes.Equal(r.body, out[0].body) {
			t.Errorf("duplicate %d: %d %s, want 201 and the same response as the others", i, r.status, r.body)
		}
		if r.header.Get("Idempotent-Replayed") == "true" {
			replayed++
		}
	}
	if replayed != n-1 {
		t.Errorf("%d of %d duplicates replayed, want %d", replayed, n, n-1)
	}
	if c := ts.recordCount(s); c != 1 {
		t.Errorf("%d records from %d concurrent duplicates, want 1", c, n)
	}
}

// TestIdempotentCreations: register, API-key, signing-key and webhook
// creation replay their first response (the same new API key, the same
// webhook secret) instead of creating twice.
func TestIdempotentCreations(t *testing.T) {
	ts := startServer(t, "", nil, func(c *Config, _ *deps) { c.Webhooks = loopbackWebhooks() })
	s := ts.newSigner("idem-create@example.com")
	for _, tc := range []struct {
		path, token string
		body        any
		list        string
	}{
		{"/api/v1/keys/api-keys", s.token, map[string]any{"name": "ci", "scopes": []string{"read"}}, "/api/v1/keys/api-keys"},
		{"/api/v1/keys/signing-keys", s.token, map[string]any{"name": "Cam", "origin_type": "camera_image"}, "/api/v1/keys/signing-keys"},
		{"/api/v1/webhooks", s.apiKey, map[string]any{"url": "http://127.0.0.1:9/hook"}, "/api/v1/webhooks"},
	} {
		before := len(ts.do("GET", tc.list, tc.token, nil).json(t)["items"].([]any))
		a := ts.idemJSON(tc.path, tc.token, "create-"+tc.path, tc.body)
		b := ts.idemJSON(tc.path, tc.token, "create-"+tc.path, tc.body)
		if a.status != 201 || b.status != 201 || !bytes.Equal(a.body, b.body) || b.header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("%s: %d %s then %d %s, want the same 201 twice", tc.path, a.status, a.body, b.status, b.body)
		}
		after := len(ts.do("GET", tc.list, tc.token, nil).json(t)["items"].([]any))
		if after != before+1 {
			t.Errorf("%s: %d created by a retried request, want 1", tc.path, after-before)
		}
		c := ts.idemJSON(tc.path, tc.token, "create-"+tc.path, map[string]any{"name": "other"})
		if c.status != 422 || c.problemCode(t) != "idempotency_key_reused" {
			t.Errorf("%s: other body under the same key: %d %s", tc.path, c.status, c.body)
		}
	}
}
