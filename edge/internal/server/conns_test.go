package server

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/edge/internal/verifier"
	"github.com/provenant/provenant/internal/connlimit"
	"github.com/provenant/provenant/internal/connlimit/conntest"
	"github.com/provenant/provenant/shared/limits"
)

// serveNative runs an edge with the native engine in front of an origin
// that is down, on a loopback listener, with conns as its budget.
func serveNative(t *testing.T, conns Conns) (*Server, string) {
	t.Helper()
	srv, err := New(Config{Origin: "http://127.0.0.1:1", Engine: verifier.Native{Limits: limits.Default()}, Conns: conns})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = ln.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return srv, ln.Addr().String()
}

// TestEdgeEarlyRefusals: a declared body over the verify cap or the edge's
// body cap is answered 413 at once, without waiting for the body; a
// header that never ends is answered 408 at the header timeout.
func TestEdgeEarlyRefusals(t *testing.T) {
	_, addr := serveNative(t, Conns{Budget: connlimit.Budget{HeaderTimeout: time.Second}, MaxBody: 64 << 20})
	for _, tc := range []struct{ what, req string }{
		{"40 MB verify", "POST /api/v1/verify?report=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 40000000\r\n\r\n"},
		{"100 MB sign", "POST /api/v1/sign HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n"},
	} {
		// 5 s is "at once" here: the body's own deadline at the minimum
		// rate is many minutes, and a loaded machine under the race
		// detector can take over a second to answer.
		resp, err := conntest.Exchange(t, "127.0.0.1", addr, tc.req, 5*time.Second)
		if err != nil || resp.StatusCode != 413 {
			t.Errorf("%s with no body: %v %v, want 413 at once", tc.what, resp, err)
		}
	}
	resp, err := conntest.Exchange(t, "127.0.0.1", addr, "GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ", 5*time.Second)
	if err != nil || resp.StatusCode != 408 {
		t.Errorf("a header that never ends: %v %v, want 408", resp, err)
	}
}

// TestEdgeReadySaturated: while the connection budget is under pressure
// the edge answers /ready itself with 503 instead of passing it to the
// origin; a stalled connection made room for the probe.
func TestEdgeReadySaturated(t *testing.T) {
	srv, addr := serveNative(t, Conns{Budget: connlimit.Budget{MaxConns: 2}})
	for range 2 {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		_, _ = io.WriteString(c, "GET / HTTP/1.1\r\n")
	}
	for deadline := time.Now().Add(5 * time.Second); srv.ConnStats().Open != 2; {
		if time.Now().After(deadline) {
			t.Fatalf("stats %+v", srv.ConnStats())
		}
		time.Sleep(5 * time.Millisecond)
	}
	resp, err := conntest.Exchange(t, "127.0.0.1", addr, "GET /ready HTTP/1.1\r\nHost: x\r\n\r\n", 5*time.Second)
	if err != nil || resp.StatusCode != 503 {
		t.Fatalf("/ready at the cap: %v %v, want 503", resp, err)
	}
	if st := srv.ConnStats(); st.Evicted != 1 || !st.Saturated {
		t.Errorf("stats %+v: want one stalled connection reclaimed, saturated", st)
	}
	// The edge's own answer, not the origin's (which is down here).
	if b, _ := io.ReadAll(resp.Body); !strings.Contains(string(b), `"edge_connections":"fail"`) {
		t.Errorf("/ready at the cap answered %s, want the edge's saturation", b)
	}
}
