package client

import (
	"bytes"
	"cmp"
	"context"

	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	crand "crypto/rand"
	"github.com/provenant/provenant/internal/defaults"
)

// Defaults of [Config].
const (
	DefaultMaxRetries  = 4
	DefaultMinBackoff  = 500 * time.Millisecond
	DefaultMaxBackoff  = 30 * time.Second
	DefaultMaxWait     = 2 * time.Minute
	DefaultUserAgent   = "provenant-go"
	idempotencyHeader  = "Idempotency-Key"
	maxJSONAnswerBytes = 16 << 20
)

// Config configures a [Client]. Only BaseURL is required.
type Config struct {
	// BaseURL is the origin, e.g. "https://provenant.example"; a path
	// prefix is kept (for an origin behind a proxy under a sub-path).
	BaseURL string
	// Token is sent as "Authorization: Bearer <token>": an API key
	// ("iai_…") or a session JWT (from Login). Empty sends none, which is
	// enough for the public endpoints.
	Token string
	// HTTPClient does the requests; nil means a client without overall
	// timeout (uploads may be long; bound calls with the context).
	HTTPClient *http.Client
	// MaxRetries is how many times a failed attempt is repeated (network
	// error, 429, 5xx); zero means DefaultMaxRetries, negative none.
	MaxRetries int
	// MinBackoff and MaxBackoff bound the exponential backoff: attempt n
	// waits a uniformly random time in [0, min(MaxBackoff, MinBackoff·2^n)]
	// ("full jitter"). Zero means the defaults.
	MinBackoff, MaxBackoff time.Duration
	// MaxWait caps one wait, Retry-After included: an origin asking for
	// longer is not retried and its error is returned. Zero means
	// DefaultMaxWait.
	MaxWait time.Duration
	// UserAgent is sent as User-Agent; "" means DefaultUserAgent.
	UserAgent string
	// Wait sleeps between attempts; nil means a timer that stops when ctx
	// is done. Tests pass one that records the waits.
	Wait func(ctx context.Context, d time.Duration) error
}

// Client calls one origin. It is safe for concurrent use.
type Client struct {
	base *url.URL
	cfg  Config
	hc   *http.Client
}

// New checks cfg and returns a client.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(cfg.BaseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: base URL %q is not an http(s) URL", cfg.BaseURL)
	}
	cfg.MaxRetries = cmp.Or(cfg.MaxRetries, DefaultMaxRetries)
	cfg.MinBackoff = defaults.Positive(cfg.MinBackoff, DefaultMinBackoff)
	cfg.MaxBackoff = defaults.Positive(cfg.MaxBackoff, DefaultMaxBackoff)
	cfg.MaxWait = defaults.Positive(cfg.MaxWait, DefaultMaxWait)
	cfg.UserAgent = cmp.Or(cfg.UserAgent, DefaultUserAgent)
	if cfg.Wait == nil {
		cfg.Wait = sleep
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{base: u, cfg: cfg, hc: hc}, nil
}

// BaseURL returns the origin's base URL.
func (c *Client) BaseURL() string { return c.base.String() }

// WithToken returns a client that shares c's configuration and transport
// but authenticates with token.
func (c *Client) WithToken(token string) *Client {
	cc := *c
	cc.cfg.Token = token
	return &cc
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// body produces a fresh request body for each attempt.
type body struct {
	open        func() (io.ReadCloser, error)
	contentType string
	// length is the exact body size, -1 when unknown (sent chunked).
	length int64
}

func jsonBody(v any) (*body, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("client: encode request: %w", err)
	}
	return &body{
		open:        func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil },
		contentType: "application/json",
		length:      int64(len(b)),
	}, nil
}

// request is one logical call.
type request struct {
	method string
	path   string
	query  url.Values
	body   *body
	accept string
	// header holds extra request headers (Range, If-Range).
	header http.Header
	// idempotencyKey, if set, is sent on every attempt; writes get one
	// automatically.
	idempotencyKey string
}

func isWrite(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// newIdempotencyKey returns a random UUIDv4.
func newIdempotencyKey() (string, error) {
	var b [16]byte
	if _, err := crand.Read(b[:]); err != nil {
		return "", fmt.Errorf("client: idempotency key: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

// send runs r with retries and returns the first 2xx or 304 answer, whose
// body the caller must close; any other final answer is an *Error.
func (c *Client) send(ctx context.Context, r request) (*http.Response, error) {
	u := *c.base
	u.RawPath = c.base.EscapedPath() + r.path
	p, err := url.PathUnescape(u.RawPath)
	if err != nil {
		return nil, fmt.Errorf("client: path %q: %w", r.path, err)
	}
	u.Path = p
	if len(r.query) > 0 {
		u.RawQuery = r.query.Encode()
	}
	key := r.idempotencyKey
	if key == "" && isWrite(r.method) {
		if key, err = newIdempotencyKey(); err != nil {
			return nil, err
		}
	}
	var last error
	for attempt := 0; ; attempt++ {
		resp, err := c.attempt(ctx, r, &u, key)
		var wait time.Duration
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, ctx.Err()
		case errors.Is(err, errNotReplayable) && last != nil:
			return nil, last
		case errors.Is(err, errNotReplayable):
			return nil, err
		case err != nil:
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err
			}
			err = &NetworkError{Method: r.method, URL: redact(&u), Err: err}
		case retryableStatus(resp.StatusCode):
			e := readError(resp, time.Now())
			err, wait = e, e.RetryAfter
		case resp.StatusCode >= 400:
			return nil, readError(resp, time.Now())
		default:
			return resp, nil
		}
		if attempt >= c.cfg.MaxRetries || c.cfg.MaxRetries < 0 {
			return nil, err
		}
		wait = max(wait, c.backoff(attempt))
		if wait > c.cfg.MaxWait {
			return nil, err
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return nil, err
		}
		if werr := c.cfg.Wait(ctx, wait); werr != nil {
			return nil, err
		}
		last = err
	}
}

// errNotReplayable stops retries of a body that can be sent only once.
var errNotReplayable = errors.New("client: the request body cannot be sent again")

func (c *Client) attempt(ctx context.Context, r request, u *url.URL, key string) (*http.Response, error) {
	var rd io.ReadCloser
	if r.body != nil {
		var err error
		if rd, err = r.body.open(); err != nil {
			return nil, err
		}
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u.String(), rd)
	if err != nil {
		if rd != nil {
			rd.Close()
		}
		return nil, fmt.Errorf("client: build request: %w", err)
	}
	if r.body != nil {
		req.Header.Set("Content-Type", r.body.contentType)
		req.ContentLength = r.body.length
		if r.body.length == 0 {
			req.Body = http.NoBody
		}
	}
	if r.accept != "" {
		req.Header.Set("Accept", r.accept)
	} else {
		req.Header.Set("Accept", "application/json")
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	if c.cfg.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.Token)
	}
	if key != "" {
		req.Header.Set(idempotencyHeader, key)
	}
	req.Header.Set("User-Agent", c.cfg.UserAgent)
	return c.hc.Do(req)
}

// backoff is the full-jitter wait before retry number attempt+1.
func (c *Client) backoff(attempt int) time.Duration {
	ceil := c.cfg.MaxBackoff
	if attempt < 30 {
		ceil = min(ceil, c.cfg.MinBackoff<<attempt)
	}
	return time.Duration(rand.Int64N(int64(ceil) + 1))
}

// parseRetryAfter reads delay-seconds or an HTTP date; zero when absent or
// unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0
		}
		return time.Duration(min(n, 1<<30)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// redact drops the query (it may carry a cursor, never a secret, but
// errors need not repeat it).
func redact(u *url.URL) string {
	v := *u
	v.RawQuery = ""
	return v.String()
}

// call sends r and decodes a JSON answer into out (nil discards it).
func (c *Client) call(ctx context.Context, r request, out any) error {
	resp, err := c.send(ctx, r)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxJSONAnswerBytes))
		return nil
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxJSONAnswerBytes)).Decode(out); err != nil {
		return &NetworkError{Method: r.method, URL: redact(resp.Request.URL), Err: fmt.Errorf("decode answer: %w", err)}
	}
	return nil
}

func (c *Client) getJSON(ctx context.Context, path string, q url.Values, out any) error {
	return c.call(ctx, request{method: http.MethodGet, path: path, query: q}, out)
}

func (c *Client) sendJSON(ctx context.Context, method, path string, in, out any) error {
	r := request{method: method, path: path}
	if in != nil {
		b, err := jsonBody(in)
		if err != nil {
			return err
		}
		r.body = b
	}
	return c.call(ctx, r, out)
}

// seg escapes one path segment.
func seg(s string) string { return url.PathEscape(s) }

// getAs GETs path into a fresh T. Like every endpoint method it returns
// the T even with an error, so callers check the error first.
func getAs[T any](ctx context.Context, c *Client, path string, q url.Values) (*T, error) {
	var out T
	return &out, c.getJSON(ctx, path, q, &out)
}

// sendAs sends in as JSON with method to path and decodes the answer into a
// fresh T, returned even with an error like getAs.
func sendAs[T any](ctx context.Context, c *Client, method, path string, in any) (*T, error) {
	var out T
	return &out, c.sendJSON(ctx, method, path, in, &out)
}
