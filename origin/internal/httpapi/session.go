package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strings"
	"time"

	"github.com/valyala/fasthttp"
)

// Browser sessions. The web app keeps the account's session JWT in an
// HttpOnly, SameSite=Strict cookie; the API routes that accept a JWT also
// accept that cookie, but on unsafe methods only together with the
// session's CSRF token in the CSRFHeader header (a synchronizer token
// derived from the JWT, which a cross-site page can neither read nor
// send). "Authorization: Bearer" is unaffected and takes precedence.
const (
	// SessionCookie names the cookie that carries the session JWT.
	SessionCookie = "provenant_session"
	// CSRFHeader carries the CSRF token of a cookie-authenticated write.
	CSRFHeader = "X-CSRF-Token"
	// CSRFField carries the CSRF token in the web app's own form posts.
	CSRFField = "csrf_token"
)

// CodeCSRF (403): a cookie-authenticated write came without the
// session's CSRF token.
const CodeCSRF = "csrf_failed"

// CSRFToken returns the CSRF token bound to the session jwt. It is a hash
// of the token: whoever can compute it already holds the session, and
// nobody without the (HttpOnly) cookie can.
func CSRFToken(jwt string) string {
	sum := sha256.Sum256([]byte("provenant-csrf-v1\x00" + jwt))
	return base64.RawURLEncoding.EncodeToString(sum[:24])
}

// CheckCSRF reports whether got is the CSRF token of the session jwt, in
// constant time.
func CheckCSRF(jwt, got string) bool {
	want := CSRFToken(jwt)
	return jwt != "" && subtle.ConstantTimeCompare([]byte(want), []byte(got)) == 1
}

// SetSessionCookie stores jwt in the session cookie until exp. The cookie
// is HttpOnly and SameSite=Strict, scoped to the whole origin, and Secure
// when secure is true (the request came over TLS).
func SetSessionCookie(ctx *fasthttp.RequestCtx, jwt string, exp time.Time, secure bool) {
	c := fasthttp.AcquireCookie()
	defer fasthttp.ReleaseCookie(c)
	c.SetKey(SessionCookie)
	c.SetValue(jwt)
	c.SetPath("/")
	c.SetHTTPOnly(true)
	c.SetSameSite(fasthttp.CookieSameSiteStrictMode)
	c.SetSecure(secure)
	c.SetExpire(exp)
	ctx.Response.Header.SetCookie(c)
}

// ClearSessionCookie tells the browser to drop the session cookie.
func ClearSessionCookie(ctx *fasthttp.RequestCtx, secure bool) {
	c := fasthttp.AcquireCookie()
	defer fasthttp.ReleaseCookie(c)
	c.SetKey(SessionCookie)
	c.SetValue("")
	c.SetPath("/")
	c.SetHTTPOnly(true)
	c.SetSameSite(fasthttp.CookieSameSiteStrictMode)
	c.SetSecure(secure)
	c.SetExpire(fasthttp.CookieExpireDelete)
	ctx.Response.Header.SetCookie(c)
}

// SessionToken returns the JWT of the request's session cookie ("" if
// none).
func SessionToken(ctx *fasthttp.RequestCtx) string {
	return strings.Clone(string(ctx.Request.Header.Cookie(SessionCookie)))
}

// safeMethod reports whether m cannot change state (RFC 9110 9.2.1).
func safeMethod(m []byte) bool {
	switch string(m) {
	case fasthttp.MethodGet, fasthttp.MethodHead, fasthttp.MethodOptions:
		return true
	}
	return false
}

// ProblemOf returns the problem an error from a domain service is
// answered with (the same table the API uses), for pages that show it as
// a message instead of JSON. Internal errors become a generic 500
// problem; internal reports whether err was one (to be logged).
func ProblemOf(err error) (p *Problem, internal bool) { return problemFor(err) }

// handleLogout: POST /api/v1/auth/logout (JWT or session cookie with its
// CSRF token) ends every session of the account on the server: the token
// that made the request, and every other issued before, is refused from
// then on. A session cookie is cleared too. API keys are unaffected.
func (a *API) handleLogout(ctx *fasthttp.RequestCtx) error {
	p, _ := PrincipalFrom(ctx)
	if err := a.cfg.Accounts.EndSessions(Context(ctx), p.AccountID); err != nil {
		return err
	}
	if SessionToken(ctx) != "" {
		ClearSessionCookie(ctx, a.RequestIsTLS(ctx))
	}
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.SetStatusCode(fasthttp.StatusNoContent)
	return nil
}
