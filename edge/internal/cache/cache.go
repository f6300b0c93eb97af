// Package cache is the edge's HTTP cache for the origin's public,
// read-mostly objects: badges, certificates, the widget's scripts,
// manifest and verifier module, demo pages and web-app assets.
//
// It is a shared cache in the sense of RFC 9111: it stores what the
// origin's Cache-Control allows (never private, no-store, Set-Cookie or
// authorised answers), keys on the method-normalised URL plus the request
// headers the origin's Vary names, revalidates with If-None-Match, and
// serves stale copies within stale-while-revalidate and stale-if-error,
// both bounded by Config.MaxStale. Bodies are stored once, in identity
// coding; each stored object computes at most one compressed variant per
// coding, counted in its weight. Clients' own Cache-Control request
// directives are ignored, so no client can make the edge bypass its cache.
package cache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/maypok86/otter/v2"
	"github.com/valyala/fasthttp"
	"golang.org/x/sync/singleflight"
)

// Origin does one round trip to the origin (a *fasthttp.HostClient satisfies it).
// It must bound its own time (read/write timeouts): a miss waits for it.
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

// X-Cache values.
const (
	stateHit         = "HIT"
	stateMiss        = "MISS"
	stateStale       = "STALE"
	stateRevalidated = "REVALIDATED"
)

// entryOverhead approximates the bookkeeping of one stored object
// (entry struct, map and policy nodes) so that many tiny objects still
// count against MaxBytes.
const entryOverhead = 512

// minRetain keeps an object with a validator a little past its stale
// windows, so that a later request costs a 304 rather than a full body.
const minRetain = time.Minute

// Cache serves cacheable GET/HEAD requests from memory or the origin. It
// is safe for concurrent use.
type Cache struct {
	cfg      Config
	now      func() time.Time
	log      *slog.Logger
	store    *otter.Cache[string, *entry]
	flights  singleflight.Group
	maxEntry int64 // larger objects are served but not stored
	bg       sync.WaitGroup

	lastWarn   atomic.Int64 // unix ns of the last origin warning logged
	suppressed atomic.Int64 // warnings left out since
}

// New checks cfg and returns a Cache ready to serve.
func New(cfg Config) (*Cache, error) {
	switch {
	case cfg.Origin == nil:
		return nil, errors.New("cache: no origin")
	case cfg.MaxBytes <= 0:
		return nil, errors.New("cache: MaxBytes must be positive")
	case cfg.MaxStale < 0 || cfg.ErrorTTL < 0:
		return nil, errors.New("cache: MaxStale and ErrorTTL must not be negative")
	}
	c := &Cache{cfg: cfg, now: cfg.Now, log: cfg.Logger, maxEntry: cfg.MaxBytes / 4}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	opts := &otter.Options[string, *entry]{
		MaximumWeight: uint64(cfg.MaxBytes),
		Weigher:       weigh,
		ExpiryCalculator: otter.ExpiryWritingFunc(func(e otter.Entry[string, *entry]) time.Duration {
			return max(e.Value.dropAt.Sub(c.now()), time.Nanosecond)
		}),
		Logger: otterLogger{c.log},
	}
	if c.now == nil {
		c.now = time.Now
	} else {
		// Expiry follows the injected clock, so that it agrees with the
		// freshness checks Serve makes.
		opts.Clock = otterClock{c.now}
	}
	store, err := otter.New(opts)
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	c.store = store
	return c, nil
}

// Serve answers ctx (GET or HEAD) from the cache or the origin: honours the origin's
// Cache-Control/ETag, revalidates with If-None-Match, serves stale within bounds,
// coalesces concurrent misses per key, answers the client's own If-None-Match with 304,
// negotiates Content-Encoding (zstd, br, gzip for compressible types; never images/video;
// a compressed variant computed once per entry), and sets X-Cache: HIT|MISS|STALE|REVALIDATED.
// When the origin is unreachable and nothing stale is usable: 503 problem+json
// (code "origin_unavailable").
//
// Other methods and requests carrying Authorization go to the origin
// unchanged and are never stored (X-Cache: MISS).
func (c *Cache) Serve(ctx *fasthttp.RequestCtx) {
	if (!ctx.IsGet() && !ctx.IsHead()) || len(ctx.Request.Header.Peek(fasthttp.HeaderAuthorization)) > 0 {
		c.pass(ctx)
		return
	}
	fr := newFetchRequest(&ctx.Request)
	now := c.now()
	e, pass := c.lookup(fr, now)
	if pass {
		c.pass(ctx)
		return
	}
	if e != nil {
		switch {
		case now.Before(e.freshUntil):
			c.write(ctx, e, stateHit, now)
			return
		case now.Before(e.swrUntil):
			c.write(ctx, e, stateStale, now)
			c.refreshInBackground(fr, e)
			return
		}
	}
	res := c.fetch(fr, e)
	now = c.now()
	switch {
	case res.pass:
		c.pass(ctx)
	case res.err == nil && !res.originFailed:
		c.write(ctx, res.entry, res.state, now)
	case e != nil && now.Before(e.sieUntil):
		c.write(ctx, e, stateStale, now)
	case res.err != nil:
		unavailable(ctx)
	default: // the origin's own 5xx answer, with nothing stale to stand in
		c.write(ctx, res.entry, stateMiss, now)
	}
}

// Close waits for background revalidations to finish and stops the
// store's maintenance goroutines. Serve must not be called after Close.
func (c *Cache) Close() {
	c.bg.Wait()
	c.store.StopAllGoroutines()
}

// fetchRequest is what a fetch forwards to the origin: only headers that
// cannot carry a credential, so one answer may serve every client.
type fetchRequest struct {
	host, uri, accept, acceptLanguage string
}

// forwarded are the request headers a fetch sends, hence the only ones an
// origin's Vary may name for the answer to be stored.
var forwarded = [...]string{fasthttp.HeaderAccept, fasthttp.HeaderAcceptLanguage}

func newFetchRequest(r *fasthttp.Request) fetchRequest {
	return fetchRequest{
		host:           string(r.Header.Host()),
		uri:            originForm(r.Header.RequestURI()),
		accept:         string(r.Header.Peek(fasthttp.HeaderAccept)),
		acceptLanguage: string(r.Header.Peek(fasthttp.HeaderAcceptLanguage)),
	}
}

// originForm is the request target without an absolute form's scheme and
// authority; the path stays as the client wrote it (not re-escaped), since
// the origin's router matches the raw path.
func originForm(uri []byte) string {
	s := string(uri)
	for _, scheme := range [...]string{"http://", "https://"} {
		if len(s) >= len(scheme) && strings.EqualFold(s[:len(scheme)], scheme) {
			rest := s[len(scheme):]
			if i := strings.IndexAny(rest, "/?"); i >= 0 {
				if rest[i] == '?' {
					return "/" + rest[i:]
				}
				return rest[i:]
			}
			return "/"
		}
	}
	return s
}

func (fr *fetchRequest) header(name string) string {
	switch name {
	case fasthttp.HeaderAccept:
		return fr.accept
	case fasthttp.HeaderAcceptLanguage:
		return fr.acceptLanguage
	}
	return ""
}

// baseKey is the method-normalised (HEAD shares GET's entry) URL.
func (fr *fetchRequest) baseKey() string { return strings.ToLower(fr.host) + " " + fr.uri }

// flightKey identifies fetches that would get the same answer.
func (fr *fetchRequest) flightKey() string {
	return fr.baseKey() + "\x00" + normValue(fr.accept) + "\x00" + normValue(fr.acceptLanguage)
}

// variantKey is the storage key of the answer to fr under the origin's
// Vary names.
func (fr *fetchRequest) variantKey(vary []string) string {
	var b strings.Builder
	b.WriteString(fr.baseKey())
	for _, name := range vary {
		b.WriteString("\x00")
		b.WriteString(name)
		b.WriteString("=")
		b.WriteString(normValue(fr.header(name)))
	}
	return b.String()
}

// normValue folds the differences that never change a negotiation
// (case and whitespace), so equivalent requests share one entry.
func normValue(v string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' {
			return -1
		}
		if 'A' <= r && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, v)
}

func (fr *fetchRequest) build(req *fasthttp.Request) {
	req.Header.SetMethod(fasthttp.MethodGet)
	req.SetRequestURI(fr.uri)
	req.Header.SetHost(fr.host)
	if fr.accept != "" {
		req.Header.Set(fasthttp.HeaderAccept, fr.accept)
	}
	if fr.acceptLanguage != "" {
		req.Header.Set(fasthttp.HeaderAcceptLanguage, fr.acceptLanguage)
	}
	// The cache stores identity bodies and compresses them itself.
	req.Header.Set(fasthttp.HeaderAcceptEncoding, "identity")
}

// lookup finds the stored answer for fr, following a Vary marker; pass
// reports that the origin's answers at this URL must not be shared.
func (c *Cache) lookup(fr fetchRequest, now time.Time) (e *entry, pass bool) {
	v, ok := c.store.GetIfPresent(fr.baseKey())
	if !ok || !now.Before(v.dropAt) {
		return nil, false
	}
	switch v.kind {
	case kindPass:
		return nil, true
	case kindVary:
		v, ok = c.store.GetIfPresent(fr.variantKey(v.vary))
		if !ok || !now.Before(v.dropAt) || v.kind != kindObject {
			return nil, false
		}
	}
	return v, false
}

// result is one fetch's outcome, shared by every request that joined it;
// entry is immutable from here on.
type result struct {
	entry        *entry
	state        string
	err          error // the origin could not be reached or its answer not read
	originFailed bool  // the origin answered 5xx (entry holds that answer)
	pass         bool  // the answer may not be shared; proxy this request
}

// fetch asks the origin for fr (conditionally when prior has an ETag),
// one round trip at a time per flight key.
func (c *Cache) fetch(fr fetchRequest, prior *entry) result {
	v, _, _ := c.flights.Do(fr.flightKey(), func() (any, error) {
		return c.roundTrip(fr, prior), nil
	})
	return v.(result)
}

func (c *Cache) roundTrip(fr fetchRequest, prior *entry) result {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	fr.build(req)
	if prior != nil {
		switch {
		case prior.etag != "":
			req.Header.Set(fasthttp.HeaderIfNoneMatch, prior.etag)
		case prior.lastModified != "":
			req.Header.Set(fasthttp.HeaderIfModifiedSince, prior.lastModified)
		}
	}
	if err := c.cfg.Origin.Do(req, resp); err != nil {
		c.warn("cache: origin unreachable", "path", fr.uri, "err", err)
		return result{err: fmt.Errorf("cache: fetch %s: %w", fr.uri, err)}
	}
	now := c.now()
	status := resp.StatusCode()
	if status == fasthttp.StatusNotModified && prior != nil && (prior.etag != "" || prior.lastModified != "") {
		e := c.revalidated(prior, resp, now)
		if e.storable {
			c.put(fr, e)
		} else {
			c.drop(prior)
		}
		return result{entry: e, state: stateRevalidated}
	}
	e, err := c.newEntry(resp, now)
	if err != nil {
		c.warn("cache: unreadable origin answer", "path", fr.uri, "err", err)
		return result{err: fmt.Errorf("cache: fetch %s: %w", fr.uri, err)}
	}
	if status >= 500 {
		return result{entry: e, originFailed: true}
	}
	if e.unshareable {
		c.putPass(fr, now)
		return result{pass: true}
	}
	if e.storable {
		c.put(fr, e)
	} else {
		c.drop(prior)
	}
	return result{entry: e, state: stateMiss}
}

// drop removes prior from the store, unless it was replaced meanwhile:
// the origin no longer lets the object be kept (no-store now, say), so
// the old copy must not go on being served stale.
func (c *Cache) drop(prior *entry) {
	if prior == nil || prior.key == "" {
		return
	}
	c.store.ComputeIfPresent(prior.key, func(old *entry) (*entry, otter.ComputeOp) {
		if old != prior {
			return old, otter.CancelOp
		}
		return nil, otter.InvalidateOp
	})
}

// warn logs an origin failure, at most one a second: while the origin is
// down every miss fails, and the log must not grow at the request rate.
func (c *Cache) warn(msg string, args ...any) {
	now := time.Now().UnixNano()
	last := c.lastWarn.Load()
	if now-last < int64(time.Second) || !c.lastWarn.CompareAndSwap(last, now) {
		c.suppressed.Add(1)
		return
	}
	if n := c.suppressed.Swap(0); n > 0 {
		args = append(args, "suppressed", n)
	}
	c.log.Warn(msg, args...)
}

// refreshRetry is how long a failed background revalidation waits before
// the next stale request may start another, so that an origin that is
// down is not asked at the request rate.
const refreshRetry = time.Second

// refreshInBackground revalidates e once while stale copies are served.
func (c *Cache) refreshInBackground(fr fetchRequest, e *entry) {
	if c.now().UnixNano() < e.retryAfter.Load() || !e.refreshing.CompareAndSwap(false, true) {
		return
	}
	c.bg.Add(1)
	go func() {
		defer c.bg.Done()
		defer e.refreshing.Store(false)
		if res := c.fetch(fr, e); res.err != nil || res.originFailed {
			e.retryAfter.Store(c.now().Add(refreshRetry).UnixNano())
		}
	}()
}

// put stores e for fr; with a Vary it stores a marker at the base key
// naming the headers, and e under the variant key.
func (c *Cache) put(fr fetchRequest, e *entry) {
	if !e.storable {
		return
	}
	base := fr.baseKey()
	if len(e.vary) == 0 {
		e.key = base
		c.store.Set(base, e)
		return
	}
	marker := &entry{kind: kindVary, vary: e.vary, dropAt: e.dropAt}
	c.store.Compute(base, func(old *entry, found bool) (*entry, otter.ComputeOp) {
		if found && old.kind == kindVary && equalNames(old.vary, e.vary) && old.dropAt.After(marker.dropAt) {
			return old, otter.CancelOp
		}
		return marker, otter.WriteOp
	})
	e.key = fr.variantKey(e.vary)
	c.store.Set(e.key, e)
}

// putPass remembers for a while that answers at fr's URL are proxied.
func (c *Cache) putPass(fr fetchRequest, now time.Time) {
	c.store.Set(fr.baseKey(), &entry{kind: kindPass, dropAt: now.Add(max(c.cfg.ErrorTTL, minRetain))})
}

// pass proxies the client's request to the origin as it is, for answers
// that may not be shared.
func (c *Cache) pass(ctx *fasthttp.RequestCtx) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	ctx.Request.CopyTo(req)
	dropHopByHop(&req.Header)
	// The origin believes forwarding headers from edges; a client's own
	// must not reach it through this one.
	for _, h := range clientForwarding {
		req.Header.Del(h)
	}
	if err := c.cfg.Origin.Do(req, resp); err != nil {
		c.warn("cache: origin unreachable", "path", string(ctx.Path()), "err", err)
		unavailable(ctx)
		return
	}
	resp.CopyTo(&ctx.Response)
	for _, h := range hopByHop {
		ctx.Response.Header.Del(h)
	}
	ctx.Response.Header.Set("X-Cache", stateMiss)
}

var clientForwarding = [...]string{"X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host", "Forwarded", "X-Real-Ip"}

var hopByHop = [...]string{"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate",
	"Proxy-Authorization", "TE", "Trailer", "Transfer-Encoding", "Upgrade"}

func dropHopByHop(h *fasthttp.RequestHeader) {
	for _, name := range strings.Split(string(h.Peek("Connection")), ",") {
		if name = strings.TrimSpace(name); name != "" {
			h.Del(name)
		}
	}
	for _, name := range hopByHop {
		h.Del(name)
	}
}

// problem is the RFC 9457 body of the cache's one own error.
type problem struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Detail    string `json:"detail"`
	Code      string `json:"code"`
	RequestID string `json:"request_id,omitempty"`
}

// unavailable answers 503 origin_unavailable.
func unavailable(ctx *fasthttp.RequestCtx) {
	p := problem{
		Type:      "urn:provenant:problem:origin_unavailable",
		Title:     "Origin unavailable",
		Status:    fasthttp.StatusServiceUnavailable,
		Detail:    "The origin could not be reached and no stored copy may be served.",
		Code:      "origin_unavailable",
		RequestID: string(ctx.Response.Header.Peek("X-Request-Id")),
	}
	b, _ := json.Marshal(p) // a struct of strings and an int always marshals
	ctx.Response.ResetBody()
	ctx.Response.Header.Del(fasthttp.HeaderContentEncoding)
	ctx.Response.Header.Del(fasthttp.HeaderETag)
	ctx.SetStatusCode(fasthttp.StatusServiceUnavailable)
	ctx.SetContentType("application/problem+json")
	ctx.Response.Header.Set(fasthttp.HeaderCacheControl, "no-store")
	ctx.Response.Header.Set(fasthttp.HeaderRetryAfter, "5")
	ctx.Response.Header.Set("X-Cache", stateMiss)
	ctx.SetBody(b)
}

func equalNames(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// weigh is an object's share of MaxBytes: key, headers, body and the
// compressed variants computed so far.
func weigh(key string, e *entry) uint32 {
	w := int64(len(key)) + entryOverhead + e.baseWeight + e.extra.Load()
	return uint32(min(w, math.MaxUint32))
}

// otterClock adapts Config.Now to the store's expiry clock.
type otterClock struct{ now func() time.Time }

func (c otterClock) NowNano() int64 { return c.now().UnixNano() }

func (c otterClock) Tick(d time.Duration) <-chan time.Time { return time.Tick(d) }

// otterLogger sends the store's own warnings to the cache's logger.
type otterLogger struct{ log *slog.Logger }

func (l otterLogger) Warn(ctx context.Context, msg string, err error) {
	l.log.WarnContext(ctx, "cache store: "+msg, "err", err)
}

func (l otterLogger) Error(ctx context.Context, msg string, err error) {
	l.log.ErrorContext(ctx, "cache store: "+msg, "err", err)
}

// ageSeconds is the Age header value of an answer stored at storedAt.
func ageSeconds(storedAt, now time.Time) string {
	return strconv.FormatInt(int64(max(now.Sub(storedAt), 0)/time.Second), 10)
}
