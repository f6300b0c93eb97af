package cache

import (
	"bytes"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/maypok86/otter/v2"
	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/edge/internal/compress"
)

type kind uint8

const (
	kindObject kind = iota // a stored answer
	kindVary               // names the Vary headers of the answers at a URL
	kindPass               // answers at a URL are not shareable: proxy them
)

// minCompress is the body size below which compression saves less than
// the Content-Encoding and Vary headers cost.
const minCompress = 256

// maxHighEffort is the largest body compressed at high effort. Above it
// the first client asking for a coding would wait too long: on the 5 MB
// verifier module high effort takes 2-10 times as long as default effort
// (seconds for br and gzip) and saves 1-3 points of size.
const maxHighEffort = 256 << 10

// field is one stored response header.
type field struct{ name, value string }

// entry is a stored (or, for unstorable answers, a one-off) origin answer.
// Everything but variants, extra and refreshing is fixed once the entry is
// shared; a revalidation makes a new entry.
type entry struct {
	kind   kind
	vary   []string  // canonical names of the Vary'd request headers
	dropAt time.Time // when the store lets go of it

	key          string // storage key, once stored
	status       int
	header       []field
	varyHeader   string // the origin's Vary, as sent
	body         []byte // identity coding
	etag         string
	lastModified string // the Last-Modified validator, when the origin sent one
	compressible bool
	noTransform  bool // Cache-Control: no-transform forbids compressing it
	storable     bool
	unshareable  bool // Vary names a header a fetch does not forward, or "*"
	storedAt     time.Time
	freshUntil   time.Time
	swrUntil     time.Time // end of stale-while-revalidate use
	sieUntil     time.Time // end of stale-if-error use
	baseWeight   int64

	variants   [3]variant   // zstd, br, gzip
	extra      atomic.Int64 // bytes held by computed variants
	refreshing atomic.Bool
	retryAfter atomic.Int64 // unix ns before which no background revalidation starts
}

// variant is one compressed form of an entry's body, computed at most once.
type variant struct {
	once sync.Once
	done atomic.Bool
	body []byte // nil when compression did not make it smaller
}

var codings = [3]string{compress.Zstd, compress.Brotli, compress.Gzip}

// cacheableStatus are the statuses RFC 9110 §15.1 makes heuristically
// cacheable, but 501: a 5xx is an origin failure here (stale-if-error
// applies), never stored. Other statuses are never stored either.
func cacheableStatus(s int) bool {
	switch s {
	case 200, 203, 204, 300, 301, 308, 404, 405, 410, 414:
		return true
	}
	return false
}

// dropped are the answer headers not stored: hop-by-hop ones, those the
// cache recomputes (length, coding, age, date, validators, Vary), and
// those that describe the fetch rather than the object.
var dropped = map[string]bool{
	"connection": true, "keep-alive": true, "proxy-connection": true, "proxy-authenticate": true,
	"te": true, "trailer": true, "transfer-encoding": true, "upgrade": true,
	"content-length": true, "content-encoding": true, "date": true, "age": true,
	"set-cookie": true, "x-cache": true, "vary": true, "etag": true, "server": true,
	"x-request-id": true, "ratelimit": true, "ratelimit-policy": true, "retry-after": true,
}

// newEntry reads the origin's answer into an entry and decides whether,
// and for how long, it may be stored.
func (c *Cache) newEntry(resp *fasthttp.Response, now time.Time) (*entry, error) {
	h := &resp.Header
	e := &entry{kind: kindObject, status: resp.StatusCode(), etag: string(h.Peek(fasthttp.HeaderETag))}
	body := resp.Body()
	if ce := string(h.ContentEncoding()); ce != "" && !strings.EqualFold(ce, "identity") {
		b, err := resp.BodyUncompressedWithLimit(int(min(c.cfg.MaxBytes, 1<<31-1)))
		if err != nil {
			return nil, errors.New("cannot decode " + ce + " body")
		}
		body = b
	}
	e.body = bytes.Clone(body)
	// Headers the Connection header names are hop-by-hop too.
	connection := map[string]bool{}
	for _, name := range strings.Split(string(h.Peek("Connection")), ",") {
		connection[strings.ToLower(strings.TrimSpace(name))] = true
	}
	hasCookie := false
	for k, v := range h.All() {
		name := strings.ToLower(string(k))
		switch {
		case name == "set-cookie":
			hasCookie = true
		case name == "vary":
			if e.varyHeader != "" {
				e.varyHeader += ", "
			}
			e.varyHeader += string(v)
		case dropped[name] || connection[name]:
		default:
			e.header = append(e.header, field{string(k), string(v)})
		}
	}
	e.compressible = compress.Compressible(h.ContentType())
	for _, name := range strings.Split(e.varyHeader, ",") {
		name = canonicalName(strings.TrimSpace(name))
		switch name {
		case "", fasthttp.HeaderAcceptEncoding:
		case fasthttp.HeaderAccept, fasthttp.HeaderAcceptLanguage:
			if !containsName(e.vary, name) {
				e.vary = append(e.vary, name)
			}
		default:
			e.unshareable = true
		}
	}
	age, _ := parseDelta(strings.TrimSpace(string(h.Peek("Age"))))
	c.describe(e, now.Add(-age), string(h.Peek(fasthttp.HeaderDate)))
	if hasCookie || e.unshareable {
		e.storable = false
	}
	return e, nil
}

func containsName(names []string, n string) bool {
	for _, m := range names {
		if m == n {
			return true
		}
	}
	return false
}

// revalidated is prior refreshed by the origin's 304: the 304's headers
// replace the stored ones of the same name (RFC 9111 §4.3.4) and the
// freshness starts again; the body and its compressed variants carry over.
func (c *Cache) revalidated(prior *entry, resp *fasthttp.Response, now time.Time) *entry {
	e := &entry{kind: kindObject, status: prior.status, body: prior.body, etag: prior.etag,
		compressible: prior.compressible, vary: prior.vary, varyHeader: prior.varyHeader}
	fresh := map[string]bool{}
	var updates []field
	hasCookie := false
	for k, v := range resp.Header.All() {
		name := strings.ToLower(string(k))
		hasCookie = hasCookie || name == "set-cookie"
		if dropped[name] || name == "content-type" {
			continue
		}
		fresh[name] = true
		updates = append(updates, field{string(k), string(v)})
	}
	for _, f := range prior.header {
		if !fresh[strings.ToLower(f.name)] {
			e.header = append(e.header, f)
		}
	}
	e.header = append(e.header, updates...)
	if etag := resp.Header.Peek(fasthttp.HeaderETag); len(etag) > 0 {
		e.etag = string(etag)
	}
	age, _ := parseDelta(strings.TrimSpace(string(resp.Header.Peek("Age"))))
	c.describe(e, now.Add(-age), string(resp.Header.Peek(fasthttp.HeaderDate)))
	if hasCookie {
		e.storable = false
	}
	for i := range prior.variants {
		pv := &prior.variants[i]
		if pv.done.Load() {
			v := &e.variants[i]
			v.once.Do(func() { v.body = pv.body; v.done.Store(true) })
			e.extra.Add(int64(len(pv.body)))
		}
	}
	return e
}

// describe sets e's freshness, stale windows, storability and weight from
// its status, headers and validator (RFC 9111 §3, §4.2, RFC 5861), within
// the cache's bounds: stale use at most MaxStale, errors at most ErrorTTL
// and never stale.
func (c *Cache) describe(e *entry, storedAt time.Time, date string) {
	var ccValues []string
	var expires string
	for _, f := range e.header {
		switch strings.ToLower(f.name) {
		case "cache-control":
			ccValues = append(ccValues, f.value)
		case "expires":
			expires = f.value
		case "last-modified":
			e.lastModified = f.value
		}
	}
	cc := parseCacheControl(ccValues...)
	e.noTransform = cc.noTransform
	validator := e.etag != "" || e.lastModified != ""
	var life time.Duration
	switch {
	case cc.hasSMaxAge:
		life = cc.sMaxAge
	case cc.hasMaxAge:
		life = cc.maxAge
	case expires != "":
		// An invalid Expires means already expired (§5.3).
		if exp, err := http.ParseTime(expires); err == nil {
			base := storedAt
			if d, err := http.ParseTime(date); err == nil {
				base = d
			}
			life = max(exp.Sub(base), 0)
		}
	}
	if cc.noCache {
		life = 0
	}
	isError := e.status >= 400
	noStale := cc.noCache || cc.mustRevalidate || isError
	if isError {
		life = min(life, c.cfg.ErrorTTL)
	}
	e.storedAt = storedAt
	e.freshUntil = storedAt.Add(life)
	e.swrUntil, e.sieUntil = e.freshUntil, e.freshUntil
	if !noStale {
		e.swrUntil = e.freshUntil.Add(min(cc.swr, c.cfg.MaxStale))
		e.sieUntil = e.freshUntil.Add(min(cc.sie, c.cfg.MaxStale))
	}
	e.dropAt = maxTime(e.swrUntil, e.sieUntil)
	if validator && !isError {
		e.dropAt = maxTime(e.dropAt, e.freshUntil.Add(max(c.cfg.MaxStale, minRetain)))
	}
	e.baseWeight = int64(len(e.body) + len(e.etag) + len(e.varyHeader))
	for _, f := range e.header {
		e.baseWeight += int64(len(f.name) + len(f.value))
	}
	e.storable = cacheableStatus(e.status) && !cc.noStore && !cc.private &&
		(life > 0 || (validator && !isError)) &&
		e.dropAt.After(c.now()) && int64(len(e.body)) <= c.maxEntry
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// write answers ctx from e.
func (c *Cache) write(ctx *fasthttp.RequestCtx, e *entry, state string, now time.Time) {
	resp := &ctx.Response
	h := &resp.Header
	resp.ResetBody()
	h.Del(fasthttp.HeaderContentEncoding)
	h.SetNoDefaultContentType(true)
	h.SetStatusCode(e.status)
	for _, f := range e.header {
		h.Add(f.name, f.value)
	}
	if e.storable {
		h.Set("Age", ageSeconds(e.storedAt, now))
	}
	h.Set("X-Cache", state)
	if e.varyHeader != "" {
		h.Set(fasthttp.HeaderVary, e.varyHeader)
	}
	compressed := e.compressible && len(e.body) >= minCompress && !e.noTransform
	if compressed {
		compress.AddVary(h, fasthttp.HeaderAcceptEncoding)
	}
	etag := e.etag
	if e.status == fasthttp.StatusOK && notModified(&ctx.Request.Header, e) {
		if etag != "" {
			h.Set(fasthttp.HeaderETag, etag)
		}
		resp.SetStatusCode(fasthttp.StatusNotModified)
		return
	}
	body := e.body
	if compressed {
		if coding := compress.Negotiate(ctx.Request.Header.Peek(fasthttp.HeaderAcceptEncoding)); coding != "" {
			if b := c.variant(e, coding); b != nil {
				body = b
				h.SetContentEncoding(coding)
				if etag != "" && !strings.HasPrefix(etag, "W/") {
					// Same object, other bytes: a strong tag would lie.
					etag = "W/" + etag
				}
			}
		}
	}
	if etag != "" {
		h.Set(fasthttp.HeaderETag, etag)
	}
	// Stored bodies never change once shared, so they go out uncopied.
	resp.SetBodyRaw(body)
}

// variant returns e's body in coding, compressing it on first use; nil
// when compression does not make it smaller.
func (c *Cache) variant(e *entry, coding string) []byte {
	i := 0
	for i < len(codings) && codings[i] != coding {
		i++
	}
	if i == len(codings) {
		return nil
	}
	v := &e.variants[i]
	v.once.Do(func() {
		effort := compress.EffortDefault
		if e.storable && len(e.body) <= maxHighEffort {
			effort = compress.EffortHigh
		}
		if out := compress.Encode(nil, coding, e.body, effort); len(out) < len(e.body) {
			v.body = out
		}
		v.done.Store(true)
		if e.key != "" && len(v.body) > 0 {
			e.extra.Add(int64(len(v.body)))
			c.reweigh(e)
		}
	})
	return v.body
}

// reweigh makes the store count e's new variant against MaxBytes (the
// store weighs an entry when it is written).
func (c *Cache) reweigh(e *entry) {
	c.store.ComputeIfPresent(e.key, func(old *entry) (*entry, otter.ComputeOp) {
		if old != e {
			return old, otter.CancelOp
		}
		return e, otter.WriteOp
	})
}

// notModified evaluates the client's conditional GET against e (RFC 9110
// §13.2.2): If-None-Match when present, else If-Modified-Since.
func notModified(req *fasthttp.RequestHeader, e *entry) bool {
	if inm := req.Peek(fasthttp.HeaderIfNoneMatch); len(inm) > 0 {
		return e.etag != "" && matchesETag(inm, e.etag)
	}
	ims := req.Peek(fasthttp.HeaderIfModifiedSince)
	if len(ims) == 0 || e.lastModified == "" {
		return false
	}
	since, err := http.ParseTime(string(ims))
	if err != nil {
		return false
	}
	lm, err := http.ParseTime(e.lastModified)
	return err == nil && !lm.After(since)
}

// matchesETag is If-None-Match's weak comparison (RFC 9110 §13.1.2).
func matchesETag(inm []byte, etag string) bool {
	if len(inm) == 0 {
		return false
	}
	want := strings.TrimPrefix(etag, "W/")
	for _, t := range strings.Split(string(inm), ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == want {
			return true
		}
	}
	return false
}

// canonicalName writes a header name as Accept-Language is written.
func canonicalName(s string) string {
	b := []byte(strings.ToLower(s))
	upper := true
	for i, ch := range b {
		if upper && 'a' <= ch && ch <= 'z' {
			b[i] = ch - ('a' - 'A')
		}
		upper = ch == '-'
	}
	return string(b)
}
