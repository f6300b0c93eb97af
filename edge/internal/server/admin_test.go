package server

import (
	"context"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/edge/internal/verifier"
	"github.com/provenant/provenant/internal/adminguard"
	"github.com/provenant/provenant/shared/limits"
)

func startAdmin(t *testing.T, srv *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := &fasthttp.Server{Handler: srv.AdminHandler()}
	go func() { _ = a.Serve(ln) }()
	t.Cleanup(func() { _ = a.Shutdown() })
	return "http://" + ln.Addr().String()
}

// TestAdminReload: POST /verifier/reload swaps the module of a wasm edge
// and answers the engine; a native edge has nothing to swap (409); a
// module that fails its smoke test is refused (422) and the edge keeps
// verifying with the previous one.
func TestAdminReload(t *testing.T) {
	origin, _ := startOrigin(t, "--trusted-proxies", "127.0.0.1/32")
	var bad atomic.Bool
	edge, srv := startEdge(t, origin, edgeOpts{mutate: func(c *Config) {
		good := c.LoadModule
		c.LoadModule = func(ctx context.Context) ([]byte, error) {
			if bad.Load() {
				return []byte("\x00asm\x01\x00\x00\x00"), nil
			}
			return good(ctx)
		}
	}})
	admin := startAdmin(t, srv)
	r := do(t, "POST", admin+"/verifier/reload", nil, nil)
	mustStatus(t, r, 200, "reload")
	if name, _ := r.json(t)["engine"].(string); name != srv.cfg.Engine.Name() || len(name) != len("wasm:")+16 {
		t.Errorf("reload answered %s", r.body)
	}
	bad.Store(true)
	r = do(t, "POST", admin+"/verifier/reload", nil, nil)
	mustStatus(t, r, 422, "reload of a broken module")
	mustStatus(t, upload(t, edge+"/api/v1/verify", nextClient(), "", unrelated(t, 11, 320, 240), nil), 200, "verify after a refused swap")

	_, native := startEdge(t, origin, edgeOpts{engine: "native"})
	mustStatus(t, do(t, "POST", startAdmin(t, native)+"/verifier/reload", nil, nil), 409, "reload of a native edge")
}

func TestCheckLoopback(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:8091": true, "[::1]:8091": true, "localhost:8091": true,
		"0.0.0.0:8091": false, ":8091": false, "10.0.0.1:8091": false, "example.com:80": false, "127.0.0.1": false,
	} {
		if err := CheckLoopback(addr, false); (err == nil) != ok {
			t.Errorf("CheckLoopback(%q) = %v, want ok %v", addr, err, ok)
		}
	}
	if err := CheckLoopback("10.0.0.1:8091", true); err != nil {
		t.Errorf("a private address with a token: %v", err)
	}
}

// TestAdminGuard: the admin listener answers a loopback Host only, refuses
// a cross-site browser request (the plain cross-site POST a page can send,
// and a DNS-rebound name), and with a token configured refuses requests
// without it.
func TestAdminGuard(t *testing.T) {
	srv, err := New(Config{Origin: "http://127.0.0.1:1", Engine: verifier.Native{Limits: limits.Default()}})
	if err != nil {
		t.Fatal(err)
	}
	admin := startAdmin(t, srv)
	port := admin[strings.LastIndex(admin, ":")+1:]
	for _, tc := range []struct {
		name string
		hdr  map[string]string
		want int
	}{
		{"loopback", nil, 200},
		{"localhost name", map[string]string{"Host": "localhost:" + port}, 200},
		{"rebound name", map[string]string{"Host": "attacker.example:" + port}, 403},
		{"cross-site fetch", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"same-site fetch", map[string]string{"Sec-Fetch-Site": "same-site"}, 403},
		{"foreign origin", map[string]string{"Origin": "https://attacker.example"}, 403},
		{"typed in the address bar", map[string]string{"Sec-Fetch-Site": "none"}, 200},
	} {
		if r := do(t, "GET", admin+"/verifier", tc.hdr, nil); r.status != tc.want {
			t.Errorf("%s: status %d, want %d (%s)", tc.name, r.status, tc.want, r.body)
		}
	}
	mustStatus(t, do(t, "POST", admin+"/verifier/reload", map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}, nil), 403, "cross-site reload")

	tok, err := New(Config{Origin: "http://127.0.0.1:1", Engine: verifier.Native{Limits: limits.Default()},
		AdminGuard: adminguard.New([]string{"edge-admin.internal"}, "s3cret")})
	if err != nil {
		t.Fatal(err)
	}
	admin = startAdmin(t, tok)
	mustStatus(t, do(t, "GET", admin+"/verifier", nil, nil), 401, "no token")
	mustStatus(t, do(t, "GET", admin+"/verifier", map[string]string{"Authorization": "Bearer wrong"}, nil), 401, "wrong token")
	mustStatus(t, do(t, "GET", admin+"/verifier", map[string]string{"Authorization": "Bearer s3cret", "Host": "edge-admin.internal"}, nil), 200, "token, configured name")
}
