package cache

import (
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/clock"
	"github.com/valyala/fasthttp"
)

// object is what the test origin answers at one path.
type object struct {
	status   int
	ctype    string
	cc       string
	etag     string
	vary     string
	body     []byte
	extra    map[string]string // further answer headers
	byAccept map[string][]byte // body by exact Accept value (else body)
	encoded  string            // send the body in this coding (gzip) regardless of the request
}

// testOrigin is a real fasthttp server on loopback whose objects,
// failures and availability a test controls.
type testOrigin struct {
	t    testing.TB
	addr string

	mu      sync.Mutex
	objects map[string]object
	hits    map[string]int // requests per path
	inm     map[string]int // of which conditional (If-None-Match or If-Modified-Since)
	sent304 map[string]int
	accepts []string // Accept-Encoding values received
	auths   int      // requests that carried Authorization or Cookie
	xff     int      // requests that carried X-Forwarded-For

	fail    atomic.Bool   // answer 500 to everything
	gate    chan struct{} // when non-nil, answers wait for it to close
	arrived chan struct{} // one send per request that reached the handler, when non-nil

	srv *fasthttp.Server
	ln  net.Listener
}

func newTestOrigin(t testing.TB) *testOrigin {
	t.Helper()
	o := &testOrigin{t: t, objects: map[string]object{}, hits: map[string]int{}, inm: map[string]int{}, sent304: map[string]int{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o.addr = ln.Addr().String()
	o.start(ln)
	t.Cleanup(o.stop)
	return o
}

func (o *testOrigin) start(ln net.Listener) {
	o.ln = ln
	// NoDefaultDate: a Date header, when a test wants one, is on the fake clock.
	o.srv = &fasthttp.Server{Handler: o.handle, IdleTimeout: time.Second, NoDefaultDate: true}
	go o.srv.Serve(ln) //nolint:errcheck // ends when stopped
}

// stop makes the origin unreachable (connections refused).
func (o *testOrigin) stop() {
	if o.srv != nil {
		_ = o.srv.Shutdown()
		o.srv = nil
	}
}

// restart brings the origin back on the same address.
func (o *testOrigin) restart() {
	o.t.Helper()
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		o.t.Fatal(err)
	}
	o.start(ln)
}

func (o *testOrigin) set(path string, obj object) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.objects[path] = obj
}

func (o *testOrigin) count(path string) (hits, conditional, notModified int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.hits[path], o.inm[path], o.sent304[path]
}

func (o *testOrigin) handle(ctx *fasthttp.RequestCtx) {
	path := string(ctx.Path())
	inm := string(ctx.Request.Header.Peek("If-None-Match"))
	ims := string(ctx.Request.Header.Peek("If-Modified-Since"))
	o.mu.Lock()
	o.hits[path]++
	if inm != "" || ims != "" {
		o.inm[path]++
	}
	o.accepts = append(o.accepts, string(ctx.Request.Header.Peek("Accept-Encoding")))
	if len(ctx.Request.Header.Peek("Authorization")) > 0 || len(ctx.Request.Header.Peek("Cookie")) > 0 {
		o.auths++
	}
	if len(ctx.Request.Header.Peek("X-Forwarded-For")) > 0 {
		o.xff++
	}
	obj, ok := o.objects[path]
	gate, arrived := o.gate, o.arrived
	o.mu.Unlock()
	if arrived != nil {
		arrived <- struct{}{}
	}
	if gate != nil {
		<-gate
	}
	if o.fail.Load() {
		ctx.Error(`{"code":"internal"}`, fasthttp.StatusInternalServerError)
		return
	}
	if !ok {
		ctx.Error("not found", fasthttp.StatusNotFound)
		return
	}
	h := &ctx.Response.Header
	if obj.cc != "" {
		h.Set("Cache-Control", obj.cc)
	}
	if obj.etag != "" {
		h.Set("ETag", obj.etag)
	}
	if obj.vary != "" {
		h.Set("Vary", obj.vary)
	}
	for k, v := range obj.extra {
		h.Add(k, v)
	}
	h.SetContentType(obj.ctype)
	status := obj.status
	if status == 0 {
		status = fasthttp.StatusOK
	}
	lm := obj.extra["Last-Modified"]
	if status == fasthttp.StatusOK && (obj.etag != "" && inm != "" && strings.Contains(inm, obj.etag) || lm != "" && ims == lm) {
		o.mu.Lock()
		o.sent304[path]++
		o.mu.Unlock()
		ctx.SetStatusCode(fasthttp.StatusNotModified)
		return
	}
	ctx.SetStatusCode(status)
	body := obj.body
	if b, ok := obj.byAccept[string(ctx.Request.Header.Peek("Accept"))]; ok {
		body = b
	}
	if obj.encoded == "gzip" {
		body = fasthttp.AppendGzipBytes(nil, body)
		h.SetContentEncoding("gzip")
	}
	ctx.SetBody(body)
}

// newFakeClock is the injectable Now, at a fixed start.
func newFakeClock() *clock.Fake { return clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) }

// edgeFixture is a cache behind a real fasthttp server on loopback, in
// front of a test origin.
type edgeFixture struct {
	origin *testOrigin
	cache  *Cache
	clock  *clock.Fake
	client *fasthttp.HostClient
	served atomic.Int64 // requests that entered Serve
}

func newFixture(t testing.TB, mutate func(*Config)) *edgeFixture {
	t.Helper()
	return newWrappedFixture(t, mutate, nil)
}

// newWrappedFixture serves the cache through wrap (when not nil), as the
// edge wraps it in its own handlers.
func newWrappedFixture(t testing.TB, mutate func(*Config), wrap func(fasthttp.RequestHandler) fasthttp.RequestHandler) *edgeFixture {
	t.Helper()
	f := &edgeFixture{origin: newTestOrigin(t), clock: newFakeClock()}
	cfg := Config{
		Origin:   &fasthttp.HostClient{Addr: f.origin.addr, ReadTimeout: 5 * time.Second, WriteTimeout: 5 * time.Second, MaxIdleConnDuration: 100 * time.Millisecond},
		MaxBytes: 8 << 20,
		MaxStale: time.Minute,
		ErrorTTL: 5 * time.Second,
		Now:      f.clock.Now,
	}
	if mutate != nil {
		mutate(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.cache = c
	t.Cleanup(c.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var h fasthttp.RequestHandler = func(ctx *fasthttp.RequestCtx) {
		f.served.Add(1)
		c.Serve(ctx)
	}
	if wrap != nil {
		h = wrap(h)
	}
	srv := &fasthttp.Server{Handler: h}
	go srv.Serve(ln) //nolint:errcheck // ends at cleanup
	t.Cleanup(func() { _ = srv.Shutdown() })
	f.client = &fasthttp.HostClient{Addr: ln.Addr().String(), ReadTimeout: 10 * time.Second, MaxConns: 512}
	return f
}

// do sends one request through the edge; headers are name, value pairs.
func (f *edgeFixture) do(t *testing.T, method, path string, headers ...string) *fasthttp.Response {
	t.Helper()
	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	req.Header.SetMethod(method)
	req.SetRequestURI("http://edge.test" + path)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp := &fasthttp.Response{}
	if method == fasthttp.MethodHead {
		resp.SkipBody = true
	}
	if err := f.client.Do(req, resp); err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

func (f *edgeFixture) get(t *testing.T, path string, headers ...string) *fasthttp.Response {
	t.Helper()
	return f.do(t, fasthttp.MethodGet, path, headers...)
}

func xcache(r *fasthttp.Response) string { return string(r.Header.Peek("X-Cache")) }
