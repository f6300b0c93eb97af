package server

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/provenant/provenant/origin/internal/mail"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/testkit"
)

func TestRegisterLoginMe(t *testing.T) {
	ts := startServer(t, "", nil)
	acct := ts.register("  Alice@Example.COM ", "correct horse battery")

	r := ts.do("GET", "/api/v1/auth/me", acct.token, nil)
	ts.mustStatus(r, 200, "me with register token")
	me := r.json(t)
	if got, want := me["email"], "alice@example.com"; got != want {
		t.Errorf("me.email = %v, want %v (normalised)", got, want)
	}
	if got := me["id"]; got != acct.id {
		t.Errorf("me.id = %v, want %v", got, acct.id)
	}
	if _, ok := me["password"]; ok {
		t.Errorf("me exposes a password member: %s", r.body)
	}
	if strings.Contains(string(r.body), "argon2id") {
		t.Errorf("me exposes the password hash: %s", r.body)
	}

	r = ts.do("POST", "/api/v1/auth/login", "", map[string]string{"email": "ALICE@example.com", "password": "correct horse battery"})
	ts.mustStatus(r, 200, "login")
	login := r.json(t)
	if got := login["token_type"]; got != "bearer" {
		t.Errorf("token_type = %v, want bearer", got)
	}
	tok, _ := login["access_token"].(string)
	r = ts.do("GET", "/api/v1/auth/me", tok, nil)
	ts.mustStatus(r, 200, "me with login token")
	if got := r.json(t)["id"]; got != acct.id {
		t.Errorf("me.id after login = %v, want %v", got, acct.id)
	}

	r = ts.do("GET", "/api/v1/auth/me", "", nil)
	if r.status != 401 || r.problemCode(t) != "unauthenticated" {
		t.Errorf("me without token: %d %s, want 401 unauthenticated", r.status, r.body)
	}
}

// withKey returns a copy of m with k set to v, or without k when v is nil;
// m is not modified.
func withKey[M ~map[string]any](m M, k string, v any) M {
	out := make(M, len(m)+1)
	maps.Copy(out, m)
	if v == nil {
		delete(out, k)
	} else {
		out[k] = v
	}
	return out
}

func TestRegisterValidation(t *testing.T) {
	ts := startServer(t, "", nil)
	valid := map[string]any{"email": "v@example.com", "password": "long enough pw", "org_name": "Org", "org_type": "individual"}
	with := func(k string, v any) map[string]any { return withKey(valid, k, v) }
	tests := []struct {
		name      string
		body      any
		wantCode  string
		wantField string
	}{
		{"missing email", with("email", nil), "validation_failed", "email"},
		{"bad email", with("email", "not-an-email"), "validation_failed", "email"},
		{"display name email", with("email", "Bob <b@example.com>"), "validation_failed", "email"},
		{"short password", with("password", "short"), "validation_failed", "password"},
		{"missing org_name", with("org_name", nil), "validation_failed", "org_name"},
		{"bad org_type", with("org_type", "pirate"), "validation_failed", "org_type"},
		{"missing org_type", with("org_type", nil), "validation_failed", "org_type"},
		{"wrong type", with("password", 12345678), "validation_failed", "password"},
		{"unknown field", with("admin", true), "unknown_field", "admin"},
		{"not json", "{", "malformed_json", ""},
		{"array", "[]", "malformed_json", ""},
		{"two objects", `{"email":"a@b.co"}{}`, "malformed_json", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := ts.do("POST", "/api/v1/auth/register", "", tc.body)
			if r.status != 400 {
				t.Fatalf("status = %d, want 400; body %s", r.status, r.body)
			}
			if got := r.problemCode(t); got != tc.wantCode {
				t.Errorf("code = %q, want %q", got, tc.wantCode)
			}
			if got, _ := r.json(t)["field"].(string); got != tc.wantField {
				t.Errorf("field = %q, want %q", got, tc.wantField)
			}
		})
		ts.clock.Advance(6 * time.Second) // stay under the register rate limit
	}
}

func TestDuplicateEmail(t *testing.T) {
	ts := startServer(t, "", nil)
	ts.register("dup@example.com", "first password")
	for _, email := range []string{"dup@example.com", "DUP@Example.com", " dup@example.com"} {
		r := ts.do("POST", "/api/v1/auth/register", "", map[string]string{
			"email": email, "password": "second password", "org_name": "B", "org_type": "enterprise"})
		if r.status != 409 {
			t.Fatalf("register %q again: status %d, want 409; body %s", email, r.status, r.body)
		}
		if got := r.problemCode(t); got != "email_taken" {
			t.Errorf("register %q again: code %q, want email_taken", email, got)
		}
	}
}

func TestLoginFailures(t *testing.T) {
	ts := startServer(t, "", nil)
	ts.register("bob@example.com", "the right password")
	tests := []struct{ name, email, password string }{
		{"wrong password", "bob@example.com", "the wrong password"},
		{"unknown email", "nobody@example.com", "the right password"},
		{"malformed email", "bob", "the right password"},
	}
	var bodies []string
	for _, tc := range tests {
		r := ts.do("POST", "/api/v1/auth/login", "", map[string]string{"email": tc.email, "password": tc.password})
		if r.status != 401 {
			t.Fatalf("%s: status %d, want 401", tc.name, r.status)
		}
		if got := r.problemCode(t); got != "invalid_credentials" {
			t.Errorf("%s: code %q, want invalid_credentials", tc.name, got)
		}
		// request_id differs per request by design; everything else must not.
		m := r.json(t)
		if id, _ := m["request_id"].(string); id != r.header.Get("X-Request-Id") {
			t.Errorf("%s: request_id %q, want the X-Request-Id header %q", tc.name, id, r.header.Get("X-Request-Id"))
		}
		delete(m, "request_id")
		b, _ := json.Marshal(m)
		bodies = append(bodies, string(b))
	}
	for i := 1; i < len(bodies); i++ {
		if bodies[i] != bodies[0] {
			t.Errorf("login failure bodies differ (account enumeration): %q vs %q", bodies[0], bodies[i])
		}
	}
}

// jwtParts splits a token and decodes its header and claims.
func jwtParts(t *testing.T, tok string) (header, claims map[string]any) {
	t.Helper()
	p := strings.Split(tok, ".")
	if len(p) != 3 {
		t.Fatalf("token has %d parts", len(p))
	}
	for i, dst := range []*map[string]any{&header, &claims} {
		b, err := base64.RawURLEncoding.DecodeString(p[i])
		if err != nil {
			t.Fatalf("decode part %d: %v", i, err)
		}
		if err := json.Unmarshal(b, dst); err != nil {
			t.Fatalf("unmarshal part %d: %v", i, err)
		}
	}
	return header, claims
}

func TestJWTRejected(t *testing.T) {
	ts := startServer(t, "", nil)
	acct := ts.register("jwt@example.com", "password for jwt")
	header, claims := jwtParts(t, acct.token)
	for _, c := range []string{"exp", "iat", "sub", "iss"} {
		if _, ok := claims[c]; !ok {
			t.Errorf("issued token lacks claim %q: %v", c, claims)
		}
	}
	if header["alg"] != "EdDSA" || header["kid"] == nil {
		t.Errorf("issued token header = %v, want alg EdDSA and a kid", header)
	}
	kid, _ := header["kid"].(string)
	mapClaims := jwt.MapClaims(claims)

	_, otherKey, _ := ed25519.GenerateKey(rand.Reader)
	parts := strings.Split(acct.token, ".")
	tamperedClaims := base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(
		mustDecode(t, parts[1]), acct.id, "00000000-0000-4000-8000-000000000000", 1)))
	noneHeader := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT","kid":"` + kid + `"}`))

	tests := []struct{ name, token string }{
		{"tampered payload", parts[0] + "." + tamperedClaims + "." + parts[2]},
		{"tampered signature", parts[0] + "." + parts[1] + "." + strings.Repeat("A", len(parts[2]))},
		{"alg none", noneHeader + "." + parts[1] + "."},
		{"alg none via library", testkit.SignJWT(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, mapClaims, kid)},
		{"other Ed25519 key, same kid", testkit.SignJWT(t, jwt.SigningMethodEdDSA, otherKey, mapClaims, kid)},
		{"HS256 with public kid as secret", testkit.SignJWT(t, jwt.SigningMethodHS256, []byte(kid), mapClaims, kid)},
		{"HS256 random secret", testkit.SignJWT(t, jwt.SigningMethodHS256, []byte("0123456789abcdef0123456789abcdef"), mapClaims, kid)},
		{"no exp", testkit.SignJWT(t, jwt.SigningMethodEdDSA, otherKey, withKey(mapClaims, "exp", nil), kid)},
		{"garbage", "not.a.jwt"},
		{"empty-ish", "x"},
		{"huge", strings.Repeat("a.", 5000)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := ts.do("GET", "/api/v1/auth/me", tc.token, nil)
			if r.status != 401 {
				t.Fatalf("status = %d, want 401; body %s", r.status, r.body)
			}
			if code := r.problemCode(t); code != "invalid_token" {
				t.Errorf("code = %q, want invalid_token", code)
			}
		})
	}

	// The genuine token still works; after its lifetime (+ leeway) it does not.
	ts.mustStatus(ts.do("GET", "/api/v1/auth/me", acct.token, nil), 200, "genuine token")
	ts.clock.Advance(time.Hour + 6*time.Second)
	r := ts.do("GET", "/api/v1/auth/me", acct.token, nil)
	if r.status != 401 || r.problemCode(t) != "invalid_token" {
		t.Errorf("expired token: %d %s, want 401 invalid_token", r.status, r.body)
	}
}

func mustDecode(t *testing.T, s string) string {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return string(b)
}

// rawStoreContains opens the closed Badger database directly and reports
// whether any raw key or value contains needle. (Scanning the files is not
// enough: Badger compresses its tables.)
func rawStoreContains(t *testing.T, dataDir string, needle []byte) bool {
	t.Helper()
	st, err := store.Open(store.Config{Dir: filepath.Join(dataDir, dbSubdir)})
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	defer st.Close()
	found := false
	err = st.View(context.Background(), func(tx store.Txn) error {
		return tx.Scan(nil, nil, func(k, v []byte) error {
			if bytes.Contains(k, needle) || bytes.Contains(v, needle) {
				found = true
				return store.ErrStopIteration
			}
			return nil
		})
	})
	if err != nil {
		t.Fatalf("scan store: %v", err)
	}
	return found
}

// filesContain reports whether any regular file under dir contains needle.
func filesContain(t *testing.T, dir string, needle []byte) bool {
	t.Helper()
	found := false
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || found {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		found = bytes.Contains(b, needle)
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", dir, err)
	}
	return found
}

func TestAPIKeyShownOnceHashedAtRestRevoked(t *testing.T) {
	ts := startServer(t, "", nil)
	acct := ts.register("keys@example.com", "password for keys")
	const marker = "marker-name-5b1f0c"
	key, id := ts.createAPIKey(acct.token, map[string]any{"name": marker, "scopes": []string{"sign", "read"}})
	if len(key) < 4+43 {
		t.Errorf("API key length %d, want >= %d", len(key), 4+43)
	}

	r := ts.do("GET", "/api/v1/keys/api-keys", acct.token, nil)
	ts.mustStatus(r, 200, "list API keys")
	if strings.Contains(string(r.body), key) {
		t.Errorf("list response contains the key text")
	}
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(r.body, &list); err != nil || len(list.Items) != 1 || list.Items[0]["id"] != id {
		t.Fatalf("list = %s, want one item with id %s", r.body, id)
	}

	r = ts.do("GET", "/test/api-key-only", key, nil)
	ts.mustStatus(r, 200, "use API key")
	if got := r.json(t)["account_id"]; got != acct.id {
		t.Errorf("principal account = %v, want %v", got, acct.id)
	}

	// While the server runs, the write-ahead (memtable) files hold the
	// latest writes uncompressed: the key text must not be in any file.
	if !filesContain(t, ts.dataDir, []byte(marker)) {
		t.Fatalf("file scan cannot find the key name %q: the scan is not reading the data", marker)
	}
	if filesContain(t, ts.dataDir, []byte(key[4:])) {
		t.Errorf("API key text found in a file of the data dir")
	}
	// After a clean close, read every raw key and value.
	ts.stop()
	if !rawStoreContains(t, ts.dataDir, []byte(marker)) {
		t.Fatalf("raw store scan cannot find the key name %q: the scan is not reading the values", marker)
	}
	if rawStoreContains(t, ts.dataDir, []byte(key[4:])) {
		t.Errorf("API key text found in a raw store value")
	}
	if !rawStoreContains(t, ts.dataDir, []byte(sha256Hex([]byte(key)))) {
		t.Errorf("SHA-256 of the API key not found at rest; how is it looked up?")
	}

	ts = startServer(t, ts.dataDir, ts.clock)
	ts.mustStatus(ts.do("GET", "/test/api-key-only", key, nil), 200, "API key after restart")
	ts.mustStatus(ts.do("DELETE", "/api/v1/keys/api-keys/"+id, acct.token, nil), 204, "revoke")
	r = ts.do("GET", "/test/api-key-only", key, nil)
	if r.status != 401 || r.problemCode(t) != "invalid_api_key" {
		t.Errorf("revoked key: %d %s, want 401 invalid_api_key", r.status, r.body)
	}
	r = ts.do("GET", "/api/v1/keys/api-keys", acct.token, nil)
	if !strings.Contains(string(r.body), `"revoked_at":"`) {
		t.Errorf("list after revoke lacks revoked_at: %s", r.body)
	}
	// Another account cannot see or revoke the key.
	ts.clock.Advance(time.Minute)
	other := ts.register("other@example.com", "password other")
	r = ts.do("DELETE", "/api/v1/keys/api-keys/"+id, other.token, nil)
	if r.status != 404 || r.problemCode(t) != "not_found" {
		t.Errorf("revoke other's key: %d %s, want 404 not_found", r.status, r.body)
	}
}

func TestAPIKeyFormatAndTypos(t *testing.T) {
	ts := startServer(t, "", nil)
	acct := ts.register("typo@example.com", "password typo")
	key, _ := ts.createAPIKey(acct.token, map[string]any{"name": "k"})
	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == 'a' {
			b[i] = 'b'
		} else {
			b[i] = 'a'
		}
		return string(b)
	}
	for name, bad := range map[string]string{
		"typo in random part": flip(key, 10),
		"typo in checksum":    flip(key, len(key)-1),
		"truncated":           key[:len(key)-1],
		"prefix only":         "iai_",
		"well-formed unknown": "iai_" + strings.Repeat("0", 43) + "000000",
	} {
		r := ts.do("GET", "/test/api-key-only", bad, nil)
		if r.status != 401 || r.problemCode(t) != "invalid_api_key" {
			t.Errorf("%s: %d %s, want 401 invalid_api_key", name, r.status, r.body)
		}
	}
}

func TestCredentialKindPerRoute(t *testing.T) {
	ts := startServer(t, "", nil)
	acct := ts.register("kind@example.com", "password kind")
	key, keyID := ts.createAPIKey(acct.token, map[string]any{"name": "read-only", "scopes": []string{"read"}})
	tests := []struct {
		name, path, token string
		wantStatus        int
		wantCode          string
	}{
		{"JWT-only route refuses API key", "/api/v1/auth/me", key, 401, "credential_kind_not_allowed"},
		{"JWT-only key management refuses API key", "/api/v1/keys/api-keys", key, 401, "credential_kind_not_allowed"},
		{"API-key-only route refuses JWT", "/test/api-key-only", acct.token, 401, "credential_kind_not_allowed"},
		{"API-key-only route accepts API key", "/test/api-key-only", key, 200, ""},
		{"either accepts JWT", "/test/either", acct.token, 200, ""},
		{"either accepts API key", "/test/either", key, 200, ""},
		{"route scope missing on API key", "/test/needs-sign", key, 403, "insufficient_scope"},
		{"route scope implied for JWT", "/test/needs-sign", acct.token, 200, ""},
		{"handler scope missing", "/test/needs-webhooks", key, 403, "insufficient_scope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := ts.do("GET", tc.path, tc.token, nil)
			if r.status != tc.wantStatus {
				t.Fatalf("status = %d, want %d; body %s", r.status, tc.wantStatus, r.body)
			}
			if tc.wantCode != "" {
				if got := r.problemCode(t); got != tc.wantCode {
					t.Errorf("code = %q, want %q", got, tc.wantCode)
				}
			}
		})
	}
	r := ts.do("GET", "/test/either", key, nil)
	m := r.json(t)
	if m["kind"] != "api_key" || m["api_key_id"] != keyID {
		t.Errorf("API key principal = %v, want kind api_key and id %s", m, keyID)
	}
}

var policyRE = regexp.MustCompile(`^"register";r=(\d+);t=(\d+)$`)

func TestRegisterRateLimit(t *testing.T) {
	ts := startServer(t, "", nil)
	for i := range 10 {
		r := ts.do("POST", "/api/v1/auth/register", "", map[string]string{
			"email": "u" + string(rune('a'+i)) + "@example.com", "password": "password rl", "org_name": "O", "org_type": "individual"})
		ts.mustStatus(r, 201, "register within limit")
		if got, want := r.header.Get("RateLimit-Policy"), `"register";q=10;w=60`; got != want {
			t.Errorf("RateLimit-Policy = %q, want %q", got, want)
		}
		m := policyRE.FindStringSubmatch(r.header.Get("RateLimit"))
		if m == nil || m[1] != itoa(9-i) {
			t.Errorf("request %d: RateLimit = %q, want r=%d", i+1, r.header.Get("RateLimit"), 9-i)
		}
	}
	r := ts.do("POST", "/api/v1/auth/register", "", map[string]string{
		"email": "eleventh@example.com", "password": "password rl", "org_name": "O", "org_type": "individual"})
	if r.status != 429 {
		t.Fatalf("11th register: status %d, want 429; body %s", r.status, r.body)
	}
	if got := r.problemCode(t); got != "rate_limited" {
		t.Errorf("11th register code = %q, want rate_limited", got)
	}
	m := r.json(t)
	if m["type"] != "https://iana.org/assignments/http-problem-types#quota-exceeded" {
		t.Errorf("problem type = %v, want quota-exceeded", m["type"])
	}
	if vp, _ := m["violated-policies"].([]any); len(vp) != 1 || vp[0] != "register" {
		t.Errorf("violated-policies = %v, want [register]", m["violated-policies"])
	}
	if got := r.header.Get("Retry-After"); got != "60" {
		t.Errorf("Retry-After = %q, want 60 (until the first register leaves the window)", got)
	}
	if got, want := r.header.Get("RateLimit"), `"register";r=0;t=60`; got != want {
		t.Errorf("RateLimit = %q, want %q", got, want)
	}
	if got := r.header.Get("RateLimit-Policy"); got == "" {
		t.Errorf("429 lacks RateLimit-Policy")
	}
	// The refused request created nothing.
	ts.clock.Advance(time.Minute)
	r = ts.do("POST", "/api/v1/auth/register", "", map[string]string{
		"email": "eleventh@example.com", "password": "password rl", "org_name": "O", "org_type": "individual"})
	ts.mustStatus(r, 201, "register after Retry-After")
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// waitOutbox polls the outbox until it holds n mails or a deadline passes.
// The deadline is generous: it only runs out when a mail is missing, and
// a background hand-over on a loaded machine under the race detector can
// take seconds.
func waitOutbox(t *testing.T, dir string, n int) []mail.OutboxFile {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		msgs, err := mail.ReadOutbox(dir)
		if err != nil {
			t.Fatalf("ReadOutbox: %v", err)
		}
		if len(msgs) >= n || time.Now().After(deadline) {
			return msgs
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var resetTokenRE = regexp.MustCompile(`Reset token: ([A-Za-z0-9_-]+)`)

func TestForgotAndResetPassword(t *testing.T) {
	ts := startServer(t, "", nil)
	acct := ts.register("reset@example.com", "old password 1")
	outbox := filepath.Join(ts.dataDir, outboxSubdir)

	known := ts.do("POST", "/api/v1/auth/forgot-password", "", map[string]string{"email": "Reset@example.com"})
	unknown := ts.do("POST", "/api/v1/auth/forgot-password", "", map[string]string{"email": "ghost@example.com"})
	if known.status != 202 || known.status != unknown.status || string(known.body) != string(unknown.body) {
		t.Errorf("forgot-password differs: known %d %s, unknown %d %s", known.status, known.body, unknown.status, unknown.body)
	}
	if unknown.status != 202 {
		t.Errorf("forgot-password unknown email: status %d, want 202", unknown.status)
	}
	// Mails are handed over in the background; that no mail goes to the
	// unknown address is checked at the end, after Shutdown has waited for
	// every hand-over.
	msgs := waitOutbox(t, outbox, 1)
	if len(msgs) != 1 {
		t.Fatalf("outbox holds %d mails, want exactly 1", len(msgs))
	}
	if msgs[0].To != "reset@example.com" {
		t.Errorf("mail to %q, want reset@example.com", msgs[0].To)
	}
	m := resetTokenRE.FindStringSubmatch(msgs[0].Body)
	if m == nil {
		t.Fatalf("mail body has no reset token: %q", msgs[0].Body)
	}
	token := m[1]
	if filesContain(t, filepath.Join(ts.dataDir, dbSubdir), []byte(token)) {
		t.Errorf("reset token stored in clear")
	}

	ts.clock.Advance(2 * time.Second)
	r := ts.do("POST", "/api/v1/auth/reset-password", "", map[string]string{"token": token, "password": "new password 2"})
	ts.mustStatus(r, 200, "reset")

	r = ts.do("POST", "/api/v1/auth/reset-password", "", map[string]string{"token": token, "password": "new password 3"})
	if r.status != 400 || r.problemCode(t) != "invalid_reset_token" {
		t.Errorf("reused token: %d %s, want 400 invalid_reset_token", r.status, r.body)
	}
	r = ts.do("GET", "/api/v1/auth/me", acct.token, nil)
	if r.status != 401 || r.problemCode(t) != "invalid_token" {
		t.Errorf("JWT from before the reset: %d %s, want 401 invalid_token", r.status, r.body)
	}
	ts.clock.Advance(2 * time.Second)
	r = ts.do("POST", "/api/v1/auth/login", "", map[string]string{"email": acct.email, "password": "old password 1"})
	ts.mustStatus(r, 401, "login with old password")
	r = ts.do("POST", "/api/v1/auth/login", "", map[string]string{"email": acct.email, "password": "new password 2"})
	ts.mustStatus(r, 200, "login with new password")
	newTok, _ := r.json(t)["access_token"].(string)
	ts.mustStatus(ts.do("GET", "/api/v1/auth/me", newTok, nil), 200, "me with post-reset token")

	// A second token expires after 30 minutes.
	ts.clock.Advance(time.Minute)
	ts.mustStatus(ts.do("POST", "/api/v1/auth/forgot-password", "", map[string]string{"email": acct.email}), 202, "forgot again")
	msgs = waitOutbox(t, outbox, 2)
	if len(msgs) != 2 {
		t.Fatalf("outbox holds %d mails, want 2", len(msgs))
	}
	var second string
	for _, msg := range msgs {
		if mm := resetTokenRE.FindStringSubmatch(msg.Body); mm != nil && mm[1] != token {
			second = mm[1]
		}
	}
	ts.clock.Advance(30*time.Minute + time.Second)
	r = ts.do("POST", "/api/v1/auth/reset-password", "", map[string]string{"token": second, "password": "new password 4"})
	if r.status != 400 || r.problemCode(t) != "invalid_reset_token" {
		t.Errorf("expired token: %d %s, want 400 invalid_reset_token", r.status, r.body)
	}
	r = ts.do("POST", "/api/v1/auth/reset-password", "", map[string]string{"token": "made-up", "password": "new password 5"})
	if r.status != 400 || r.problemCode(t) != "invalid_reset_token" {
		t.Errorf("unknown token: %d %s, want 400 invalid_reset_token", r.status, r.body)
	}

	// Shutdown waits for mails still being handed to the Mailer, so the
	// outbox is final: the two resets asked for, none for ghost@.
	ts.stop()
	msgs, err := mail.ReadOutbox(outbox)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 {
		t.Errorf("outbox holds %d mails after shutdown, want 2", len(msgs))
	}
	for _, m := range msgs {
		if m.To != "reset@example.com" {
			t.Errorf("mail sent to %q, want only reset@example.com", m.To)
		}
	}
}

func TestRestartKeepsState(t *testing.T) {
	ts := startServer(t, "", nil)
	acct := ts.register("persist@example.com", "password persist")
	key, _ := ts.createAPIKey(acct.token, map[string]any{"name": "persisted"})
	r := ts.do("POST", "/api/v1/keys/signing-keys", acct.token, map[string]string{
		"name": "camera 1", "origin_type": "camera_image", "device_id": "cam-001", "device_info": "Test camera"})
	ts.mustStatus(r, 201, "create signing key")
	sk := r.json(t)
	skID, _ := sk["id"].(string)
	pubHex, _ := sk["public_key_hex"].(string)
	dataDir, fake := ts.dataDir, ts.clock
	ts.stop()

	ts = startServer(t, dataDir, fake)
	ts.mustStatus(ts.do("GET", "/api/v1/auth/me", acct.token, nil), 200, "JWT from before the restart")
	ts.mustStatus(ts.do("POST", "/api/v1/auth/login", "", map[string]string{"email": acct.email, "password": acct.password}), 200, "login after restart")
	ts.mustStatus(ts.do("GET", "/test/api-key-only", key, nil), 200, "API key after restart")
	r = ts.do("GET", "/api/v1/keys/signing-keys", acct.token, nil)
	ts.mustStatus(r, 200, "list signing keys after restart")
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(r.body, &list); err != nil || len(list.Items) != 1 {
		t.Fatalf("signing keys after restart = %s, want one", r.body)
	}
	if list.Items[0]["id"] != skID || list.Items[0]["public_key_hex"] != pubHex || list.Items[0]["device_info"] != "Test camera" {
		t.Errorf("signing key after restart = %v, want id %s pub %s", list.Items[0], skID, pubHex)
	}
	// The sealed private key still opens and signs with the advertised key.
	msg := []byte("content record bytes")
	sig, meta, err := ts.srv.keys.Sign(context.Background(), acct.id, skID, msg)
	if err != nil {
		t.Fatalf("Sign after restart: %v", err)
	}
	pub, _ := hex.DecodeString(pubHex)
	if !ed25519.Verify(pub, msg, sig) || meta.ID != skID {
		t.Errorf("signature after restart does not verify with public_key_hex")
	}
	if _, _, err := ts.srv.keys.Sign(context.Background(), "someone-else", skID, msg); err == nil {
		t.Errorf("Sign with another owner's key succeeded")
	}
}

func TestSecretsNeverLogged(t *testing.T) {
	ts := startServer(t, "", nil)
	const pw1, pw2 = "first secret password", "second secret password"
	acct := ts.register("logs@example.com", pw1)
	ts.mustStatus(ts.do("POST", "/api/v1/auth/login", "", map[string]string{"email": acct.email, "password": pw1}), 200, "login")
	ts.do("POST", "/api/v1/auth/login", "", map[string]string{"email": acct.email, "password": "wrong " + pw1})
	key, id := ts.createAPIKey(acct.token, map[string]any{"name": "log test"})
	ts.mustStatus(ts.do("GET", "/test/either", key, nil), 200, "use key")
	// A wrong key, its last character changed whatever it was (a fixed
	// "x" would leave one key in 62 unchanged, and that use succeed).
	wrong := key[:len(key)-1] + "x"
	if key[len(key)-1] == 'x' {
		wrong = key[:len(key)-1] + "y"
	}
	ts.mustStatus(ts.do("GET", "/test/either", wrong, nil), 401, "wrong key")
	r := ts.do("POST", "/api/v1/keys/signing-keys", acct.token, map[string]string{"name": "s", "origin_type": "screenshot"})
	ts.mustStatus(r, 201, "signing key")
	skID, _ := r.json(t)["id"].(string)
	if _, _, err := ts.srv.keys.Sign(context.Background(), acct.id, skID, []byte("x")); err != nil {
		t.Fatalf("Sign: %v", err)
	}
	ts.do("POST", "/api/v1/auth/forgot-password", "", map[string]string{"email": acct.email})
	msgs := waitOutbox(t, filepath.Join(ts.dataDir, outboxSubdir), 1)
	if len(msgs) != 1 {
		t.Fatalf("want one reset mail, got %d", len(msgs))
	}
	token := resetTokenRE.FindStringSubmatch(msgs[0].Body)[1]
	ts.clock.Advance(2 * time.Second)
	ts.mustStatus(ts.do("POST", "/api/v1/auth/reset-password", "", map[string]string{"token": token, "password": pw2}), 200, "reset")
	ts.clock.Advance(2 * time.Second)
	r = ts.do("POST", "/api/v1/auth/login", "", map[string]string{"email": acct.email, "password": pw2})
	ts.mustStatus(r, 200, "login after reset")
	tok2, _ := r.json(t)["access_token"].(string)
	ts.mustStatus(ts.do("DELETE", "/api/v1/keys/api-keys/"+id, tok2, nil), 204, "revoke")
	ts.stop()

	jwtSeed, _ := os.ReadFile(filepath.Join(ts.dataDir, secretsSubdir, jwtKeyFile))
	master, _ := os.ReadFile(filepath.Join(ts.dataDir, secretsSubdir, masterKeyFile))
	logs := ts.logs.String()
	if !strings.Contains(logs, acct.id) {
		t.Fatalf("log capture does not contain the account id; is the logger wired? logs:\n%s", logs)
	}
	secrets := map[string]string{
		"password": pw1, "new password": pw2, "API key": key, "API key body": key[4 : len(key)-6],
		"JWT": acct.token, "second JWT": tok2, "JWT signature": acct.token[strings.LastIndexByte(acct.token, '.')+1:],
		"reset token": token, "JWT seed": strings.TrimSpace(string(jwtSeed)), "master key": strings.TrimSpace(string(master)),
	}
	for name, s := range secrets {
		if len(s) < 8 {
			t.Fatalf("secret %s too short to search for: %q", name, s)
		}
		if strings.Contains(logs, s) {
			t.Errorf("logs contain the %s", name)
		}
	}
}

func TestProblemsForTransportErrors(t *testing.T) {
	ts := startServer(t, "", nil)
	acct := ts.register("limits@example.com", "password limits")
	big := `{"name":"` + strings.Repeat("x", 70<<10) + `"}`
	tests := []struct {
		name, method, path, token string
		body                      any
		contentType               string
		wantStatus                int
		wantCode                  string
	}{
		{"JSON body over cap", "POST", "/api/v1/keys/api-keys", acct.token, big, "application/json", 413, "body_too_large"},
		{"wrong content type", "POST", "/api/v1/keys/api-keys", acct.token, `{"name":"a"}`, "text/plain", 415, "unsupported_media_type"},
		{"unknown route", "GET", "/api/v1/nope", "", nil, "", 404, "not_found"},
		{"wrong method", "PUT", "/api/v1/keys/api-keys", acct.token, nil, "", 405, "method_not_allowed"},
		{"bad limit", "GET", "/api/v1/keys/api-keys?limit=0", acct.token, nil, "", 400, "validation_failed"},
		{"bad cursor", "GET", "/api/v1/keys/signing-keys?cursor=%25%25", acct.token, nil, "", 400, "invalid_cursor"},
		{"bad origin type", "POST", "/api/v1/keys/signing-keys", acct.token, `{"name":"a","origin_type":"x"}`, "application/json", 400, "validation_failed"},
		{"bad scope", "POST", "/api/v1/keys/api-keys", acct.token, `{"name":"a","scopes":["root"]}`, "application/json", 400, "validation_failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r response
			if tc.contentType != "" && tc.contentType != "application/json" {
				r = ts.doRaw(tc.method, tc.path, tc.token, tc.body.(string), tc.contentType)
			} else {
				r = ts.do(tc.method, tc.path, tc.token, tc.body)
			}
			if r.status != tc.wantStatus {
				t.Fatalf("status = %d, want %d; body %s", r.status, tc.wantStatus, r.body)
			}
			if got := r.problemCode(t); got != tc.wantCode {
				t.Errorf("code = %q, want %q", got, tc.wantCode)
			}
		})
	}
}

func TestPublicEndpoints(t *testing.T) {
	ts := startServer(t, "", nil)
	r := ts.do("GET", "/health", "", nil)
	if r.status != 200 || r.json(t)["status"] != "ok" {
		t.Errorf("health = %d %s", r.status, r.body)
	}
	r = ts.do("GET", "/api/v1/origin-types", "", nil)
	ts.mustStatus(r, 200, "origin-types")
	var ot struct {
		Items []struct{ Category, Code, Label string } `json:"items"`
	}
	if err := json.Unmarshal(r.body, &ot); err != nil || len(ot.Items) < 6 {
		t.Fatalf("origin-types = %s", r.body)
	}
	seen := map[string]bool{}
	for _, it := range ot.Items {
		if it.Category == "" || it.Code == "" || it.Label == "" || seen[it.Code] {
			t.Errorf("bad or duplicate origin type %+v", it)
		}
		seen[it.Code] = true
	}
	for _, want := range []string{"camera_image", "ai_generated_image", "ai_generated_video", "screenshot", "scanned_document", "edited_image"} {
		if !seen[want] {
			t.Errorf("origin type %q missing", want)
		}
	}
	r = ts.do("GET", "/api/v1/openapi.json", "", nil)
	ts.mustStatus(r, 200, "openapi")
	if r.json(t)["openapi"] != "3.1.0" {
		t.Errorf("openapi version = %v", r.json(t)["openapi"])
	}
}

func TestPagination(t *testing.T) {
	ts := startServer(t, "", nil)
	acct := ts.register("pages@example.com", "password pages")
	var want []string
	for i := range 5 {
		_, id := ts.createAPIKey(acct.token, map[string]any{"name": "k" + itoa(i)})
		want = append(want, id)
		ts.clock.Advance(time.Millisecond)
	}
	got := ts.pagedIDs("/api/v1/keys/api-keys", acct.token, 2, nil)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("paged ids = %v, want %v (creation order)", got, want)
	}
}

// pagedIDs follows a list's pages of limit items from the first until one
// has no next_cursor, and returns the ids of the items in the order
// served; between, if set, runs after each page. A page of more than
// limit items, an answer other than 200 JSON, or more than 20 pages fail
// the test.
func (ts *testServer) pagedIDs(path, token string, limit int, between func()) []string {
	ts.t.Helper()
	var ids []string
	cursor := ""
	for pages := 0; ; pages++ {
		if pages == 20 {
			ts.t.Fatalf("%s: pagination does not end after %d pages", path, pages)
		}
		r := ts.do("GET", path+"?limit="+itoa(limit)+"&cursor="+cursor, token, nil)
		ts.mustStatus(r, 200, "list page")
		var page struct {
			Items []struct {
				ID string `json:"id"`
			} `json:"items"`
			NextCursor string `json:"next_cursor"`
		}
		if err := json.Unmarshal(r.body, &page); err != nil {
			ts.t.Fatalf("%s: page %s: %v", path, r.body, err)
		}
		if len(page.Items) > limit {
			ts.t.Fatalf("%s: page has %d items, limit %d", path, len(page.Items), limit)
		}
		for _, it := range page.Items {
			ids = append(ids, it.ID)
		}
		if between != nil {
			between()
		}
		if page.NextCursor == "" {
			return ids
		}
		cursor = page.NextCursor
	}
}

func TestBodyOverServerLimit(t *testing.T) {
	ts := startServer(t, "", nil, func(c *Config, _ *deps) { c.MaxRequestBodySize = 4 << 10 })
	r := ts.do("POST", "/api/v1/auth/login", "", `{"email":"`+strings.Repeat("a", 8<<10)+`"}`)
	if r.status != 413 {
		t.Fatalf("status = %d, want 413; body %s", r.status, r.body)
	}
	if got := r.problemCode(t); got != "body_too_large" {
		t.Errorf("code = %q, want body_too_large", got)
	}
}
