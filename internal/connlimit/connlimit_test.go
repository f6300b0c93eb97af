package connlimit

import (
	"bufio"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/internal/connlimit/conntest"
)

// listen returns a budgeted loopback listener and serves it with a
// fasthttp server whose handler marks requests busy (Bodies.Handler).
func listen(t *testing.T, cfg Config, bodies *Bodies, h fasthttp.RequestHandler) (*Listener, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := NewListener(ln, cfg)
	if bodies == nil {
		bodies = NewBodies(BodyConfig{MaxBody: 1 << 20, Refuse: func(ctx *fasthttp.RequestCtx) { ctx.SetStatusCode(413) }})
	}
	srv := &fasthttp.Server{Handler: bodies.Handler(h), HeaderReceived: bodies.HeaderReceived, ExpectHandler: bodies.Expect, ReadTimeout: 5 * time.Second,
		StreamRequestBody: true, DisablePreParseMultipartForm: true, Logger: discard{},
		ErrorHandler: func(ctx *fasthttp.RequestCtx, err error) {
			if bodies.OverCap(ctx) {
				bodies.Refuse(ctx)
				return
			}
			ctx.SetStatusCode(400)
		}}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	t.Cleanup(func() {
		_ = srv.Shutdown()
		l.CloseAll()
		if err := <-done; err != nil {
			t.Errorf("Serve returned %v", err)
		}
	})
	return l, ln.Addr().String()
}

func ok(ctx *fasthttp.RequestCtx) { ctx.SetBodyString("ok") }

func get(t *testing.T, src, addr string) (int, string) {
	t.Helper()
	resp, err := conntest.Exchange(t, src, addr, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 5*time.Second)
	if err != nil {
		return 0, err.Error()
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// waitOpen waits until the listener has n connections open.
func waitOpen(t *testing.T, l *Listener, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); l.Stats().Open != n; {
		if time.Now().After(deadline) {
			t.Fatalf("open connections %d, want %d", l.Stats().Open, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestPerIPCap: past MaxConnsPerIP a client gets 429 and its connection
// is closed, while another address is still served; an exempt address
// has no cap.
func TestPerIPCap(t *testing.T) {
	l, addr := listen(t, Config{MaxConnsPerIP: 3, Exempt: []netip.Prefix{netip.MustParsePrefix("127.0.0.9/32")}}, nil, ok)
	for range 3 {
		c := conntest.Dial(t, "127.0.0.2", addr)
		_, _ = io.WriteString(c, "GET / HTTP/1.1\r\n") // a partial header: the connection stalls
	}
	waitOpen(t, l, 3)
	if st, _ := get(t, "127.0.0.2", addr); st != 429 {
		t.Errorf("a fourth connection from the address: status %d, want 429", st)
	}
	if st, body := get(t, "127.0.0.3", addr); st != 200 || body != "ok" {
		t.Errorf("another address: %d %q", st, body)
	}
	for range 5 {
		c := conntest.Dial(t, "127.0.0.9", addr)
		_, _ = io.WriteString(c, "GET / HTTP/1.1\r\n")
	}
	if st, _ := get(t, "127.0.0.9", addr); st != 200 {
		t.Errorf("an exempt address: status %d, want 200", st)
	}
	if s := l.Stats(); s.RefusedPerIP != 1 || !s.Saturated {
		t.Errorf("stats %+v: want one per-address refusal and saturation", s)
	}
}

// TestExemptNotEvicted: a trusted proxy's idle connection is never closed
// to make room (the proxy would fail the request it sends on it next);
// the stalled connections of others are.
func TestExemptNotEvicted(t *testing.T) {
	l, addr := listen(t, Config{MaxConns: 3, Exempt: []netip.Prefix{netip.MustParsePrefix("127.0.0.9/32")}}, nil, ok)
	proxy := conntest.Dial(t, "127.0.0.9", addr) // the oldest: idle, never sends
	waitOpen(t, l, 1)
	for range 2 {
		c := conntest.Dial(t, "127.0.0.2", addr)
		_, _ = io.WriteString(c, "GET / HTTP/1.1\r\n")
	}
	waitOpen(t, l, 3)
	for i := range 3 {
		if st, _ := get(t, "127.0.0.3", addr); st != 200 {
			t.Fatalf("request %d at the cap: %d", i, st)
		}
	}
	_ = proxy.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(proxy, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(proxy), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("the proxy's idle connection after the evictions: %v %v, want it still served", resp, err)
	}
}

// TestEvictStalled: at MaxConns a newcomer takes the place of the
// connection that has waited longest without a request, so a legitimate
// client is served through a flood of stalled headers; when every
// connection is inside a request, the newcomer gets 503.
func TestEvictStalled(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	h := func(ctx *fasthttp.RequestCtx) {
		if string(ctx.Path()) == "/hold" {
			<-release
		}
		ctx.SetBodyString("ok")
	}
	l, addr := listen(t, Config{MaxConns: 4}, nil, h)
	stalled := make([]net.Conn, 4)
	for i := range stalled {
		stalled[i] = conntest.Dial(t, "127.0.0.2", addr)
		_, _ = io.WriteString(stalled[i], "GET / HTTP/1.1\r\nHost: x\r\n")
		waitOpen(t, l, i+1)
	}
	for i := range 3 {
		if st, body := get(t, "127.0.0.1", addr); st != 200 || body != "ok" {
			t.Fatalf("request %d through the stalled connections: %d %q", i, st, body)
		}
		// The request's own connection is closed before the next comes, so
		// only the first needs a place made for it (under load the server
		// can see the close late).
		waitOpen(t, l, 3)
	}
	// The oldest stalled connections were closed to make room.
	_ = stalled[0].SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := stalled[0].Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("the oldest stalled connection: read %v, want it closed", err)
	}
	if s := l.Stats(); s.Evicted != 1 {
		t.Errorf("stats %+v: want one eviction (the first request's connection closed after it)", s)
	}
	// Fill every place with requests in progress: the newcomer is refused.
	for range 4 {
		c := conntest.Dial(t, "127.0.0.3", addr)
		_, _ = io.WriteString(c, "GET /hold HTTP/1.1\r\nHost: x\r\n\r\n")
	}
	for deadline := time.Now().Add(5 * time.Second); l.Stats().Busy != 4; {
		if time.Now().After(deadline) {
			t.Fatalf("busy %d, want 4", l.Stats().Busy)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if st, _ := get(t, "127.0.0.1", addr); st != 503 {
		t.Errorf("with every connection busy: status %d, want 503", st)
	}
	once.Do(func() { close(release) })
}

// failing is a listener whose Accept fails with err n times before
// handing out the inner listener's connections.
type failing struct {
	net.Listener
	mu  sync.Mutex
	n   int
	err error
}

func (f *failing) Accept() (net.Conn, error) {
	f.mu.Lock()
	if f.n > 0 {
		f.n--
		f.mu.Unlock()
		return nil, f.err
	}
	f.mu.Unlock()
	return f.Listener.Accept()
}

// TestAcceptBackoff: EMFILE from accept does not end Serve: the listener
// pauses, retries and serves the next client; only closing it ends Accept.
func TestAcceptBackoff(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &failing{Listener: ln, n: 5, err: &net.OpError{Op: "accept", Net: "tcp", Err: syscall.EMFILE}}
	l := NewListener(f, Config{})
	var pauses []time.Duration
	l.sleep = func(d time.Duration) { pauses = append(pauses, d) }
	got := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			_ = c.Close()
		}
		got <- err
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := <-got; err != nil {
		t.Fatalf("Accept after 5 EMFILE: %v", err)
	}
	want := []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond}
	if len(pauses) != len(want) {
		t.Fatalf("pauses %v, want %v", pauses, want)
	}
	for i := range want {
		if pauses[i] != want[i] {
			t.Errorf("pauses %v, want %v", pauses, want)
		}
	}
	if s := l.Stats(); s.AcceptErrors != 5 || !s.Saturated {
		t.Errorf("stats %+v", s)
	}
	_ = l.Close()
	if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Accept after Close: %v, want net.ErrClosed", err)
	}
}

// TestEarlyRefusal: a declared Content-Length over the cap is answered
// 413 at once, with no byte of the body sent; a declared size within the
// cap whose body never comes is answered only at its deadline.
func TestEarlyRefusal(t *testing.T) {
	bodies := NewBodies(BodyConfig{HeaderTimeout: 300 * time.Millisecond, MinRate: 1 << 20, MaxBody: 1 << 20,
		Limit: func(h *fasthttp.RequestHeader) int64 {
			if strings.HasPrefix(string(h.RequestURI()), "/small") {
				return 100
			}
			return 0
		},
		Refuse: func(ctx *fasthttp.RequestCtx) { ctx.SetStatusCode(413) }})
	h := func(ctx *fasthttp.RequestCtx) {
		_, _ = io.Copy(io.Discard, ctx.RequestBodyStream())
		ctx.SetBodyString("read")
	}
	_, addr := listen(t, Config{}, bodies, h)
	send := func(path string, declared int) (int, time.Duration) {
		c := conntest.Dial(t, "127.0.0.1", addr)
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		t0 := time.Now()
		_, _ = io.WriteString(c, "POST "+path+" HTTP/1.1\r\nHost: x\r\nContent-Length: "+strconv.Itoa(declared)+"\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%s declared %d: %v", path, declared, err)
		}
		return resp.StatusCode, time.Since(t0)
	}
	for _, tc := range []struct {
		path     string
		declared int
	}{{"/", 200 << 20}, {"/", 10 << 30}, {"/small", 101}} {
		if st, _ := send(tc.path, tc.declared); st != 413 {
			t.Errorf("%s declared %d: status %d, want 413", tc.path, tc.declared, st)
		}
	}
	// A client that waits for 100 Continue gets the 413 instead.
	c := conntest.Dial(t, "127.0.0.1", addr)
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	_, _ = io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5000000\r\n\r\n")
	if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil || resp.StatusCode != 413 {
		t.Errorf("Expect: 100-continue over the cap: %v %v, want 413", resp, err)
	}
	c = conntest.Dial(t, "127.0.0.1", addr)
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	_, _ = io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")
	br := bufio.NewReader(c)
	if line, err := br.ReadString('\n'); err != nil || !strings.Contains(line, "100 Continue") {
		t.Fatalf("Expect: 100-continue within the cap: %q %v, want 100 Continue", line, err)
	}
	_, _ = br.ReadString('\n') // the blank line after the interim response
	_, _ = io.WriteString(c, "abc")
	if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != 200 {
		t.Errorf("the body after 100 Continue: %v %v, want 200", resp, err)
	}

	// 512 KiB at 1 MiB/s: 300 ms + 500 ms.
	st, took := send("/", 512<<10)
	if st == 200 || took < 700*time.Millisecond {
		t.Errorf("a body that never came: status %d after %v, want an error after its 800 ms deadline", st, took)
	}
}

type discard struct{}

func (discard) Printf(string, ...any) {}

// TestFitCap: the cap leaves room for the process's other files.
func TestFitCap(t *testing.T) {
	for _, tc := range []struct {
		max   int
		limit uint64
		want  int
	}{
		{10000, 0, 10000}, {10000, 1 << 20, 10000}, {10000, 4096, 4096 - 512}, {30000, 20000, 18000}, {10000, 100, 64}, {0, 100, 0},
	} {
		if got := FitCap(tc.max, tc.limit); got != tc.want {
			t.Errorf("FitCap(%d, %d) = %d, want %d", tc.max, tc.limit, got, tc.want)
		}
	}
}

// TestFromFlags: on the command line 0 means no cap; the total cap still
// fits the open-files limit, and a configured cap over it is lowered.
func TestFromFlags(t *testing.T) {
	files, err := RaiseFileLimit()
	if err != nil || files == 0 {
		t.Skipf("no open-files limit: %v", err)
	}
	b := FromFlags(Budget{}, slog.New(slog.DiscardHandler))
	if b.MaxConnsPerIP != -1 || b.MaxConns != FitCap(1<<30, files) {
		t.Errorf("no caps asked: %+v, want per-IP none and the total fitted to %d files", b, files)
	}
	b = FromFlags(Budget{MaxConns: int(files) * 2, MaxConnsPerIP: 5}, slog.New(slog.DiscardHandler))
	if b.MaxConns >= int(files) || b.MaxConnsPerIP != 5 {
		t.Errorf("a cap over the file limit %d: %+v", files, b)
	}
	if d := (Budget{MaxConns: -1}).WithDefaults(); d.MaxConns != 0 || d.MaxConnsPerIP != DefaultMaxConnsPerIP || d.HeaderTimeout != DefaultHeaderTimeout {
		t.Errorf("WithDefaults: %+v", d)
	}
}

// TestHandlerSeesDescriptor: a handler can reach the connection's
// descriptor through the budget's wrapper (the origin watches it for a
// client that leaves mid-request, and stops that request's work).
func TestHandlerSeesDescriptor(t *testing.T) {
	_, addr := listen(t, Config{}, nil, func(ctx *fasthttp.RequestCtx) {
		sc, ok := ctx.Conn().(syscall.Conn)
		if !ok {
			ctx.SetBodyString("no syscall.Conn")
			return
		}
		raw, err := sc.SyscallConn()
		if err != nil {
			ctx.SetBodyString(err.Error())
			return
		}
		fd := -1
		_ = raw.Control(func(d uintptr) { fd = int(d) })
		if fd < 0 {
			ctx.SetBodyString("no descriptor")
			return
		}
		ctx.SetBodyString("ok")
	})
	if st, body := get(t, "127.0.0.2", addr); st != 200 || body != "ok" {
		t.Errorf("handler: %d %q, want the connection's descriptor", st, body)
	}
}
