// Package httpapi is the origin's HTTP layer on fasthttp and
// fasthttp/router: route registration with per-route authentication, scope
// and rate-limit policies, the bearer-auth middleware, RFC 9457 problem
// responses (the single place domain errors become statuses), JSON
// decoding with limits, the handlers, and the embedded OpenAPI document.
//
// Handlers stay thin: parse, call a domain package, write. They receive the
// *fasthttp.RequestCtx and must not retain it, or any slice obtained from
// it, after returning.
package httpapi

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fasthttp/router"
	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/internal/defaults"
	"github.com/provenant/provenant/internal/ratelimit"
	"github.com/provenant/provenant/origin/internal/accounts"
	"github.com/provenant/provenant/origin/internal/content"
	"github.com/provenant/provenant/origin/internal/content/badges"
	"github.com/provenant/provenant/origin/internal/content/manifests"
	"github.com/provenant/provenant/origin/internal/content/receipts"
	"github.com/provenant/provenant/origin/internal/domains"
	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/verifierwasm"
	"github.com/provenant/provenant/origin/internal/webhooks"
	"github.com/provenant/provenant/shared/clock"
	"github.com/provenant/provenant/shared/wire"
)

// Handler serves one route. It returns nil after writing a response, or an
// error that the API turns into a problem response (a *Problem as is,
// domain sentinels via the error table, anything else as a logged 500).
type Handler func(ctx *fasthttp.RequestCtx) error

// AuthMode is a route's authentication requirement (the spec's Auth column).
type AuthMode int

// Authentication modes.
const (
	Public      AuthMode = iota // no authentication; any Authorization header is ignored
	JWTOnly                     // a session JWT; API keys are refused
	APIKeyOnly                  // an API key; JWTs are refused
	JWTOrAPIKey                 // either
	// APIKeyOrSession is the spec's "API key" routes that the web app
	// also uses: an API key, or the web app's session cookie (with the
	// CSRF token on writes). A session JWT sent as "Authorization:
	// Bearer" is refused as on APIKeyOnly, so a client written against
	// the spec sees those routes as API-key-only.
	APIKeyOrSession
)

func (m AuthMode) String() string {
	switch m {
	case Public:
		return "public"
	case JWTOnly:
		return "jwt"
	case APIKeyOnly:
		return "api_key"
	case JWTOrAPIKey:
		return "jwt_or_api_key"
	case APIKeyOrSession:
		return "api_key_or_session"
	}
	return "AuthMode(" + strconv.Itoa(int(m)) + ")"
}

// LimitBy says what a route's rate limiter is keyed on.
type LimitBy int

// Rate limit keys.
const (
	// ByIP keys on the client IP (IPv6 by /64) and is checked before
	// authentication.
	ByIP LimitBy = iota
	// ByCredential keys on the authenticated API key id (or the account id
	// for a JWT) and is checked only after authentication succeeded, so
	// failed attempts never consume someone's quota.
	ByCredential
)

// Route describes one endpoint.
type Route struct {
	Method string
	// Path in fasthttp/router syntax, e.g. "/api/v1/keys/api-keys/{id}";
	// the same string is the key in the OpenAPI document's paths.
	Path string
	Auth AuthMode
	// Scope, if set, is required of API-key principals (403 otherwise).
	Scope string
	// Limiter, if set, rate-limits the route; LimitBy says on what.
	Limiter ratelimit.Allower
	LimitBy LimitBy
	// CrossOrigin lets any web page call the route (CORS "*", without
	// credentials) and answers its preflight; only public routes may set
	// it (Handle panics otherwise).
	CrossOrigin bool
	// Idempotent honours the Idempotency-Key header (idempotency.go);
	// it needs Config.Store and an authenticated route.
	Idempotent bool
	// MaxBody, if above Config.MaxBody, is this route's cap on the
	// declared body size (routes that take a video spooled to disk).
	MaxBody int64
	// Class picks the request deadline from Config.Timeouts (a route
	// with MaxBody is ClassMedia).
	Class Class
}

// Config configures an API. Accounts, Keys and Clock are required.
type Config struct {
	Accounts *accounts.Service
	Keys     *keys.Service
	Clock    clock.Clock
	// Logger receives one line per request and every internal error. It
	// never receives request bodies or credentials. Nil discards.
	Logger *slog.Logger
	// MaxJSONBody caps JSON request bodies; zero means DefaultMaxJSONBody.
	MaxJSONBody int
	// Limits holds the per-route rate limit policies; zero fields take
	// their DefaultLimits() value.
	Limits Limits
	// AfterIdempotentWrite, when set, runs after an idempotent request's
	// handler succeeded and before its response is stored (crash tests
	// kill the process there).
	AfterIdempotentWrite func(route string)
	// Store keeps the responses of idempotent requests (Idempotency-Key,
	// 24 hours, prefix "idem/"); nil ignores the header.
	Store store.Store
	// Webhooks, if set, serves the /api/v1/webhooks routes.
	Webhooks *webhooks.Service
	// MaxBody is the server-wide cap on any request body, checked against
	// Content-Length before routing (413); zero means no API-level check.
	// Streaming bodies are additionally capped by each route as it reads.
	MaxBody int
	// SpoolDir is where video uploads are written while their request
	// runs (each in a private directory, removed after); "" is the
	// system's temporary directory.
	SpoolDir string
	// Records serves sign, verify, register, batch, content records and
	// the dashboard; nil leaves those routes out.
	Records *content.Service
	// C2PA answers the C2PA Soft Binding Resolution API beside Records;
	// nil leaves those routes out.
	C2PA *manifests.Resolver
	// Receipts serves the records' offline receipts beside Records; nil
	// leaves that route out.
	Receipts *receipts.Service
	// Badges answers the record and organisation badges beside Records;
	// nil leaves those routes out.
	Badges *badges.Service
	// Widget holds the browser widget's scripts (embed.js, worker.js),
	// served under /api/v1/widget/; nil leaves those routes out.
	Widget fs.FS
	// Demo, if set, is the demo directory (origin/internal/demo) that GET
	// /demo shows; nil leaves /demo out.
	Demo fs.FS
	// Ready lists the dependency checks GET /ready runs; none means the
	// origin is ready as soon as it serves.
	Ready []ReadyCheck
	// Observer, if set, is told about every answered request, where the
	// access log line is written (metrics hook in there, not in a second
	// wrapper).
	Observer Observer
	// TrustedProxies are the peers whose X-Forwarded-For is believed (see
	// ClientIP); empty means the TCP peer is always the client.
	TrustedProxies []netip.Prefix
	// Verifier is the browser verifier module served under
	// /api/v1/widget/; nil answers those routes 503 widget_not_built.
	Verifier *verifierwasm.Module
	// Domains, if set, serves the /api/v1/domains routes (organisation
	// domain verification).
	Domains *domains.Service
	// Timeouts are the request deadlines by route class; zero fields
	// take their defaults.
	Timeouts Timeouts
	// Limiters, if set, builds the rate limiters (a store shared by every
	// origin, package sharedlimit); nil keeps each limiter's state in
	// this process.
	Limiters ratelimit.Factory
}

// Observer receives one RequestObservation per answered request. It is
// called on the request's goroutine and must not block.
type Observer interface {
	ObserveRequest(RequestObservation)
}

// RequestObservation describes an answered request. Body is the response
// body, valid only during the ObserveRequest call.
type RequestObservation struct {
	Method string
	// Route is the route template, or "-" when no route matched.
	Route    string
	Status   int
	Duration time.Duration
	// RateLimited names the policy that refused the request (429), or "".
	RateLimited string
	Body        []byte
}

// Limits are the rate limit policies of the routes built so far.
type Limits struct {
	Register ratelimit.Policy // spec: 10/min per IP
	Login    ratelimit.Policy
	Forgot   ratelimit.Policy
	Reset    ratelimit.Policy
	Sign     ratelimit.Policy // spec: 100/min per API key
	Verify   ratelimit.Policy // spec: 60/min per IP
	// Lookup limits POST /api/v1/verify/lookup per client IP, in its own
	// bucket: a page of marked images costs one lookup each, and a lookup
	// decodes nothing.
	Lookup ratelimit.Policy
	// SignBatch limits sign-batch requests per credential (each item also
	// counts against nothing else).
	SignBatch ratelimit.Policy
	// SDKRegister limits hash-only registrations per credential.
	SDKRegister ratelimit.Policy
	// DomainCheck limits domain proof checks per account: each one makes
	// outbound HTTPS and DNS requests.
	DomainCheck ratelimit.Policy
}

// DefaultLimits returns the production policies (see docs/api.md).
func DefaultLimits() Limits {
	return Limits{
		Register:    ratelimit.Policy{Name: "register", Quota: 10, Window: time.Minute},
		Login:       ratelimit.Policy{Name: "login", Quota: 30, Window: time.Minute},
		Forgot:      ratelimit.Policy{Name: "forgot-password", Quota: 5, Window: time.Minute},
		Reset:       ratelimit.Policy{Name: "reset-password", Quota: 10, Window: time.Minute},
		Sign:        ratelimit.Policy{Name: "sign", Quota: 100, Window: time.Minute},
		Verify:      ratelimit.Policy{Name: "verify", Quota: 60, Window: time.Minute},
		Lookup:      ratelimit.Policy{Name: "verify-lookup", Quota: 120, Window: time.Minute},
		SignBatch:   ratelimit.Policy{Name: "sign-batch", Quota: 10, Window: time.Minute},
		SDKRegister: ratelimit.Policy{Name: "sdk-register", Quota: 100, Window: time.Minute},
		DomainCheck: ratelimit.Policy{Name: "domain-check", Quota: 10, Window: time.Minute},
	}
}

// withDefaults fills every zero policy of l from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	for _, p := range []struct{ dst, def *ratelimit.Policy }{
		{&l.Register, &d.Register}, {&l.Login, &d.Login}, {&l.Forgot, &d.Forgot}, {&l.Reset, &d.Reset},
		{&l.Sign, &d.Sign}, {&l.Verify, &d.Verify}, {&l.Lookup, &d.Lookup}, {&l.SignBatch, &d.SignBatch}, {&l.SDKRegister, &d.SDKRegister},
		{&l.DomainCheck, &d.DomainCheck},
	} {
		if *p.dst == (ratelimit.Policy{}) {
			*p.dst = *p.def
		}
	}
	return l
}

// API holds the router and the registered routes.
type API struct {
	cfg     Config
	log     *slog.Logger
	router  *router.Router
	routes  []Route
	maxJSON int
	// pageAssetsHolder keeps the web app's assets for the HTML certificate.
	pageAssetsHolder
	// cors holds the CrossOrigin routes (with no-op handlers), so that a
	// preflight can ask which methods a path serves cross-origin.
	cors *router.Router
	// idem serves Idempotency-Key; nil without Config.Store.
	idem *idempotency
	// maxRouteBody is the largest Route.MaxBody registered: the cap
	// checked before routing, each route then checking its own.
	maxRouteBody int64
	timeouts     Timeouts
	// run counts the requests in flight and holds the parent of their
	// contexts (Cancel, Wait).
	run *running
}

// New builds the API with every built-in route registered.
func New(cfg Config) (*API, error) {
	if cfg.Accounts == nil || cfg.Keys == nil || cfg.Clock == nil {
		return nil, errors.New("httpapi: Accounts, Keys and Clock are required")
	}
	cfg.Limits = cfg.Limits.withDefaults()
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &API{cfg: cfg, log: log, router: router.New(), maxJSON: defaults.Positive(cfg.MaxJSONBody, DefaultMaxJSONBody), cors: router.New(),
		timeouts: cfg.Timeouts.withDefaults(), run: newRunning()}
	if cfg.Store != nil {
		a.idem = &idempotency{st: cfg.Store, now: cfg.Clock.Now, locks: map[string]*idemLock{}}
	}
	r := a.router
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.HandleMethodNotAllowed = true
	r.HandleOPTIONS = false
	r.NotFound = func(ctx *fasthttp.RequestCtx) {
		WriteProblem(ctx, NewProblem(fasthttp.StatusNotFound, CodeNotFound, "Not found"))
	}
	r.MethodNotAllowed = func(ctx *fasthttp.RequestCtx) {
		WriteProblem(ctx, NewProblem(fasthttp.StatusMethodNotAllowed, CodeMethodNotAllowed, "Method not allowed"))
	}
	r.PanicHandler = func(ctx *fasthttp.RequestCtx, v any) {
		a.log.Error("handler panic", "method", string(ctx.Method()), "route", routeOf(ctx), "request_id", RequestID(ctx), "panic", fmt.Sprint(v))
		WriteProblem(ctx, NewProblem(fasthttp.StatusInternalServerError, CodeInternal, "Internal server error"))
	}
	if err := a.registerBuiltins(); err != nil {
		return nil, err
	}
	return a, nil
}

// NewLimiter returns a limiter for p whose bucket is named by the
// policy's name: in this process on the API's clock, or from
// Config.Limiters.
func (a *API) NewLimiter(p ratelimit.Policy) (ratelimit.Allower, error) {
	return a.scopedLimiter(p.Name, p)
}

// scopedLimiter is NewLimiter for a route that applies a policy of
// another route in a bucket of its own.
func (a *API) scopedLimiter(scope string, p ratelimit.Policy) (ratelimit.Allower, error) {
	if a.cfg.Limiters != nil {
		return a.cfg.Limiters(scope, p)
	}
	return ratelimit.New(ratelimit.Config{Policy: p, Clock: a.cfg.Clock})
}

// Handle registers h for route. Every route of the public API must also
// have an entry in openapi.json (a test enforces it).
func (a *API) Handle(rt Route, h Handler) {
	if rt.CrossOrigin {
		if rt.Auth != Public {
			panic("httpapi: cross-origin route " + rt.Path + " must be public")
		}
		a.cors.Handle(rt.Method, rt.Path, func(*fasthttp.RequestCtx) {})
	}
	a.routes = append(a.routes, rt)
	a.maxRouteBody = max(a.maxRouteBody, rt.MaxBody)
	a.router.Handle(rt.Method, rt.Path, a.wrap(rt, h))
}

// Routes returns the registered routes in registration order.
func (a *API) Routes() []Route { return slices.Clone(a.routes) }

// Handler returns the fasthttp handler serving the API. Every request gets
// a request id (see RequestID) and, once answered, exactly one "request"
// log line: method, route template (never the raw path), status,
// duration, bytes in (the declared Content-Length, 0 if none) and out,
// client IP (see ClientIP), request id, and the account id and credential
// kind when authenticated. Bodies, headers and query strings are never
// logged.
func (a *API) Handler() fasthttp.RequestHandler {
	h := a.router.Handler
	return func(ctx *fasthttp.RequestCtx) {
		a.run.begin()
		defer a.run.end()
		start := a.cfg.Clock.Now()
		reqID := RequestID(ctx)
		ctx.Response.Header.Set("X-Content-Type-Options", "nosniff")
		if cl := ctx.Request.Header.ContentLength(); a.cfg.MaxBody > 0 && int64(cl) > max(int64(a.cfg.MaxBody), a.maxRouteBody) {
			// fasthttp does not enforce MaxRequestBodySize on streamed
			// bodies; refuse before routing.
			WriteProblem(ctx, NewProblem(fasthttp.StatusRequestEntityTooLarge, CodeBodyTooLarge, "Request body too large"))
		} else if ctx.IsOptions() && preflight(ctx, a.cors) {
			ctx.SetUserValue(routeKey{}, "OPTIONS (preflight)")
		} else {
			h(ctx)
		}
		finishBody(ctx)
		dur := a.cfg.Clock.Now().Sub(start)
		attrs := []any{
			"method", string(ctx.Method()),
			"route", routeOf(ctx),
			"status", ctx.Response.StatusCode(),
			"duration_ms", dur.Milliseconds(),
			"bytes_in", max(0, ctx.Request.Header.ContentLength()),
			"bytes_out", responseSize(ctx),
			"client_ip", a.ClientIP(ctx).String(),
			"request_id", reqID,
		}
		if p, ok := PrincipalFrom(ctx); ok {
			attrs = append(attrs, "account_id", p.AccountID, "auth", string(p.Kind))
		}
		a.log.Info("request", attrs...)
		if a.cfg.Observer != nil {
			limited, _ := ctx.UserValue(rateLimitedKey{}).(string)
			a.cfg.Observer.ObserveRequest(RequestObservation{Method: string(ctx.Method()), Route: routeOf(ctx),
				Status: ctx.Response.StatusCode(), Duration: dur, RateLimited: limited, Body: bufferedBody(ctx)})
		}
	}
}

// MaxDrain is how much of an unread request body the API reads and
// discards after answering, so that the connection can serve the next
// request and the client, still sending, reads the answer instead of a
// connection reset. Past it the connection is closed. It is twice the
// default upload cap, so that a file somewhat over the limit (the usual
// mistake) gets its 413 problem; a body declared larger is not read.
const MaxDrain = 64 << 20

// finishBody consumes what the handler left of a streamed request body
// (a refused upload, a route that ignores its body). Without it fasthttp
// would parse the rest of the body as the next request.
func finishBody(ctx *fasthttp.RequestCtx) {
	s := ctx.RequestBodyStream()
	if s == nil {
		return
	}
	if cl := ctx.Request.Header.ContentLength(); cl > MaxDrain {
		ctx.SetConnectionClose()
		return
	}
	n, err := io.CopyN(io.Discard, s, MaxDrain+1)
	if n > MaxDrain || (err != nil && !errors.Is(err, io.EOF)) {
		ctx.SetConnectionClose()
	}
}

// wrap applies, in order: IP rate limit, authentication, scope,
// credential rate limit, then the handler; and maps the handler's error.
func (a *API) wrap(rt Route, h Handler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		ctx.SetUserValue(routeKey{}, rt.Path)
		defer a.requestContext(ctx, rt)()
		if rt.CrossOrigin {
			setCORS(ctx)
		}
		if err := a.serve(ctx, rt, h); err != nil {
			p, internal := problemFor(err)
			if internal {
				a.log.Error("internal error", "method", rt.Method, "route", rt.Path, "request_id", RequestID(ctx), "err", err)
			}
			WriteProblem(ctx, p)
		}
	}
}

// responseSize is the response body's size without reading a streamed
// body (a signed video sent from disk) into memory.
func responseSize(ctx *fasthttp.RequestCtx) int {
	if ctx.Response.IsBodyStream() {
		return max(0, ctx.Response.Header.ContentLength())
	}
	return len(ctx.Response.Body())
}

// bufferedBody is the response body when it is in memory, nil when it is
// streamed.
func bufferedBody(ctx *fasthttp.RequestCtx) []byte {
	if ctx.Response.IsBodyStream() {
		return nil
	}
	return ctx.Response.Body()
}

func (a *API) serve(ctx *fasthttp.RequestCtx, rt Route, h Handler) error {
	// The check before routing let the largest route cap through; each
	// route holds to its own.
	if limit := max(int64(a.cfg.MaxBody), rt.MaxBody); a.cfg.MaxBody > 0 && int64(ctx.Request.Header.ContentLength()) > limit {
		ctx.SetConnectionClose()
		return NewProblem(fasthttp.StatusRequestEntityTooLarge, CodeBodyTooLarge, "Request body too large")
	}
	if rt.Limiter != nil && rt.LimitBy == ByIP {
		if err := applyLimit(ctx, rt.Limiter, ratelimit.IPKey(a.ClientIP(ctx))); err != nil {
			return err
		}
	}
	if rt.Auth != Public {
		p, err := a.authenticate(ctx, rt.Auth)
		if err != nil {
			return err
		}
		ctx.SetUserValue(principalKey{}, p)
		if rt.Scope != "" {
			if err := RequireScope(ctx, rt.Scope); err != nil {
				return err
			}
		}
		if rt.Limiter != nil && rt.LimitBy == ByCredential {
			key := "acct:" + p.AccountID
			if p.Kind == AuthAPIKey {
				key = "key:" + p.APIKeyID
			}
			if err := applyLimit(ctx, rt.Limiter, key); err != nil {
				return err
			}
		}
	}
	if rt.Idempotent && a.idem != nil {
		return a.idempotent(ctx, rt, h)
	}
	return h(ctx)
}

// applyLimit consumes one unit of key's quota, sets the RateLimit-Policy
// and RateLimit headers (draft-ietf-httpapi-ratelimit-headers-10), and
// returns a 429 problem with Retry-After when the quota is exhausted.
func applyLimit(ctx *fasthttp.RequestCtx, l ratelimit.Allower, key string) error {
	d := l.Allow(key)
	pol := l.Policy()
	ctx.Response.Header.Set("RateLimit-Policy", pol.PolicyHeader())
	ctx.Response.Header.Set("RateLimit", d.Header(pol))
	if d.Allowed {
		return nil
	}
	ctx.SetUserValue(rateLimitedKey{}, pol.Name)
	p := &Problem{Problem: wire.Problem{Type: QuotaExceededType, Title: "Too many requests", Status: fasthttp.StatusTooManyRequests,
		Code: CodeRateLimited, ViolatedPolicies: []string{pol.Name}}, RetryAfter: max(1, ratelimit.CeilSeconds(d.RetryAfter))}
	p.Detail = "quota of " + strconv.Itoa(pol.Quota) + " requests per " + strconv.Itoa(int(pol.Window/time.Second)) + "s exceeded"
	return p
}

// pathParam returns the router parameter name as a string ("" if absent).
func pathParam(ctx *fasthttp.RequestCtx, name string) string {
	s, _ := ctx.UserValue(name).(string)
	return strings.Clone(s)
}
