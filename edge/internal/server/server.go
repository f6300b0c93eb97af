// Package server is the edge: a fasthttp proxy in front of one origin
// that verifies uploads itself (edge/internal/verifier), answers the
// origin's public read-mostly objects from its cache (edge/internal/cache)
// and streams everything else to the origin unchanged.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/edge/internal/cache"
	"github.com/provenant/provenant/edge/internal/compress"
	"github.com/provenant/provenant/edge/internal/verifier"
	"github.com/provenant/provenant/internal/adminguard"
	"github.com/provenant/provenant/internal/clientip"
	"github.com/provenant/provenant/internal/connlimit"
	"github.com/provenant/provenant/internal/defaults"
	"github.com/provenant/provenant/internal/ratelimit"
	"github.com/provenant/provenant/shared/clock"
	"github.com/provenant/provenant/shared/limits"
)

// Defaults of the Config fields left zero.
const (
	DefaultDialTimeout   = 2 * time.Second
	DefaultOriginTimeout = 60 * time.Second
	DefaultCacheBytes    = 64 << 20
	DefaultMaxStale      = 5 * time.Minute
	DefaultErrorTTL      = 10 * time.Second
	DefaultVerifyMemory  = 256 << 20
	// preReadBytes: request bodies up to this size are read before the
	// handler runs; larger ones stream through (a 30 MB upload never sits
	// whole in the edge's memory on its way to the origin).
	preReadBytes = 256 << 10
)

// VerifyPolicy is the per-client-IP quota of POST /api/v1/verify at the
// edge: the origin's documented 60 per minute.
var VerifyPolicy = ratelimit.Policy{Name: "verify", Quota: 60, Window: time.Minute}

// Swapper replaces the engine's module (the wasm engine); nil for the
// native engine.
type Swapper interface {
	Swap(ctx context.Context, module []byte) (string, error)
}

// Config is what the edge needs; Origin and Engine are required.
type Config struct {
	// Origin is the origin's base URL (http://host:port).
	Origin string
	Engine verifier.Engine
	// Swapper and LoadModule, both set, enable the hot swap of the
	// verifier module (admin endpoint, SIGHUP): LoadModule fetches the new
	// bytes (a file, or the origin's manifest).
	Swapper    Swapper
	LoadModule func(ctx context.Context) ([]byte, error)
	// TrustedProxies are the peers whose X-Forwarded-For is believed
	// (load balancers in front of this edge).
	TrustedProxies []netip.Prefix
	// VerifyPolicy overrides VerifyPolicy (zero: the default).
	VerifyPolicy ratelimit.Policy
	// Limiters, if set, builds the verify limiter on a store shared by
	// every edge (package sharedlimit); nil keeps it in this process.
	Limiters ratelimit.Factory
	Limits   limits.Limits
	Clock    clock.Clock
	// DialTimeout bounds connecting to the origin, so that a down origin
	// is answered quickly; OriginTimeout bounds one origin round trip.
	DialTimeout, OriginTimeout time.Duration
	// VerifyMemory bounds the bytes of verify bodies held at once (each
	// is read whole before it is analysed); a verify that does not fit is
	// refused with 503 verify_capacity. Zero: DefaultVerifyMemory. It must
	// hold at least one upload.
	VerifyMemory int64
	// CacheBytes, MaxStale and ErrorTTL configure the cache (see
	// cache.Config).
	CacheBytes         int64
	MaxStale, ErrorTTL time.Duration
	Logger             *slog.Logger
	// AdminGuard admits requests to AdminHandler; nil means loopback
	// names only, without a token.
	AdminGuard *adminguard.Guard
	// Conns is the public listener's connection budget (zero fields:
	// connlimit defaults; a negative cap: none).
	Conns Conns
	// NoExactProbe turns off the exact-only lookup made before analysing
	// a file (verifyExact): every file is analysed, as before; for
	// comparisons.
	NoExactProbe bool
}

// Conns is the public listener's connection budget (docs/edge.md,
// "Connections"); TrustedProxies are exempt from the per-address cap.
type Conns struct {
	connlimit.Budget
	// MaxBody is the largest body passed on to the origin (zero:
	// DefaultMaxBody); a larger declared size, or a verify body over one
	// upload, is answered 413 before any of it is read.
	MaxBody int64
}

// DefaultMaxBody is the largest request body the edge passes on: the
// origin's largest (a video upload) with room to spare; the origin
// enforces its own caps.
const DefaultMaxBody = 256 << 20

func (c Conns) withDefaults() Conns {
	c.Budget = c.Budget.WithDefaults()
	c.MaxBody = defaults.Positive(c.MaxBody, DefaultMaxBody)
	return c
}

// Server is one edge. It is safe for concurrent use.
type Server struct {
	cfg     Config
	log     *slog.Logger
	origin  *url.URL
	stream  *fasthttp.HostClient // proxy: bodies streamed both ways
	buffer  *fasthttp.HostClient // cache and lookup: bounded bodies
	cache   *cache.Cache
	limiter ratelimit.Allower
	bodies  *budget
	handler fasthttp.RequestHandler
	srv     *fasthttp.Server
	// reqBodies sets body deadlines and refuses over-cap declared sizes;
	// conns is the listener budget Serve creates.
	reqBodies *connlimit.Bodies
	conns     atomic.Pointer[connlimit.Listener]
}

// New checks cfg and builds the edge.
func New(cfg Config) (*Server, error) {
	if cfg.Engine == nil {
		return nil, errors.New("server: no verifier engine")
	}
	u, err := url.Parse(cfg.Origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("server: origin %q must be an http(s) base URL", cfg.Origin)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.System{}
	}
	if cfg.Limits == (limits.Limits{}) {
		cfg.Limits = limits.Default()
	}
	if cfg.VerifyPolicy == (ratelimit.Policy{}) {
		cfg.VerifyPolicy = VerifyPolicy
	}
	cfg.DialTimeout = defaults.Positive(cfg.DialTimeout, DefaultDialTimeout)
	cfg.OriginTimeout = defaults.Positive(cfg.OriginTimeout, DefaultOriginTimeout)
	cfg.MaxStale = defaults.Positive(cfg.MaxStale, DefaultMaxStale)
	cfg.ErrorTTL = defaults.Positive(cfg.ErrorTTL, DefaultErrorTTL)
	cfg.VerifyMemory = defaults.Positive(cfg.VerifyMemory, DefaultVerifyMemory)
	cfg.CacheBytes = defaults.Positive(cfg.CacheBytes, DefaultCacheBytes)
	if cfg.VerifyMemory < cfg.Limits.MaxUploadBytes+multipartSlack {
		return nil, fmt.Errorf("server: VerifyMemory %d cannot hold one upload (%d bytes)", cfg.VerifyMemory, cfg.Limits.MaxUploadBytes+multipartSlack)
	}
	if cfg.AdminGuard == nil {
		cfg.AdminGuard = adminguard.New(nil, "")
	}
	s := &Server{cfg: cfg, log: cfg.Logger, origin: u, bodies: &budget{max: cfg.VerifyMemory}}
	s.stream = s.hostClient(u, true)
	s.buffer = s.hostClient(u, false)
	if s.limiter, err = newLimiter(cfg); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	s.cache, err = cache.New(cache.Config{Origin: cacheOrigin{s}, MaxBytes: cfg.CacheBytes, MaxStale: cfg.MaxStale,
		ErrorTTL: cfg.ErrorTTL, Now: cfg.Clock.Now, Logger: cfg.Logger})
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	cfg.Conns = cfg.Conns.withDefaults()
	s.cfg.Conns = cfg.Conns
	verifyCap := cfg.Limits.MaxUploadBytes + multipartSlack
	s.reqBodies = connlimit.NewBodies(connlimit.BodyConfig{HeaderTimeout: cfg.Conns.HeaderTimeout, MinRate: cfg.Conns.MinBodyRate, MaxBody: cfg.Conns.MaxBody,
		Limit: func(h *fasthttp.RequestHeader) int64 {
			path, _, _ := strings.Cut(string(h.RequestURI()), "?")
			if string(h.Method()) == fasthttp.MethodPost && path == "/api/v1/verify" {
				return verifyCap
			}
			return 0
		},
		Refuse: func(ctx *fasthttp.RequestCtx) {
			writeProblem(ctx, newProblem(fasthttp.StatusRequestEntityTooLarge, codeBodyTooLarge, "Request body too large", "the declared Content-Length exceeds this route's cap"))
		}})
	s.handler = s.accessLog(compress.Handler(s.route, compress.Config{MinSize: 512}))
	s.srv = &fasthttp.Server{
		Handler:                      s.reqBodies.Handler(s.handler),
		HeaderReceived:               s.reqBodies.HeaderReceived,
		ExpectHandler:                s.reqBodies.Expect,
		ErrorHandler:                 s.errorHandler,
		Name:                         "provenant-edge",
		StreamRequestBody:            true,
		DisablePreParseMultipartForm: true,
		MaxRequestBodySize:           preReadBytes,
		// ReadTimeout bounds the header; HeaderReceived gives a body its
		// own deadline from its declared size.
		ReadTimeout:           cfg.Conns.HeaderTimeout,
		WriteTimeout:          10 * time.Minute,
		IdleTimeout:           cfg.Conns.IdleTimeout,
		NoDefaultServerHeader: true,
		NoDefaultDate:         true,
		NoDefaultContentType:  true,
		Logger:                quietLogger{},
	}
	return s, nil
}

func (s *Server) hostClient(u *url.URL, stream bool) *fasthttp.HostClient {
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), map[string]string{"http": "80", "https": "443"}[u.Scheme])
	}
	dial := s.cfg.DialTimeout
	hc := &fasthttp.HostClient{
		Addr:                     addr,
		IsTLS:                    u.Scheme == "https",
		Dial:                     func(a string) (net.Conn, error) { return fasthttp.DialTimeout(a, dial) },
		ReadTimeout:              s.cfg.OriginTimeout,
		WriteTimeout:             s.cfg.OriginTimeout,
		MaxIdleConnDuration:      30 * time.Second,
		MaxConns:                 1024,
		StreamResponseBody:       stream,
		NoDefaultUserAgentHeader: true,
		DisablePathNormalizing:   true,
	}
	if !stream {
		hc.MaxResponseBodySize = 64 << 20
	}
	return hc
}

// cacheOrigin is the cache's round trip: the buffered client, with the
// client's address forwarded like every other origin request.
type cacheOrigin struct{ s *Server }

func (o cacheOrigin) Do(req *fasthttp.Request, resp *fasthttp.Response) error {
	h := &req.Header
	dropHopByHop(func(k string) []byte { return h.Peek(k) }, h.Del)
	return o.s.buffer.DoTimeout(req, resp, o.s.cfg.OriginTimeout)
}

// accessLog logs one line per request: method, path (never the query,
// which may carry a token), status, time until the answer started (a
// streamed body may still be flowing), client and how the cache
// answered. Bodies and credentials are never logged.
func (s *Server) accessLog(next fasthttp.RequestHandler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		t0 := time.Now()
		next(ctx)
		if !s.log.Enabled(ctx, slog.LevelInfo) {
			return
		}
		s.log.Info("request", "method", string(ctx.Method()), "path", string(ctx.Path()), "status", ctx.Response.StatusCode(),
			"duration_ms", time.Since(t0).Milliseconds(), "client_ip", s.clientIP(ctx).String(),
			"cache", string(ctx.Response.Header.Peek("X-Cache")), "request_id", string(ctx.Response.Header.Peek("X-Request-Id")))
	}
}

// Handler is the edge's public request handler.
func (s *Server) Handler() fasthttp.RequestHandler { return s.handler }

// route sends verify to the edge's verifier, the cacheable public objects
// to the cache, and everything else to the origin.
func (s *Server) route(ctx *fasthttp.RequestCtx) {
	path := string(ctx.Path())
	switch {
	case path == "/api/v1/verify" && ctx.IsPost():
		s.verify(ctx)
	case path == readyPath && ctx.IsGet() && (s.starting(ctx) || s.saturated(ctx)):
	case (ctx.IsGet() || ctx.IsHead()) && cacheable(path):
		s.cache.Serve(ctx)
	default:
		s.proxy(ctx)
	}
}

// cacheable lists the origin's public, read-mostly objects the cache
// answers (docs/edge.md, Caching).
func cacheable(path string) bool {
	switch {
	case strings.HasPrefix(path, "/api/v1/widget/"), // badges, org badges, embed.js, worker.js, manifest, verifier module
		path == "/demo", strings.HasPrefix(path, "/demo/"),
		strings.HasPrefix(path, "/assets/"):
		return true
	case strings.HasPrefix(path, "/api/v1/content-records/") && strings.HasSuffix(path, "/certificate"):
		id := strings.TrimSuffix(strings.TrimPrefix(path, "/api/v1/content-records/"), "/certificate")
		return id != "" && !strings.Contains(id, "/")
	}
	return false
}

// clientIP is the request's client: clientip.Resolve under
// Config.TrustedProxies.
func (s *Server) clientIP(ctx *fasthttp.RequestCtx) netip.Addr {
	peer, _ := netip.AddrFromSlice(ctx.RemoteIP())
	return clientip.Resolve(peer, ctx.Request.Header.PeekAll(clientip.ForwardedForHeader), s.cfg.TrustedProxies)
}

// Serve answers requests on ln, within the connection budget
// (Config.Conns), until Shutdown. A failing accept (out of file
// descriptors) pauses and retries: Serve returns only when ln is closed.
func (s *Server) Serve(ln net.Listener) error {
	cl := connlimit.NewListener(ln, connlimit.Config{MaxConns: s.cfg.Conns.MaxConns, MaxConnsPerIP: s.cfg.Conns.MaxConnsPerIP,
		Exempt: s.cfg.TrustedProxies, Logger: s.log.With("component", "connections")})
	s.conns.Store(cl)
	return s.srv.Serve(cl)
}

// ConnStats returns the public listener's connection budget (zero before
// Serve).
func (s *Server) ConnStats() connlimit.Stats {
	if cl := s.conns.Load(); cl != nil {
		return cl.Stats()
	}
	return connlimit.Stats{}
}

// Shutdown stops accepting connections and waits for requests in flight
// until ctx ends; then it closes the connections still open (stalled
// clients would hold them until their timeouts) and returns ctx's error.
// It may be called from another goroutine than Serve's, before or while
// it runs: the HTTP server exists from New on.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.srv.ShutdownWithContext(ctx)
	if err != nil && ctx.Err() != nil {
		if cl := s.conns.Load(); cl != nil {
			n := cl.CloseAll()
			s.log.Warn("shutdown deadline passed; connections closed", "connections", n)
		}
	}
	return err
}

// errorHandler answers requests fasthttp could not read: 413 for a
// declared size over the cap, 408 for a header or body that did not
// arrive in time, 400 otherwise; the connection is closed after it.
func (s *Server) errorHandler(ctx *fasthttp.RequestCtx, err error) {
	var small *fasthttp.ErrSmallBuffer
	switch {
	case s.reqBodies.OverCap(ctx) || errors.Is(err, fasthttp.ErrBodyTooLarge):
		s.reqBodies.Refuse(ctx)
		return
	case errors.As(err, &small):
		writeProblem(ctx, newProblem(fasthttp.StatusRequestHeaderFieldsTooLarge, "headers_too_large", "Request headers too large", ""))
	case errors.Is(err, os.ErrDeadlineExceeded):
		writeProblem(ctx, newProblem(fasthttp.StatusRequestTimeout, "request_timeout", "Request timeout", "the request was not received in time"))
	default:
		writeProblem(ctx, newProblem(fasthttp.StatusBadRequest, "bad_request", "Bad request", "malformed HTTP request"))
	}
	ctx.SetConnectionClose()
}

// readyPath is the origin's readiness probe, which the edge answers
// itself while its own connection budget is saturated.
const readyPath = "/ready"

// saturated answers GET /ready with 503 while the edge's connection budget
// is saturated (connlimit.Stats.Saturated), in the origin's /ready shape,
// and reports whether it did.
func (s *Server) saturated(ctx *fasthttp.RequestCtx) bool {
	if st := s.ConnStats(); !st.Saturated {
		return false
	}
	notReady(ctx, "edge_connections")
	return true
}

// starting answers GET /ready with 503 while the verifier engine is still
// starting (a verifier.Deferred not yet set: the module is compiling), in
// the origin's /ready shape, and reports whether it did. A load balancer
// thus sends no traffic to an edge that would pass every verify on to the
// origin.
func (s *Server) starting(ctx *fasthttp.RequestCtx) bool {
	r, ok := s.cfg.Engine.(interface{ Ready() bool })
	if !ok || r.Ready() {
		return false
	}
	notReady(ctx, "edge_verifier")
	return true
}

// notReady answers 503 in the origin's /ready shape, naming the failed
// check.
func notReady(ctx *fasthttp.RequestCtx, check string) {
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.SetContentType("application/json")
	ctx.SetStatusCode(fasthttp.StatusServiceUnavailable)
	ctx.SetBodyString(`{"status":"not_ready","checks":{"` + check + `":"fail"}}`)
}

type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}
