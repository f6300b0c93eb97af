package server

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// problemBody is the part of a problem+json response these tests inspect.
type problemBody struct {
	Code   string `json:"code"`
	Field  string `json:"field"`
	Detail string `json:"detail"`
	Errors []struct {
		Field  string `json:"field"`
		Detail string `json:"detail"`
	} `json:"errors"`
}

func (ts *testServer) problem(r response, wantStatus int, what string) problemBody {
	ts.t.Helper()
	ts.mustStatus(r, wantStatus, what)
	_ = r.problemCode(ts.t) // checks the media type
	var p problemBody
	if err := json.Unmarshal(r.body, &p); err != nil {
		ts.t.Fatalf("%s: problem body %s: %v", what, r.body, err)
	}
	return p
}

func (p problemBody) errorFields() []string {
	var out []string
	for _, e := range p.Errors {
		out = append(out, e.Field)
	}
	return out
}

// TestStrictRequestBodies sends hostile JSON bodies over HTTP and checks
// each is refused with the documented code and field, and that none of
// them changed anything.
func TestStrictRequestBodies(t *testing.T) {
	ts := startServer(t, "", nil)
	acct := ts.register("strict@example.com", "password strict")
	tests := []struct {
		name       string
		path       string
		token      bool
		body       string
		wantStatus int
		wantCode   string
		wantField  string
	}{
		{"case variant member", "/api/v1/keys/api-keys", true,
			`{"name":"k","scopes":["read"],"SCOPES":["sign","read","webhooks"]}`, 400, "unknown_field", "SCOPES"},
		{"long s folds to s only case-insensitively", "/api/v1/keys/api-keys", true,
			`{"name":"k","ſcopes":["sign","read","webhooks"]}`, 400, "unknown_field", "ſcopes"},
		{"duplicate member", "/api/v1/keys/api-keys", true,
			`{"name":"k","scopes":["read"],"scopes":["sign","read","webhooks"]}`, 400, "duplicate_field", "scopes"},
		{"another member repeated", "/api/v1/keys/api-keys", true,
			`{"name":"k","scopes":["read"],"name":"j"}`, 400, "duplicate_field", "name"},
		{"NUL in org_name", "/api/v1/auth/register", false,
			`{"email":"nul@example.com","password":"password nul","org_name":"Example\u0000News","org_type":"news_org"}`, 400, "validation_failed", "org_name"},
		{"newline in org_name", "/api/v1/auth/register", false,
			`{"email":"nl@example.com","password":"password nl","org_name":"Example\nNews","org_type":"news_org"}`, 400, "validation_failed", "org_name"},
		{"C1 in org_name", "/api/v1/auth/register", false,
			`{"email":"c1@example.com","password":"password c1","org_name":"Example\u0085News","org_type":"news_org"}`, 400, "validation_failed", "org_name"},
		{"lone surrogate in org_name", "/api/v1/auth/register", false,
			`{"email":"sur@example.com","password":"password sur","org_name":"Example\ud800","org_type":"news_org"}`, 400, "malformed_json", "org_name"},
		{"invalid UTF-8 in org_name", "/api/v1/auth/register", false,
			"{\"email\":\"utf@example.com\",\"password\":\"password utf\",\"org_name\":\"Ex\xffample\",\"org_type\":\"news_org\"}", 400, "malformed_json", "org_name"},
		{"NUL in signing key device_id", "/api/v1/keys/signing-keys", true,
			`{"name":"cam","origin_type":"camera_image","device_id":"d\u0000","device_info":"i"}`, 400, "validation_failed", "device_id"},
		{"tab in signing key name", "/api/v1/keys/signing-keys", true,
			`{"name":"c\tam","origin_type":"camera_image"}`, 400, "validation_failed", "name"},
		{"DEL in device_info", "/api/v1/keys/signing-keys", true,
			`{"name":"cam","origin_type":"camera_image","device_info":"i\u007f"}`, 400, "validation_failed", "device_info"},
		{"escape in API key name", "/api/v1/keys/api-keys", true,
			`{"name":"k\u001b[2J","scopes":["read"]}`, 400, "validation_failed", "name"},
		{"null body", "/api/v1/auth/register", false, `null`, 400, "malformed_json", ""},
		{"array body", "/api/v1/auth/register", false, `[]`, 400, "malformed_json", ""},
		{"string body", "/api/v1/auth/register", false, `"str"`, 400, "malformed_json", ""},
		{"number body", "/api/v1/auth/login", false, `1`, 400, "malformed_json", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tok := ""
			if tc.token {
				tok = acct.token
			}
			r := ts.doRaw("POST", tc.path, tok, tc.body, "application/json")
			p := ts.problem(r, tc.wantStatus, tc.name)
			if p.Code != tc.wantCode || p.Field != tc.wantField {
				t.Errorf("problem = %s field %q, want %s field %q (body %s)", p.Code, p.Field, tc.wantCode, tc.wantField, r.body)
			}
			if tc.wantField != "" && (len(p.Errors) == 0 || p.Errors[0].Field != tc.wantField) {
				t.Errorf("errors = %v, want first %q", p.errorFields(), tc.wantField)
			}
		})
	}
	// None of the refused requests created anything.
	for _, path := range []string{"/api/v1/keys/api-keys", "/api/v1/keys/signing-keys"} {
		r := ts.do("GET", path, acct.token, nil)
		ts.mustStatus(r, 200, "list "+path)
		if items, _ := r.json(t)["items"].([]any); len(items) != 0 {
			t.Errorf("%s has %d items after refused creations, want 0: %s", path, len(items), r.body)
		}
	}
	for _, email := range []string{"nul@example.com", "sur@example.com", "utf@example.com"} {
		r := ts.do("POST", "/api/v1/auth/login", "", map[string]string{"email": email, "password": "password " + strings.Split(email, "@")[0]})
		ts.mustStatus(r, 401, "login as refused registration "+email)
	}
}

// TestInvalidUTF8PasswordIsNotItsReplacement: a password sent as raw
// invalid UTF-8 used to decode to U+FFFD, so any invalid bytes matched a
// password made of replacement characters.
func TestInvalidUTF8PasswordIsNotItsReplacement(t *testing.T) {
	ts := startServer(t, "", nil)
	acct := ts.register("fffd@example.com", "\ufffd\ufffd\ufffdpassword")
	for _, raw := range []string{"\xff\xfe\xfdpassword", "\xc0\x80\xedpassword"} {
		r := ts.doRaw("POST", "/api/v1/auth/login", "", `{"email":"`+acct.email+`","password":"`+raw+`"}`, "application/json")
		p := ts.problem(r, 400, "login with invalid UTF-8 password")
		if p.Code != "malformed_json" || p.Field != "password" {
			t.Errorf("login with %q = %s field %q, want malformed_json field password", raw, p.Code, p.Field)
		}
	}
	r := ts.do("POST", "/api/v1/auth/login", "", map[string]string{"email": acct.email, "password": acct.password})
	ts.mustStatus(r, 200, "login with the real password")
}

// TestEveryInvalidFieldReported: one request, several mistakes, one answer
// naming them all.
func TestEveryInvalidFieldReported(t *testing.T) {
	ts := startServer(t, "", nil)
	acct := ts.register("many@example.com", "password many")
	tests := []struct {
		name, path string
		token      bool
		body       string
		want       []string
	}{
		{"register", "/api/v1/auth/register", false,
			`{"email":"not an address","password":"short","org_name":"A\u0000","org_type":"guild"}`,
			[]string{"email", "password", "org_name", "org_type"}},
		{"signing key", "/api/v1/keys/signing-keys", true,
			`{"name":"","origin_type":"nope","device_id":"a\nb","device_info":"` + strings.Repeat("x", 1001) + `"}`,
			[]string{"name", "origin_type", "device_id", "device_info"}},
		{"api key", "/api/v1/keys/api-keys", true, `{"name":"","scopes":["admin"]}`, []string{"name", "scopes"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tok := ""
			if tc.token {
				tok = acct.token
			}
			p := ts.problem(ts.doRaw("POST", tc.path, tok, tc.body, "application/json"), 400, tc.name)
			if p.Code != "validation_failed" {
				t.Errorf("code = %s, want validation_failed", p.Code)
			}
			if got := p.errorFields(); strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("errors fields = %v, want %v", got, tc.want)
			}
			if p.Field != tc.want[0] || p.Detail != p.Errors[0].Detail {
				t.Errorf("top-level field %q detail %q, want those of errors[0] %+v", p.Field, p.Detail, p.Errors[0])
			}
		})
	}
}

// TestStrictQueryStrings covers every paginated endpoint: unknown and
// repeated parameters and foreign cursors are 400s, never a silently
// unfiltered or empty page.
func TestStrictQueryStrings(t *testing.T) {
	ts := startServer(t, "", nil, func(c *Config, _ *deps) { c.Webhooks = loopbackWebhooks() })
	acct := ts.register("query@example.com", "password query")
	key, _ := ts.createAPIKey(acct.token, map[string]any{"name": "all"})
	// Nothing listens there: the webhook is only listed, never delivered to.
	r := ts.do("POST", "/api/v1/webhooks", key, map[string]any{"url": "http://127.0.0.1:9/hook"})
	ts.mustStatus(r, 201, "create webhook")
	hookID, _ := r.json(t)["id"].(string)
	foreign := url.QueryEscape("zzzz") // decodes, but to bytes no key has
	endpoints := []struct {
		path, token string
	}{
		{"/api/v1/keys/api-keys", acct.token},
		{"/api/v1/keys/signing-keys", acct.token},
		{"/api/v1/content-records", key},
		{"/api/v1/content-records/public/search", ""},
		{"/api/v1/webhooks", key},
		{"/api/v1/webhooks/" + hookID + "/deliveries", key},
	}
	for _, ep := range endpoints {
		for _, tc := range []struct {
			name, query, wantCode, wantField string
		}{
			{"unknown parameter", "limit=5&orgin_type=camera_image", "unknown_parameter", "orgin_type"},
			{"case variant parameter", "LIMIT=5", "unknown_parameter", "LIMIT"},
			{"repeated parameter", "limit=5&limit=6", "duplicate_parameter", "limit"},
			{"foreign cursor", "cursor=" + foreign, "invalid_cursor", "cursor"},
			{"malformed cursor", "cursor=%21%21%21", "invalid_cursor", "cursor"},
		} {
			t.Run(ep.path+"/"+tc.name, func(t *testing.T) {
				p := ts.problem(ts.do("GET", ep.path+"?"+tc.query, ep.token, nil), 400, tc.name)
				if p.Code != tc.wantCode || p.Field != tc.wantField {
					t.Errorf("GET %s?%s = %s field %q, want %s field %q", ep.path, tc.query, p.Code, p.Field, tc.wantCode, tc.wantField)
				}
			})
		}
		ts.mustStatus(ts.do("GET", ep.path+"?limit=5&cursor=", ep.token, nil), 200, "GET "+ep.path+" with an empty cursor")
	}
	filters := []struct {
		name, path, token, query string
		want                     []string
	}{
		{"records filters all reported", "/api/v1/content-records", key,
			"origin_type=nope&status=gone&from=yesterday&sha256=xyz", []string{"origin_type", "sha256", "status", "from"}},
		{"public search org_name with NUL", "/api/v1/content-records/public/search", "",
			"org_name=Example%00News", []string{"org_name"}},
		{"public search status is owner-only", "/api/v1/content-records/public/search", "", "status=active", nil},
	}
	for _, tc := range filters {
		t.Run(tc.name, func(t *testing.T) {
			p := ts.problem(ts.do("GET", tc.path+"?"+tc.query, tc.token, nil), 400, tc.name)
			if tc.want == nil {
				if p.Code != "unknown_parameter" {
					t.Errorf("code = %s, want unknown_parameter", p.Code)
				}
				return
			}
			if got := p.errorFields(); p.Code != "validation_failed" || strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("problem %s errors %v, want validation_failed %v", p.Code, got, tc.want)
			}
		})
	}
}

// TestWebhookMulticastRefusal: the SSRF guard names 224.0.0.1 for what it
// is.
func TestWebhookMulticastRefusal(t *testing.T) {
	ts := startServer(t, "", nil)
	acct := ts.register("mcast@example.com", "password mcast")
	key, _ := ts.createAPIKey(acct.token, map[string]any{"name": "hooks"})
	for _, tc := range []struct{ url, class string }{
		{"http://224.0.0.1/", "multicast"},
		{"http://[ff02::1]/", "multicast"},
		{"http://255.255.255.255/", "broadcast"},
		{"http://0.0.0.0/", "unspecified"},
		{"http://169.254.169.254/", "link-local"},
	} {
		p := ts.problem(ts.do("POST", "/api/v1/webhooks", key, map[string]any{"url": tc.url}), 400, "webhook "+tc.url)
		if p.Code != "validation_failed" || p.Field != "url" || !strings.Contains(p.Detail, "("+tc.class+" address)") {
			t.Errorf("webhook %s = %s field %q detail %q, want url refused as %s", tc.url, p.Code, p.Field, p.Detail, tc.class)
		}
	}
}

// TestSignQueryStrict: the signing endpoints take one signing_key_id; a
// second one (which a proxy might read instead of the first) is refused
// before the upload is read, and nothing is signed.
func TestSignQueryStrict(t *testing.T) {
	ts := startServer(t, "", nil)
	s := ts.newSigner("signq@example.com")
	img := photo(t, 5, 384, 288)
	for _, tc := range []struct{ name, path, part, wantCode, wantField string }{
		{"sign repeated key", "/api/v1/sign?signing_key_id=" + s.keyID + "&signing_key_id=" + s.keyID, "file", "duplicate_parameter", "signing_key_id"},
		{"sign unknown parameter", "/api/v1/sign?signing_key_id=" + s.keyID + "&returnfile=true", "file", "unknown_parameter", "returnfile"},
		{"batch repeated key", "/api/v1/sign-batch?signing_key_id=" + s.keyID + "&signing_key_id=x", "files", "duplicate_parameter", "signing_key_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := ts.problem(ts.upload(tc.path, s.apiKey, []namedFile{{tc.part, "a.jpg", img}}, nil), 400, tc.name)
			if p.Code != tc.wantCode || p.Field != tc.wantField {
				t.Errorf("problem = %s field %q, want %s field %q", p.Code, p.Field, tc.wantCode, tc.wantField)
			}
		})
	}
	r := ts.do("GET", "/api/v1/content-records", s.apiKey, nil)
	ts.mustStatus(r, 200, "list records")
	if items, _ := r.json(t)["items"].([]any); len(items) != 0 {
		t.Errorf("%d records after refused signs, want 0", len(items))
	}
}
