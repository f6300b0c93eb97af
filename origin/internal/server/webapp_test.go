package server

import (
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/httpapi"
	"github.com/provenant/provenant/shared/clock"
)

// webClient is a browser stand-in over net/http: it keeps no cookie jar
// (each request says which cookie it sends) and never follows redirects.
type webClient struct {
	t    *testing.T
	base string
	c    *http.Client
}

func newWebClient(t *testing.T, base string) *webClient {
	return &webClient{t: t, base: base, c: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type webResponse struct {
	status int
	header http.Header
	body   string
	cookie *http.Cookie // the session cookie set, if any
}

func (w *webClient) send(method, path, session string, hdr map[string]string, form url.Values) webResponse {
	w.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, w.base+path, body)
	if err != nil {
		w.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if session != "" {
		req.AddCookie(&http.Cookie{Name: httpapi.SessionCookie, Value: session})
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := w.c.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	out := webResponse{status: resp.StatusCode, header: resp.Header, body: string(b)}
	for _, c := range resp.Cookies() {
		if c.Name == httpapi.SessionCookie {
			out.cookie = c
		}
	}
	return out
}

// sameOriginPost is what a browser sends with a form posted by a page of
// the origin itself.
func (w *webClient) sameOriginPost(path, session string, form url.Values) webResponse {
	return w.send("POST", path, session, map[string]string{"Origin": w.base, "Sec-Fetch-Site": "same-origin"}, form)
}

var csrfMeta = regexp.MustCompile(`<meta name="csrf-token" content="([^"]+)">`)

// TestWebAppSession: register and login set an HttpOnly, SameSite=Strict
// session cookie; the API accepts it as a JWT, but a write only with the
// page's CSRF token (a cross-site form post is refused); Bearer tokens
// work as before; logout needs the token; an expired session gets the
// "session expired" page; assets are fingerprinted and immutable, pages
// are not stored.
func TestWebAppSession(t *testing.T) {
	clk := clock.NewFake(time.Now().UTC().Truncate(time.Second))
	ts := startServer(t, "", clk)
	w := newWebClient(t, ts.base)

	// Account pages without a session send the visitor to log in.
	r := w.send("GET", "/keys", "", nil, nil)
	if r.status != 303 || r.header.Get("Location") != "/login?next=%2Fkeys" {
		t.Fatalf("GET /keys without session = %d Location %q, want 303 to /login?next=%%2Fkeys", r.status, r.header.Get("Location"))
	}

	// A validation problem is shown as the human message, field marked.
	r = w.sameOriginPost("/register", "", url.Values{"email": {"not-an-email"}, "password": {"correct horse battery"},
		"org_name": {"Web News"}, "org_type": {"news_org"}})
	if r.status != 400 || !strings.Contains(r.body, "email is not a valid email address") ||
		!regexp.MustCompile(`id="email"[^>]*aria-invalid="true"`).MatchString(r.body) || r.cookie != nil {
		t.Fatalf("register with a bad email = %d, cookie %v; want 400 with the message and the email field marked:\n%s", r.status, r.cookie, r.body)
	}
	if strings.Contains(r.body, "correct horse battery") {
		t.Error("the register page echoes the password")
	}

	r = w.sameOriginPost("/register", "", url.Values{"email": {"desk@web.example"}, "password": {"correct horse battery"},
		"org_name": {"Web News"}, "org_type": {"news_org"}})
	if r.status != 303 || r.cookie == nil {
		t.Fatalf("register = %d (cookie %v), want 303 with the session cookie:\n%s", r.status, r.cookie, r.body)
	}
	c := r.cookie
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.Secure {
		t.Errorf("session cookie HttpOnly=%v SameSite=%v Path=%q Secure=%v; want HttpOnly, Strict, /, not Secure over plain HTTP",
			c.HttpOnly, c.SameSite, c.Path, c.Secure)
	}
	if exp := clk.Now().Add(time.Hour); c.Expires.Before(exp.Add(-time.Minute)) || c.Expires.After(exp.Add(time.Minute)) {
		t.Errorf("session cookie expires %v, want with the token at %v", c.Expires, exp)
	}
	session := c.Value

	page := w.send("GET", "/keys", session, nil, nil)
	m := csrfMeta.FindStringSubmatch(page.body)
	if page.status != 200 || m == nil {
		t.Fatalf("GET /keys with the session = %d, CSRF meta %v:\n%s", page.status, m, page.body)
	}
	csrf := m[1]
	if got := page.header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("account page Cache-Control %q, want no-store", got)
	}

	// The cookie authenticates reads...
	r = w.send("GET", "/api/v1/keys/api-keys", session, nil, nil)
	if r.status != 200 {
		t.Errorf("GET api-keys with the cookie = %d %s, want 200", r.status, r.body)
	}
	// ...but a write needs the CSRF token: what a cross-site form sends is refused.
	body := url.Values{"name": {"x"}}
	for _, tc := range []struct {
		name string
		hdr  map[string]string
	}{
		{"cross-site form post", map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}},
		{"no token", nil},
		{"wrong token", map[string]string{httpapi.CSRFHeader: httpapi.CSRFToken(session + "x")}},
	} {
		r = w.send("POST", "/api/v1/keys/api-keys", session, tc.hdr, body)
		if r.status != 403 || !strings.Contains(r.body, `"code":"csrf_failed"`) {
			t.Errorf("%s with the cookie = %d %s, want 403 csrf_failed", tc.name, r.status, r.body)
		}
	}
	r = w.send("DELETE", "/api/v1/content-records/00000000-0000-0000-0000-000000000000", session, nil, nil)
	if r.status != 403 {
		t.Errorf("DELETE a record with the cookie and no token = %d, want 403", r.status)
	}
	req, _ := http.NewRequest("POST", ts.base+"/api/v1/keys/api-keys", strings.NewReader(`{"name":"app","scopes":["read"]}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(httpapi.CSRFHeader, csrf)
	req.AddCookie(&http.Cookie{Name: httpapi.SessionCookie, Value: session})
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 201 {
		t.Fatalf("create an API key with the cookie and the page's token: %v %v, want 201", resp, err)
	}
	// An API key never comes from the cookie, and Bearer is unchanged.
	r = w.send("GET", "/test/api-key-only", session, nil, nil)
	if r.status != 401 {
		t.Errorf("API-key-only route with the cookie = %d, want 401", r.status)
	}
	acct := ts.register("other@web.example", "correct horse battery")
	if r := ts.do("GET", "/api/v1/auth/me", acct.token, nil); r.status != 200 || !strings.Contains(string(r.body), "other@web.example") {
		t.Errorf("Bearer JWT = %d %s", r.status, r.body)
	}
	// Records and webhooks now take the session too.
	for _, p := range []string{"/api/v1/content-records", "/api/v1/webhooks"} {
		if r := w.send("GET", p, session, nil, nil); r.status != 200 {
			t.Errorf("GET %s with the cookie = %d %s, want 200", p, r.status, r.body)
		}
	}

	// Logout: another site cannot do it, the page's button can.
	r = w.send("POST", "/logout", session, map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}, url.Values{})
	if r.status != 403 || r.cookie != nil {
		t.Errorf("cross-site logout = %d (cookie %v), want 403 and the session kept", r.status, r.cookie)
	}
	r = w.sameOriginPost("/logout", session, url.Values{"csrf_token": {"wrong"}})
	if r.status != 403 {
		t.Errorf("logout with a wrong token = %d, want 403", r.status)
	}
	// A cross-site login post is refused too (login CSRF).
	r = w.send("POST", "/login", "", map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"},
		url.Values{"email": {"desk@web.example"}, "password": {"correct horse battery"}})
	if r.status != 403 || r.cookie != nil {
		t.Errorf("cross-site login = %d (cookie %v), want 403 without a session", r.status, r.cookie)
	}
	r = w.sameOriginPost("/login", "", url.Values{"email": {"desk@web.example"}, "password": {"wrong password!!"}})
	if r.status != 401 || r.cookie != nil || !strings.Contains(r.body, `role="alert"`) {
		t.Errorf("login with a wrong password = %d (cookie %v), want 401 with an alert", r.status, r.cookie)
	}
	r = w.sameOriginPost("/login", "", url.Values{"email": {"desk@web.example"}, "password": {"correct horse battery"}, "next": {"//evil.example/"}})
	if r.status != 303 || r.cookie == nil || r.header.Get("Location") != "/" {
		t.Errorf("login with next=//evil.example/ = %d Location %q, want 303 to / with a session", r.status, r.header.Get("Location"))
	}
	r = w.sameOriginPost("/logout", session, url.Values{"csrf_token": {csrf}})
	if r.status != 303 || r.cookie == nil || r.cookie.MaxAge >= 0 && r.cookie.Value != "" {
		t.Errorf("logout = %d cookie %+v, want 303 clearing the cookie", r.status, r.cookie)
	}

	// An expired session says so and clears the cookie.
	clk.Advance(2 * time.Hour)
	r = w.send("GET", "/records", session, nil, nil)
	if r.status != 401 || !strings.Contains(r.body, "Your session has expired") || r.cookie == nil || r.cookie.Value != "" {
		t.Errorf("expired session on /records = %d (cookie %+v), want 401 'session expired' clearing the cookie:\n%s", r.status, r.cookie, r.body)
	}
	if r := w.send("GET", "/api/v1/keys/api-keys", session, nil, nil); r.status != 401 || !strings.Contains(r.body, "invalid_token") {
		t.Errorf("expired session on the API = %d %s, want 401 invalid_token", r.status, r.body)
	}

	// Assets: fingerprinted, immutable, and the page links them.
	home := w.send("GET", "/", "", nil, nil)
	am := regexp.MustCompile(`/assets/app-[0-9a-f]{12}\.js`).FindString(home.body)
	if am == "" {
		t.Fatalf("home page links no fingerprinted app.js:\n%s", home.body)
	}
	a := w.send("GET", am, "", nil, nil)
	if a.status != 200 || a.header.Get("Cache-Control") != "public, max-age=31536000, immutable" ||
		!strings.HasPrefix(a.header.Get("Content-Type"), "text/javascript") {
		t.Errorf("GET %s = %d Cache-Control %q Content-Type %q", am, a.status, a.header.Get("Cache-Control"), a.header.Get("Content-Type"))
	}
	if r := w.send("GET", "/assets/app-000000000000.js", "", nil, nil); r.status != 404 {
		t.Errorf("unknown asset = %d, want 404", r.status)
	}
	if csp := home.header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
		t.Errorf("page CSP %q", csp)
	}
}

// TestWebAppPasswordReset: forgot password on the page sends the mail
// (and says the same whether or not the account exists), the reset page
// takes the mailed token, a bad token is shown as the API words it, and
// the new password logs in.
func TestWebAppPasswordReset(t *testing.T) {
	ts := startServer(t, "", clock.NewFake(time.Now().UTC().Truncate(time.Second)))
	w := newWebClient(t, ts.base)
	r := w.sameOriginPost("/register", "", url.Values{"email": {"reset@web.example"}, "password": {"correct horse battery"},
		"org_name": {"Reset News"}, "org_type": {"news_org"}})
	if r.status != 303 {
		t.Fatalf("register = %d", r.status)
	}
	for _, email := range []string{"nobody@web.example", "reset@web.example"} {
		r = w.sameOriginPost("/forgot-password", "", url.Values{"email": {email}})
		if r.status != 200 || !strings.Contains(r.body, "If an account exists for this email") {
			t.Errorf("forgot password for %s = %d:\n%s", email, r.status, r.body)
		}
	}
	msgs := waitOutbox(t, filepath.Join(ts.dataDir, outboxSubdir), 1)
	m := resetTokenRE.FindStringSubmatch(msgs[0].Body)
	if m == nil {
		t.Fatalf("no reset token in %q", msgs[0].Body)
	}
	if r := w.send("GET", "/reset-password?token="+url.QueryEscape(m[1]), "", nil, nil); !strings.Contains(r.body, `value="`+m[1]+`"`) {
		t.Errorf("reset page does not carry the token from its link:\n%s", r.body)
	}
	r = w.sameOriginPost("/reset-password", "", url.Values{"token": {"not-a-token"}, "password": {"another fine password"}})
	if r.status != 400 || !strings.Contains(r.body, `role="alert"`) {
		t.Errorf("reset with a bad token = %d, want 400 with an alert:\n%s", r.status, r.body)
	}
	r = w.sameOriginPost("/reset-password", "", url.Values{"token": {m[1]}, "password": {"another fine password"}})
	if r.status != 303 || r.header.Get("Location") != "/login?reset=1" {
		t.Fatalf("reset = %d Location %q, want 303 to /login?reset=1:\n%s", r.status, r.header.Get("Location"), r.body)
	}
	r = w.sameOriginPost("/login", "", url.Values{"email": {"reset@web.example"}, "password": {"another fine password"}})
	if r.status != 303 || r.cookie == nil {
		t.Errorf("login with the new password = %d (cookie %v), want 303 with a session", r.status, r.cookie)
	}
}

// TestWebAppSecureCookieBehindProxy: behind a trusted proxy that
// terminates TLS (X-Forwarded-Proto: https) the session cookie is Secure;
// the same header from an untrusted peer changes nothing.
func TestWebAppSecureCookieBehindProxy(t *testing.T) {
	for _, tc := range []struct {
		name    string
		trusted string
		want    bool
	}{
		{"trusted proxy", "127.0.0.1/32", true},
		{"untrusted peer", "192.0.2.0/24", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := startServer(t, "", clock.NewFake(time.Now().UTC().Truncate(time.Second)), func(c *Config, _ *deps) {
				c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix(tc.trusted)}
			})
			w := newWebClient(t, ts.base)
			r := w.send("POST", "/register", "", map[string]string{"Origin": "https://" + strings.TrimPrefix(ts.base, "http://"),
				"Sec-Fetch-Site": "same-origin", "X-Forwarded-Proto": "https"},
				url.Values{"email": {"proxy@web.example"}, "password": {"correct horse battery"}, "org_name": {"Proxy News"}, "org_type": {"news_org"}})
			if r.status != 303 || r.cookie == nil || r.cookie.Secure != tc.want {
				t.Fatalf("register = %d, cookie %+v; want Secure=%v", r.status, r.cookie, tc.want)
			}
		})
	}
}
