package httpapi

import (
	"crypto/rand"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/origin/internal/accounts"
	"github.com/provenant/provenant/origin/internal/accounts/accountstest"
	"github.com/provenant/provenant/origin/internal/content"
	"github.com/provenant/provenant/origin/internal/content/badges"
	"github.com/provenant/provenant/origin/internal/content/manifests"
	"github.com/provenant/provenant/origin/internal/content/receipts"
	"github.com/provenant/provenant/origin/internal/domains"
	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/origin/internal/store/storetest"
	"github.com/provenant/provenant/origin/internal/webhooks"
	"github.com/provenant/provenant/shared/clock"
	"github.com/provenant/provenant/widget"
)

// testEnv is an API on a Badger store in a temporary directory, served
// over loopback HTTP, with the services behind it so that tests can make
// accounts and keys directly.
type testEnv struct {
	api      *API
	accounts *accounts.Service
	keys     *keys.Service
	webhooks *webhooks.Service
	clock    *clock.Fake
	url      string
	client   *http.Client
}

// newTestEnv builds and serves the API; configure, if set, adjusts its
// Config before New.
func newTestEnv(t *testing.T, configure func(*Config)) *testEnv {
	t.Helper()
	st := storetest.Badger(t)
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	acc := accountstest.New(t, st, clk)
	master := make([]byte, keys.MasterKeySize)
	ks, err := keys.New(keys.Config{Store: st, Clock: clk, Rand: rand.Reader, MasterKey: master})
	if err != nil {
		t.Fatalf("keys.New: %v", err)
	}
	// Webhook URLs on loopback are accepted (nothing is delivered: no
	// worker runs).
	loopback := webhooks.GuardConfig{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
	wh, err := webhooks.New(webhooks.Config{Store: st, Clock: clk, MasterKey: master, Guard: webhooks.NewGuard(loopback)})
	if err != nil {
		t.Fatalf("webhooks.New: %v", err)
	}
	recs, err := content.New(content.Config{Store: st, Keys: ks, Accounts: acc, Clock: clk, Rand: rand.Reader})
	if err != nil {
		t.Fatalf("content.New: %v", err)
	}
	resolver, err := manifests.NewResolver(manifests.Config{Store: st, Records: recs, Clock: clk})
	if err != nil {
		t.Fatalf("manifests.NewResolver: %v", err)
	}
	rcpts, err := receipts.New(receipts.Config{Records: recs})
	if err != nil {
		t.Fatalf("receipts.New: %v", err)
	}
	bdg, err := badges.New(badges.Config{Records: recs})
	if err != nil {
		t.Fatalf("badges.New: %v", err)
	}
	dom, err := domains.New(domains.Config{Store: st, Clock: clk, Rand: rand.Reader, Guard: webhooks.NewGuard(webhooks.GuardConfig{})})
	if err != nil {
		t.Fatalf("domains.New: %v", err)
	}
	cfg := Config{Accounts: acc, Keys: ks, Clock: clk, Webhooks: wh, Records: recs, Widget: widget.FS(), Domains: dom, Store: st}
	cfg.C2PA, cfg.Receipts, cfg.Badges = resolver, rcpts, bdg
	if configure != nil {
		configure(&cfg)
	}
	api, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &fasthttp.Server{Handler: api.Handler(), StreamRequestBody: true}
	go func() { _ = srv.Serve(ln) }()
	// Shutdown waits for open connections: the client's idle ones are
	// closed first, or it would wait for the client's idle timeout.
	tr := &http.Transport{MaxIdleConnsPerHost: 8}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		_ = srv.Shutdown()
	})
	return &testEnv{api: api, accounts: acc, keys: ks, webhooks: wh, clock: clk, url: "http://" + ln.Addr().String(),
		client: &http.Client{Transport: tr}}
}

// account registers an account and returns its id and a session JWT.
func (e *testEnv) account(t *testing.T, email string) (id, jwt string) {
	t.Helper()
	u, err := e.accounts.Register(t.Context(), accounts.RegisterInput{Email: email, Password: "correct horse battery", OrgName: "Org " + email, OrgType: "news_org"})
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	tok, _, err := e.accounts.IssueToken(u)
	if err != nil {
		t.Fatalf("IssueToken: %v", err)
	}
	return u.ID, tok
}

// apiKey creates an API key of owner with scopes (all when none).
func (e *testEnv) apiKey(t *testing.T, owner string, scopes ...string) string {
	t.Helper()
	if len(scopes) == 0 {
		scopes = keys.AllScopes()
	}
	_, text, err := e.keys.CreateAPIKey(t.Context(), owner, keys.CreateAPIKeyInput{Name: "test", Scopes: scopes})
	if err != nil {
		t.Fatalf("CreateAPIKey: %v", err)
	}
	return text
}

// reply is an answered request.
type reply struct {
	status int
	header http.Header
	body   string
}

// code returns the problem code of a problem+json reply ("" otherwise).
func (r reply) code() string {
	const k = `"code":"`
	i := strings.Index(r.body, k)
	if i < 0 || !strings.HasPrefix(r.header.Get("Content-Type"), "application/problem+json") {
		return ""
	}
	rest := r.body[i+len(k):]
	return rest[:strings.IndexByte(rest, '"')]
}

// do sends a request with the given headers and body.
func (e *testEnv) do(t *testing.T, method, path string, header map[string]string, body string) reply {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, e.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	if body != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := e.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// bearer returns the Authorization header for token.
func bearer(token string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + token}
}

// cookie returns the headers of a web app request with the session
// cookie of jwt and, if csrf is set, that CSRF token.
func cookie(jwt, csrf string) map[string]string {
	h := map[string]string{"Cookie": SessionCookie + "=" + jwt}
	if csrf != "" {
		h[CSRFHeader] = csrf
	}
	return h
}
