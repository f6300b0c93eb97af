package webapp

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/origin/internal/accounts/accountstest"
	"github.com/provenant/provenant/origin/internal/httpapi"
	"github.com/provenant/provenant/origin/internal/store/storetest"
	"github.com/provenant/provenant/shared/clock"
)

func TestSafeNext(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/records", "/records"},
		{"/records/abc?x=1", "/records/abc?x=1"},
		{"", "/"},
		{"records", "/"},
		{"//evil.example/", "/"},
		{"/\\evil.example", "/"},
		{"https://evil.example/", "/"},
		{"/ok\r\nSet-Cookie: x", "/"},
		{"/session-expired", "/"},
		{"/logout", "/"},
		{"/\t/evil.example", "/"},
		{"/%09/evil.example", "/%09/evil.example"},
		{"/\n/evil.example", "/"},
		{"/./\\evil.example", "/"},
		{"/.//evil.example", "/"},
		{"/a/..//evil.example", "/evil.example"},
		{"/x/../keys", "/keys"},
		{"/@evil.example", "/@evil.example"},
		{"/keys?a=1&b=x y", "/keys?a=1&b=x+y"},
		{"/logout?x", "/"},
		{"/caf\u00e9", "/caf%C3%A9"},
	}
	for _, tc := range tests {
		if got := safeNext(tc.in); got != tc.want {
			t.Errorf("safeNext(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzSafeNext: whatever a login form's next says, the redirect stays a
// path on this origin.
func FuzzSafeNext(f *testing.F) {
	for _, s := range []string{"/", "/keys", "//x", "/\\x", "http://x", "/a\nb", "\x00", "/\t/x", "/.//x", "/%2F/x", "/a/../\\x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := safeNext(s)
		if !strings.HasPrefix(got, "/") || strings.HasPrefix(got, "//") || strings.HasPrefix(got, "/\\") || strings.ContainsAny(got, "\r\n\t") {
			t.Fatalf("safeNext(%q) = %q leaves the origin", s, got)
		}
		// Read as a browser reads a Location, it resolves to this origin.
		u, err := nextBase.Parse(browserURL(got))
		if err != nil || u.Host != nextBase.Host || u.Scheme != nextBase.Scheme {
			t.Fatalf("safeNext(%q) = %q resolves to %v (%v)", s, got, u, err)
		}
	})
}

func TestSameOrigin(t *testing.T) {
	tests := []struct {
		name, site, origin string
		want               bool
	}{
		{"same origin", "same-origin", "http://app.example", true},
		{"typed address", "none", "", true},
		{"no browser headers", "", "", true},
		{"cross-site", "cross-site", "http://evil.example", false},
		{"same-site other origin", "same-site", "http://other.app.example", false},
		{"origin of another host", "", "http://evil.example", false},
		{"opaque origin", "", "null", false},
	}
	for _, tc := range tests {
		var ctx fasthttp.RequestCtx
		ctx.Request.SetRequestURI("http://app.example/login")
		ctx.Request.Header.SetHost("app.example")
		if tc.site != "" {
			ctx.Request.Header.Set("Sec-Fetch-Site", tc.site)
		}
		if tc.origin != "" {
			ctx.Request.Header.Set("Origin", tc.origin)
		}
		if got := sameOrigin(&ctx); got != tc.want {
			t.Errorf("%s: sameOrigin = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func newApp(t *testing.T) *App {
	t.Helper()
	st := storetest.Badger(t)
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	acc := accountstest.New(t, st, clk)
	a, err := New(Config{Accounts: acc, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestAssetsFingerprinted: every embedded asset has a URL whose name
// carries its content hash, and every page template renders with the
// layout and links only fingerprinted assets.
func TestAssetsFingerprinted(t *testing.T) {
	a := newApp(t)
	fp := regexp.MustCompile(`^/assets/[a-z]+-[0-9a-f]{12}\.(css|js|svg)$`)
	for _, name := range []string{"app.css", "app.js", "icon.svg"} {
		u := a.AssetURL(name)
		if !fp.MatchString(u) {
			t.Errorf("AssetURL(%q) = %q, not fingerprinted", name, u)
		}
		if _, ok := a.assets[strings.TrimPrefix(u, "/assets/")]; !ok {
			t.Errorf("%s is not served", u)
		}
	}
	if a.AssetURL("nope.js") != "" {
		t.Error("AssetURL of a missing asset is not empty")
	}
	for name := range a.pages {
		var ctx fasthttp.RequestCtx
		a.render(&ctx, 200, page{Name: name, Title: name, Values: map[string]string{}})
		body := string(ctx.Response.Body())
		if ctx.Response.StatusCode() != 200 || !strings.Contains(body, `data-page="`+name+`"`) {
			t.Errorf("page %s: status %d, body:\n%s", name, ctx.Response.StatusCode(), body)
			continue
		}
		for _, m := range regexp.MustCompile(`(?:href|src)="(/assets/[^"]+)"`).FindAllStringSubmatch(body, -1) {
			if !fp.MatchString(m[1]) {
				t.Errorf("page %s links %s", name, m[1])
			}
		}
	}
	if len(a.pages) < 14 {
		t.Errorf("%d page templates, want every page", len(a.pages))
	}
}

// TestLogoutNeedsCSRF: the logout post ends the session only with the
// session's CSRF token from this origin; otherwise it answers 403 and
// keeps the cookie.
func TestLogoutNeedsCSRF(t *testing.T) {
	a := newApp(t)
	const session = "header.claims.signature"
	tests := []struct {
		name    string
		cookie  string
		token   string
		site    string
		wantEnd bool
	}{
		{"the session's token", session, httpapi.CSRFToken(session), "same-origin", true},
		{"no token", session, "", "same-origin", false},
		{"a wrong token", session, "x" + httpapi.CSRFToken(session)[1:], "same-origin", false},
		{"another session's token", session, httpapi.CSRFToken(session + "x"), "same-origin", false},
		{"the right token from another site", session, httpapi.CSRFToken(session), "cross-site", false},
		{"no session to end", "", "", "same-origin", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ctx fasthttp.RequestCtx
			ctx.Request.Header.SetMethod("POST")
			ctx.Request.SetRequestURI("http://app.example/logout")
			ctx.Request.Header.SetHost("app.example")
			ctx.Request.Header.Set("Sec-Fetch-Site", tc.site)
			if tc.cookie != "" {
				ctx.Request.Header.SetCookie(httpapi.SessionCookie, tc.cookie)
			}
			ctx.Request.Header.SetContentType("application/x-www-form-urlencoded")
			ctx.Request.SetBodyString(url.Values{httpapi.CSRFField: {tc.token}}.Encode())
			a.logoutPost(&ctx)
			cleared := strings.Contains(string(ctx.Response.Header.PeekCookie(httpapi.SessionCookie)), "expires=")
			if ended := ctx.Response.StatusCode() == fasthttp.StatusSeeOther; ended != tc.wantEnd || cleared != tc.wantEnd {
				t.Errorf("status %d, cookie cleared %v; want session ended %v", ctx.Response.StatusCode(), cleared, tc.wantEnd)
			}
		})
	}
}
