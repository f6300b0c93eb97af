package server

import (
	"context"
	"net"
	"sync/atomic"
	"testing"

	"github.com/valyala/fasthttp"
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
		if err := CheckLoopback(addr); (err == nil) != ok {
			t.Errorf("CheckLoopback(%q) = %v, want ok %v", addr, err, ok)
		}
	}
}
