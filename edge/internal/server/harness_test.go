package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/provenant/provenant/edge/internal/verifier"
	"github.com/provenant/provenant/internal/formdata"
	"github.com/provenant/provenant/origin/origintest/originproc"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/wasm/wasmtest"
)

// built holds the origin binary and verifier.wasm, built once per test
// binary from this checkout.
type built struct {
	dir    string
	origin string
	module []byte
	c2pa   []byte
	root   string
}

var buildOnce = sync.OnceValues(func() (*built, error) {
	root, err := wasmtest.RepoRoot()
	if err != nil {
		return nil, err
	}
	dir := buildDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	mod, err := wasmtest.Build(root, dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	c2pa, err := wasmtest.BuildC2PA(root, dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	bin, err := originproc.Build(root, dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &built{dir: dir, origin: bin, module: mod, c2pa: c2pa, root: root}, nil
})

// buildDir is where this test process builds the origin and the module.
func buildDir() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("provenant-edge-test-%d", os.Getpid()))
}

// TestMain removes what the tests built, if they built anything.
func TestMain(m *testing.M) {
	code := m.Run()
	os.RemoveAll(buildDir())
	os.Exit(code)
}

func mustBuilt(t testing.TB) *built {
	t.Helper()
	b, err := buildOnce()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// startOrigin runs the origin binary on a loopback port over a fresh data
// directory and returns its base URL and a function that stops it.
func startOrigin(t testing.TB, args ...string) (string, func()) {
	t.Helper()
	o := originproc.Start(t, originproc.Options{Binary: mustBuilt(t).origin, Args: args})
	return o.URL, o.Stop
}

// edgeOpts adjusts an edge's configuration in a test.
type edgeOpts struct {
	engine      string // "wasm" (default) or "native"
	memoryBytes uint64
	instances   int
	// readC2PAFirst reads every manifest with the C2PA module before the
	// lookup (verifier.WasmConfig.ReadC2PAFirst): for comparisons.
	readC2PAFirst bool
	// noC2PA runs the wasm engine without the C2PA module.
	noC2PA bool
	mutate func(*Config)
}

// startEdge runs an edge in front of origin on a loopback port, trusting
// loopback as its load balancer (tests name clients by X-Forwarded-For).
func startEdge(t testing.TB, origin string, o edgeOpts) (string, *Server) {
	t.Helper()
	b := mustBuilt(t)
	cfg := Config{Origin: origin, Limits: limits.Default(), TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		DialTimeout: 500 * time.Millisecond, OriginTimeout: 30 * time.Second}
	if o.engine == "native" {
		cfg.Engine = verifier.Native{Limits: cfg.Limits}
	} else {
		if o.memoryBytes == 0 {
			o.memoryBytes = 1 << 30
		}
		// The cache the verifier package's tests share, keyed by the module.
		cache, err := wasmtest.CacheDir(filepath.Join(os.TempDir(), "provenant-edge-test-wazero"), b.module)
		if err != nil {
			t.Fatal(err)
		}
		c2pa := b.c2pa
		if o.noC2PA {
			c2pa = nil
		}
		w, err := verifier.NewWasm(context.Background(), verifier.WasmConfig{Module: b.module, C2PAModule: c2pa, CacheDir: cache,
			Instances: max(o.instances, 2), MemoryBytes: o.memoryBytes, ReadC2PAFirst: o.readC2PAFirst})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close(context.Background()) })
		if err := w.WaitC2PA(context.Background()); err != nil {
			t.Fatal(err)
		}
		mod := b.module
		cfg.Engine, cfg.Swapper, cfg.LoadModule = w, w, func(context.Context) ([]byte, error) { return mod, nil }
	}
	if o.mutate != nil {
		o.mutate(&cfg)
	}
	return serveEdge(t, cfg)
}

// serveEdge starts an edge with cfg on a loopback port and returns its
// base URL; the edge shuts down at cleanup (waiting up to 10 s for
// requests in flight).
func serveEdge(t testing.TB, cfg Config) (string, *Server) {
	t.Helper()
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	return "http://" + ln.Addr().String(), srv
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body %.300s: %v", r.body, err)
	}
	return m
}

var httpClient = &http.Client{Timeout: 2 * time.Minute}

func do(t testing.TB, method, url string, hdr map[string]string, body io.Reader) response {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

func doJSON(t testing.TB, method, url, token string, body any) response {
	t.Helper()
	var r io.Reader
	hdr := map[string]string{}
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
		hdr["Content-Type"] = "application/json"
	}
	if token != "" {
		hdr["Authorization"] = "Bearer " + token
	}
	return do(t, method, url, hdr, r)
}

func mustStatus(t testing.TB, r response, want int, what string) {
	t.Helper()
	if r.status != want {
		t.Fatalf("%s: status %d, want %d; body %.500s", what, r.status, want, r.body)
	}
}

// upload posts file as the multipart "file" part, from client (an
// X-Forwarded-For entry the loopback peer is trusted to set).
func upload(t testing.TB, url, client, token string, file []byte, fields map[string]string) response {
	t.Helper()
	body, ct := formdata.File("file", "photo.jpg", file, fields)
	hdr := map[string]string{"Content-Type": ct}
	if client != "" {
		hdr["X-Forwarded-For"] = client
	}
	if token != "" {
		hdr["Authorization"] = "Bearer " + token
	}
	return do(t, "POST", url, hdr, bytes.NewReader(body))
}

// signer is an account with a signing key and an API key at an origin.
type signer struct{ originproc.Signer }

func newSigner(t testing.TB, origin, email string) signer {
	t.Helper()
	return signer{originproc.NewSigner(t, origin, email, "Edge News")}
}

// totalVerified is the signer's total_verified at origin.
func (s signer) totalVerified(t testing.TB, origin string) float64 {
	t.Helper()
	r := doJSON(t, "GET", origin+"/api/v1/dashboard/stats", s.Token, nil)
	mustStatus(t, r, 200, "stats")
	n, _ := r.json(t)["total_verified"].(float64)
	return n
}

// sign signs file at the origin and returns the signed output and record id.
func (s signer) sign(t testing.TB, origin string, file []byte) ([]byte, string) {
	t.Helper()
	r := upload(t, origin+"/api/v1/sign?signing_key_id="+s.KeyID, "", s.APIKey, file, map[string]string{"return_file": "true"})
	mustStatus(t, r, 201, "sign")
	return r.body, r.header.Get("X-Record-Id")
}

func testImage(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(mustBuilt(t).root, "origin", "internal", "server", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
