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
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/edge/internal/cache"
	"github.com/provenant/provenant/edge/internal/compress"
	"github.com/provenant/provenant/edge/internal/verifier"
	"github.com/provenant/provenant/internal/clientip"
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
	Limits       limits.Limits
	Clock        clock.Clock
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
}

// Server is one edge. It is safe for concurrent use.
type Server struct {
	cfg     Config
	log     *slog.Logger
	origin  *url.URL
	stream  *fasthttp.HostClient // proxy: bodies streamed both ways
	buffer  *fasthttp.HostClient // cache and lookup: bounded bodies
	cache   *cache.Cache
	limiter *ratelimit.Limiter
	bodies  *budget
	handler fasthttp.RequestHandler
	srv     *fasthttp.Server
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
	cfg.DialTimeout = cmp(cfg.DialTimeout, DefaultDialTimeout)
	cfg.OriginTimeout = cmp(cfg.OriginTimeout, DefaultOriginTimeout)
	cfg.MaxStale = cmp(cfg.MaxStale, DefaultMaxStale)
	cfg.ErrorTTL = cmp(cfg.ErrorTTL, DefaultErrorTTL)
	if cfg.VerifyMemory <= 0 {
		cfg.VerifyMemory = DefaultVerifyMemory
	}
	if cfg.VerifyMemory < cfg.Limits.MaxUploadBytes+multipartSlack {
		return nil, fmt.Errorf("server: VerifyMemory %d cannot hold one upload (%d bytes)", cfg.VerifyMemory, cfg.Limits.MaxUploadBytes+multipartSlack)
	}
	if cfg.CacheBytes <= 0 {
		cfg.CacheBytes = DefaultCacheBytes
	}
	s := &Server{cfg: cfg, log: cfg.Logger, origin: u, bodies: &budget{max: cfg.VerifyMemory}}
	s.stream = s.hostClient(u, true)
	s.buffer = s.hostClient(u, false)
	if s.limiter, err = ratelimit.New(ratelimit.Config{Policy: cfg.VerifyPolicy, Clock: cfg.Clock}); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	s.cache, err = cache.New(cache.Config{Origin: cacheOrigin{s}, MaxBytes: cfg.CacheBytes, MaxStale: cfg.MaxStale,
		ErrorTTL: cfg.ErrorTTL, Now: cfg.Clock.Now, Logger: cfg.Logger})
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	s.handler = s.accessLog(compress.Handler(s.route, compress.Config{MinSize: 512}))
	s.srv = &fasthttp.Server{
		Handler:                      s.handler,
		Name:                         "provenant-edge",
		StreamRequestBody:            true,
		DisablePreParseMultipartForm: true,
		MaxRequestBodySize:           preReadBytes,
		ReadTimeout:                  10 * time.Minute,
		WriteTimeout:                 10 * time.Minute,
		IdleTimeout:                  60 * time.Second,
		NoDefaultServerHeader:        true,
		NoDefaultDate:                true,
		NoDefaultContentType:         true,
		Logger:                       quietLogger{},
	}
	return s, nil
}

func cmp(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
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

// Serve answers requests on ln until Shutdown.
func (s *Server) Serve(ln net.Listener) error { return s.srv.Serve(ln) }

// Shutdown stops accepting connections and waits for requests in flight.
// It may be called from another goroutine than Serve's, before or while
// it runs: the HTTP server exists from New on.
func (s *Server) Shutdown(ctx context.Context) error { return s.srv.ShutdownWithContext(ctx) }

type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}
