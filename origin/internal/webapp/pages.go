package webapp

import (
	"bytes"
	"errors"
	"net/url"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/origin/internal/accounts"
	"github.com/provenant/provenant/origin/internal/httpapi"
	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/origin/internal/webhooks"
)

// page is what every template sees.
type page struct {
	Name, Title string
	// User is the signed-in account (nil on public pages without a
	// session); CSRF is its session's token.
	User *accounts.User
	CSRF string
	// Form state of the session pages: submitted values (never the
	// password), the problem's human message and the field it names.
	Values     map[string]string
	Error      string
	ErrorField string
	Notice     string
	Next       string
	Token      string
	OrgTypes   []codeLabel
	Origins    []keys.OriginType
	Events     []string
	// MinPassword is the accounts service's password length floor.
	MinPassword int
	ID          string
	// Labels are the words for the API's codes, for the page's script.
	Labels labels
}

// contentSecurityPolicy allows the page's own scripts, styles and API
// only, plus the verifier: a worker from the same origin compiling
// WebAssembly and reading the visitor's file through a blob: URL.
const contentSecurityPolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; " +
	"img-src 'self' blob: data:; connect-src 'self' blob:; style-src 'self'; object-src 'none'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

func (a *App) render(ctx *fasthttp.RequestCtx, status int, p page) {
	p.MinPassword = accounts.MinPasswordLen
	p.Labels = a.labels
	t, ok := a.pages[p.Name]
	if !ok {
		a.log.Error("webapp: no template", "page", p.Name)
		ctx.Error("internal error", fasthttp.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", p); err != nil {
		a.log.Error("webapp: render", "page", p.Name, "err", err)
		ctx.Response.Header.Set("Cache-Control", "no-store")
		ctx.Error("internal error", fasthttp.StatusInternalServerError)
		return
	}
	h := &ctx.Response.Header
	// Every page may show account data (the navigation names the account),
	// so none is stored by a browser or a shared cache.
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	ctx.SetContentType("text/html; charset=utf-8")
	ctx.SetStatusCode(status)
	ctx.SetBody(buf.Bytes())
}

// session returns the account of the request's session cookie: (nil,
// false) with no cookie, (nil, true) when there is one that is no longer
// accepted (expired, or issued before a password reset).
func (a *App) session(ctx *fasthttp.RequestCtx) (u *accounts.User, token string, stale bool) {
	tok := httpapi.SessionToken(ctx)
	if tok == "" {
		return nil, "", false
	}
	if len(tok) > accounts.MaxTokenLen {
		return nil, "", true
	}
	usr, err := a.cfg.Accounts.Authenticate(httpapi.Context(ctx), tok)
	if err != nil {
		if !errors.Is(err, accounts.ErrInvalidToken) {
			a.log.Error("webapp: session", "err", err)
		}
		return nil, "", true
	}
	return &usr, tok, false
}

func (a *App) secure(ctx *fasthttp.RequestCtx) bool {
	if a.cfg.IsTLS != nil {
		return a.cfg.IsTLS(ctx)
	}
	return ctx.IsTLS()
}

// sessionPage fills the session part of p.
func sessionPage(p page, u *accounts.User, tok string) page {
	p.User = u
	if u != nil {
		p.CSRF = httpapi.CSRFToken(tok)
	}
	return p
}

// home is the overview for a session, the public welcome page otherwise.
func (a *App) home(ctx *fasthttp.RequestCtx) {
	u, tok, stale := a.session(ctx)
	if stale {
		a.expired(ctx)
		return
	}
	if u == nil {
		a.render(ctx, fasthttp.StatusOK, page{Name: "welcome", Title: "Provenant"})
		return
	}
	a.render(ctx, fasthttp.StatusOK, sessionPage(page{Name: "overview", Title: "Overview"}, u, tok))
}

// public serves a page anyone may use; a session only adds the navigation.
func (a *App) public(name, title string) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		u, tok, _ := a.session(ctx)
		a.render(ctx, fasthttp.StatusOK, sessionPage(page{Name: name, Title: title}, u, tok))
	}
}

// account serves a page that needs a session: without one it sends the
// visitor to log in, with an expired one it says so.
func (a *App) account(name, title string) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		u, tok, stale := a.session(ctx)
		if stale {
			a.expired(ctx)
			return
		}
		if u == nil {
			ctx.Response.Header.Set("Cache-Control", "no-store")
			seeOther(ctx, "/login?next="+url.QueryEscape(string(ctx.Path())))
			return
		}
		p := page{Name: name, Title: title}
		if id, ok := ctx.UserValue("id").(string); ok {
			p.ID = strings.Clone(id)
		}
		switch name {
		case "keys", "records":
			p.Origins = keys.OriginTypes()
		case "webhooks":
			p.Events = webhooks.EventTypes()
		}
		a.render(ctx, fasthttp.StatusOK, sessionPage(p, u, tok))
	}
}

// expired clears the stale cookie and says the session ended.
func (a *App) expired(ctx *fasthttp.RequestCtx) {
	httpapi.ClearSessionCookie(ctx, a.secure(ctx))
	a.render(ctx, fasthttp.StatusUnauthorized, page{Name: "expired", Title: "Session expired",
		Next: safeNext(string(ctx.Path()))})
}

func (a *App) expiredPage(ctx *fasthttp.RequestCtx) {
	if u, _, stale := a.session(ctx); u != nil && !stale {
		seeOther(ctx, "/")
		return
	}
	a.expired(ctx)
}

// nextBase stands for this origin when a post-login destination is
// resolved: whatever resolves to another scheme or host leaves the site.
var nextBase = &url.URL{Scheme: "https", Host: "self.invalid", Path: "/"}

// safeNext keeps a post-login destination on this origin: it reads next
// as a browser would (a backslash taken for a slash; control characters,
// which browsers drop, refuse it), resolves it against this origin, and
// returns its path and query, re-encoded, when it stays on the same
// origin — "/" otherwise, or when it names the session pages themselves.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.ContainsFunc(next, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "/"
	}
	u, err := nextBase.Parse(browserURL(next))
	if err != nil || u.Scheme != nextBase.Scheme || u.Host != nextBase.Host || u.User != nil || u.Opaque != "" {
		return "/"
	}
	out := u.EscapedPath()
	if q := u.Query().Encode(); q != "" {
		out += "?" + q
	}
	if !strings.HasPrefix(out, "/") || strings.HasPrefix(out, "//") || strings.ContainsAny(out, "\\\r\n\t") ||
		u.Path == "/session-expired" || u.Path == "/logout" {
		return "/"
	}
	return out
}

// browserURL applies the WHATWG URL parser's rewrites that Go's does not
// make: ASCII tab and newline are removed anywhere, and a backslash is a
// path separator in http(s) URLs.
func browserURL(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
	return strings.ReplaceAll(s, "\\", "/")
}

// sameOrigin refuses form posts started by another site. Browsers send
// Sec-Fetch-Site and Origin with every form post; a request with neither
// comes from a non-browser client, which cannot carry a victim's cookie.
func sameOrigin(ctx *fasthttp.RequestCtx) bool {
	if s := string(ctx.Request.Header.Peek("Sec-Fetch-Site")); s != "" && s != "same-origin" && s != "none" {
		return false
	}
	o := ctx.Request.Header.Peek("Origin")
	if len(o) == 0 {
		return true
	}
	u, err := url.Parse(string(o))
	return err == nil && u.Host == string(ctx.Host())
}

// maxForm caps a session form post (a few short fields).
const maxForm = 16 << 10

// formGuard applies the cross-site check and the rate limit to a session
// form post; it renders the refusal and returns false when the post may
// not proceed.
func (a *App) formGuard(ctx *fasthttp.RequestCtx, p page) bool {
	if !sameOrigin(ctx) {
		p.Error = "This form was sent from another site and was refused."
		a.render(ctx, fasthttp.StatusForbidden, p)
		return false
	}
	if ctx.Request.Header.ContentLength() > maxForm {
		p.Error = "The form is too large."
		a.render(ctx, fasthttp.StatusRequestEntityTooLarge, p)
		return false
	}
	if a.cfg.AllowAuth != nil {
		if !a.cfg.AllowAuth(ctx) {
			p.Error = "Too many attempts from this address; wait a minute and try again."
			a.render(ctx, fasthttp.StatusTooManyRequests, p)
			return false
		}
	}
	return true
}

// problemPage puts err on p as the API would word it: the human message
// and the offending field.
func (a *App) problemPage(p page, err error) (page, int) {
	prob, internal := httpapi.ProblemOf(err)
	if internal {
		a.log.Error("webapp: internal error", "page", p.Name, "err", err)
	}
	p.Error = prob.Title
	if prob.Detail != "" {
		p.Error = prob.Detail
	}
	p.ErrorField = prob.Field
	return p, prob.Status
}

func formValue(ctx *fasthttp.RequestCtx, k string) string {
	return strings.Clone(string(ctx.PostArgs().Peek(k)))
}

// startSession issues a session JWT for u, sets the cookie and sends the
// browser on.
func (a *App) startSession(ctx *fasthttp.RequestCtx, u accounts.User, next string) {
	tok, exp, err := a.cfg.Accounts.IssueToken(u)
	if err != nil {
		a.log.Error("webapp: issue token", "err", err)
		ctx.Error("internal error", fasthttp.StatusInternalServerError)
		return
	}
	httpapi.SetSessionCookie(ctx, tok, exp, a.secure(ctx))
	ctx.Response.Header.Set("Cache-Control", "no-store")
	seeOther(ctx, safeNext(next))
}

func (a *App) loginPage(ctx *fasthttp.RequestCtx) {
	if u, _, _ := a.session(ctx); u != nil {
		seeOther(ctx, "/")
		return
	}
	p := page{Name: "login", Title: "Log in", Next: safeNext(string(ctx.QueryArgs().Peek("next")))}
	if ctx.QueryArgs().Has("reset") {
		p.Notice = "Your password was changed. Log in with the new one."
	}
	a.render(ctx, fasthttp.StatusOK, p)
}

func (a *App) loginPost(ctx *fasthttp.RequestCtx) {
	p := page{Name: "login", Title: "Log in", Next: safeNext(formValue(ctx, "next")),
		Values: map[string]string{"email": formValue(ctx, "email")}}
	if !a.formGuard(ctx, p) {
		return
	}
	email, pw := formValue(ctx, "email"), formValue(ctx, "password")
	var err error
	var u accounts.User
	switch {
	case email == "":
		err = httpapi.FieldProblem("email", "is required")
	case pw == "":
		err = httpapi.FieldProblem("password", "is required")
	default:
		u, err = a.cfg.Accounts.Login(httpapi.Context(ctx), email, pw)
	}
	if err != nil {
		p, status := a.problemPage(p, err)
		a.render(ctx, status, p)
		return
	}
	a.startSession(ctx, u, p.Next)
}

func (a *App) registerPage(ctx *fasthttp.RequestCtx) {
	a.render(ctx, fasthttp.StatusOK, page{Name: "register", Title: "Create an account", OrgTypes: orgTypeOptions(),
		Values: map[string]string{"org_type": "news_org"}})
}

func (a *App) registerPost(ctx *fasthttp.RequestCtx) {
	in := accounts.RegisterInput{Email: formValue(ctx, "email"), Password: formValue(ctx, "password"),
		OrgName: formValue(ctx, "org_name"), OrgType: formValue(ctx, "org_type")}
	p := page{Name: "register", Title: "Create an account", OrgTypes: orgTypeOptions(),
		Values: map[string]string{"email": in.Email, "org_name": in.OrgName, "org_type": in.OrgType}}
	if !a.formGuard(ctx, p) {
		return
	}
	u, err := a.cfg.Accounts.Register(httpapi.Context(ctx), in)
	if err != nil {
		p, status := a.problemPage(p, err)
		a.render(ctx, status, p)
		return
	}
	a.startSession(ctx, u, "/keys")
}

// logoutPost ends the session: every session of the account, on the
// server (accounts.Service.EndSessions), and the cookie. It needs the
// session's CSRF token, so that another site cannot log the visitor out.
func (a *App) logoutPost(ctx *fasthttp.RequestCtx) {
	tok := httpapi.SessionToken(ctx)
	if tok != "" && (!sameOrigin(ctx) || !httpapi.CheckCSRF(tok, formValue(ctx, httpapi.CSRFField))) {
		a.render(ctx, fasthttp.StatusForbidden, page{Name: "login", Title: "Log in", Next: "/",
			Error: "The logout request was refused (missing or wrong CSRF token). Use the Log out button."})
		return
	}
	// The session ends on the server too: the token (and every other
	// session of the account) is refused from now on, wherever a copy of
	// it went.
	if tok != "" {
		if u, err := a.cfg.Accounts.Authenticate(httpapi.Context(ctx), tok); err == nil {
			if err := a.cfg.Accounts.EndSessions(httpapi.Context(ctx), u.ID); err != nil {
				a.log.Error("webapp: end sessions", "err", err)
				ctx.Error("internal error", fasthttp.StatusInternalServerError)
				return
			}
		}
	}
	httpapi.ClearSessionCookie(ctx, a.secure(ctx))
	ctx.Response.Header.Set("Cache-Control", "no-store")
	seeOther(ctx, "/login")
}

func (a *App) forgotPage(ctx *fasthttp.RequestCtx) {
	a.render(ctx, fasthttp.StatusOK, page{Name: "forgot", Title: "Forgot password"})
}

func (a *App) forgotPost(ctx *fasthttp.RequestCtx) {
	email := formValue(ctx, "email")
	p := page{Name: "forgot", Title: "Forgot password", Values: map[string]string{"email": email}}
	if !a.formGuard(ctx, p) {
		return
	}
	var err error
	if email == "" {
		err = httpapi.FieldProblem("email", "is required")
	} else {
		err = a.cfg.Accounts.ForgotPassword(httpapi.Context(ctx), email)
	}
	if err != nil {
		p, status := a.problemPage(p, err)
		a.render(ctx, status, p)
		return
	}
	p.Notice = "If an account exists for this email, a message with a reset link has been sent."
	a.render(ctx, fasthttp.StatusOK, p)
}

func (a *App) resetPage(ctx *fasthttp.RequestCtx) {
	a.render(ctx, fasthttp.StatusOK, page{Name: "reset", Title: "Choose a new password",
		Token: string(ctx.QueryArgs().Peek("token"))})
}

func (a *App) resetPost(ctx *fasthttp.RequestCtx) {
	p := page{Name: "reset", Title: "Choose a new password", Token: formValue(ctx, "token")}
	if !a.formGuard(ctx, p) {
		return
	}
	var err error
	if p.Token == "" {
		err = httpapi.FieldProblem("token", "is required")
	} else {
		err = a.cfg.Accounts.ResetPassword(httpapi.Context(ctx), p.Token, formValue(ctx, "password"))
	}
	if err != nil {
		p, status := a.problemPage(p, err)
		a.render(ctx, status, p)
		return
	}
	ctx.Response.Header.Set("Cache-Control", "no-store")
	seeOther(ctx, "/login?reset=1")
}

// seeOther redirects to loc, a path on this origin (fasthttp's Redirect
// would make it absolute from the Host header).
func seeOther(ctx *fasthttp.RequestCtx, loc string) {
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.Response.Header.Set("Location", loc)
	ctx.SetStatusCode(fasthttp.StatusSeeOther)
}
