package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/valyala/fasthttp"
)

func (ts *testServer) get(path string, header map[string]string) response {
	ts.t.Helper()
	req, err := http.NewRequest("GET", ts.base+path, nil)
	if err != nil {
		ts.t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	// An explicit Accept-Encoding turns off the client's transparent gzip,
	// so the body is what the origin sent.
	if req.Header.Get("Accept-Encoding") == "" {
		req.Header.Set("Accept-Encoding", "identity")
	}
	return ts.sendReq(req)
}

// widgetManifestAnswer is the widget's manifest as a page reads it.
type widgetManifestAnswer struct {
	WASM       string `json:"wasm"`
	SHA256     string `json:"sha256"`
	Size       int    `json:"size"`
	Lookup     string `json:"lookup"`
	C2PAWASM   string `json:"c2pa_wasm"`
	C2PASHA256 string `json:"c2pa_sha256"`
	C2PASize   int    `json:"c2pa_size"`
}

// widgetManifest fetches and decodes the widget's manifest, failing the
// test unless it is a 200 of JSON.
func (ts *testServer) widgetManifest() (widgetManifestAnswer, response) {
	ts.t.Helper()
	r := ts.get("/api/v1/widget/manifest.json", nil)
	ts.mustStatus(r, 200, "manifest")
	var man widgetManifestAnswer
	if err := json.Unmarshal(r.body, &man); err != nil {
		ts.t.Fatalf("manifest %s: %v", r.body, err)
	}
	return man, r
}

// TestVerifierModuleServed: the manifest names the module by its content
// hash; the module is served immutable as application/wasm in brotli,
// gzip or identity as the client accepts, each decoding to the built
// bytes; a stale hash is 404 and a revalidation 304.
func TestVerifierModuleServed(t *testing.T) {
	module, err := verifierModule()
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, "", nil, func(c *Config, _ *deps) {
		c.Verifier = fstest.MapFS{"verifier.wasm": {Data: module}}
	})
	man, r := ts.widgetManifest()
	if !strings.HasPrefix(man.WASM, "/api/v1/widget/verifier-"+man.SHA256[:16]) || !strings.HasSuffix(man.WASM, ".wasm") || man.Size != len(module) ||
		man.Lookup != "/api/v1/verify/lookup" {
		t.Fatalf("manifest = %s, want the module's hashed path, size %d and the lookup path", r.body, len(module))
	}
	if cc := r.header.Get("Cache-Control"); !strings.Contains(cc, "max-age=60") {
		t.Errorf("manifest Cache-Control = %q, want a short max-age", cc)
	}

	for _, tt := range []struct {
		name, accept, encoding string
		decode                 func([]byte) ([]byte, error)
	}{
		{"brotli preferred", "gzip, deflate, br", "br", func(b []byte) ([]byte, error) { return fasthttp.AppendUnbrotliBytes(nil, b) }},
		{"gzip", "gzip", "gzip", func(b []byte) ([]byte, error) { return fasthttp.AppendGunzipBytes(nil, b) }},
		{"brotli refused", "br;q=0, gzip;q=0.5", "gzip", func(b []byte) ([]byte, error) { return fasthttp.AppendGunzipBytes(nil, b) }},
		{"identity", "identity", "", func(b []byte) ([]byte, error) { return b, nil }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := ts.get(man.WASM, map[string]string{"Accept-Encoding": tt.accept})
			ts.mustStatus(r, 200, "module")
			if got := r.header.Get("Content-Encoding"); got != tt.encoding {
				t.Errorf("Content-Encoding = %q, want %q", got, tt.encoding)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/wasm" {
				t.Errorf("Content-Type = %q, want application/wasm", ct)
			}
			if cc := r.header.Get("Cache-Control"); !strings.Contains(cc, "immutable") || !strings.Contains(cc, "max-age=31536000") {
				t.Errorf("Cache-Control = %q, want a year, immutable", cc)
			}
			if v := r.header.Get("Vary"); v != "Accept-Encoding" {
				t.Errorf("Vary = %q, want Accept-Encoding", v)
			}
			got, err := tt.decode(r.body)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, module) {
				t.Errorf("decoded body: %d bytes, not the module's %d", len(got), len(module))
			}
			if tt.encoding != "" && len(r.body) >= len(module)/2 {
				t.Errorf("%s body is %d bytes for a %d-byte module: not compressed", tt.encoding, len(r.body), len(module))
			}
		})
	}

	r = ts.get(man.WASM, map[string]string{"If-None-Match": `"` + man.SHA256 + `"`})
	ts.mustStatus(r, 304, "revalidate")
	r = ts.get("/api/v1/widget/verifier-0000000000000000.wasm", nil)
	ts.mustStatus(r, 404, "stale hash")
}

// TestVerifierModuleNotBuilt: an origin built without the module answers
// its routes 503 widget_not_built, naming the fix.
func TestVerifierModuleNotBuilt(t *testing.T) {
	ts := startServer(t, "", nil, func(c *Config, _ *deps) { c.Verifier = fstest.MapFS{} })
	for _, path := range []string{"/api/v1/widget/manifest.json", "/api/v1/widget/verifier-0123456789abcdef.wasm"} {
		r := ts.get(path, nil)
		ts.mustStatus(r, 503, path)
		if code := r.problemCode(t); code != "widget_not_built" {
			t.Errorf("%s: code %q, want widget_not_built", path, code)
		}
		if d, _ := r.json(t)["detail"].(string); !strings.Contains(d, "make wasm") {
			t.Errorf("%s: detail %q, want the hint to run make wasm", path, d)
		}
	}
}

// TestC2PAModuleServed: with the C2PA module built, the manifest names it
// by its own content hash beside the verifier module, and it is served
// immutable as application/wasm, decoding to its bytes; a stale hash is
// 404. Without it the manifest has no c2pa_ members and its route is 503.
func TestC2PAModuleServed(t *testing.T) {
	modules := modulesFS(t)
	c2pa := modules["c2pa.wasm"].Data
	ts := startServer(t, "", nil, func(c *Config, _ *deps) { c.Verifier = modules })
	man, r := ts.widgetManifest()
	if len(man.C2PASHA256) != 64 || man.C2PAWASM != "/api/v1/widget/c2pa-"+man.C2PASHA256[:16]+".wasm" || man.C2PASize != len(c2pa) || man.C2PAWASM == man.WASM {
		t.Fatalf("manifest = %s, want the C2PA module's hashed path and size %d", r.body, len(c2pa))
	}
	r = ts.get(man.C2PAWASM, map[string]string{"Accept-Encoding": "br"})
	ts.mustStatus(r, 200, "C2PA module")
	got, err := fasthttp.AppendUnbrotliBytes(nil, r.body)
	if err != nil || !bytes.Equal(got, c2pa) || r.header.Get("Content-Type") != "application/wasm" || !strings.Contains(r.header.Get("Cache-Control"), "immutable") {
		t.Fatalf("C2PA module: %d bytes decoded (%v), want %d; headers %v", len(got), err, len(c2pa), r.header)
	}
	ts.mustStatus(ts.get("/api/v1/widget/c2pa-0000000000000000.wasm", nil), 404, "stale hash")
	// The verifier module's hash does not name the C2PA module, nor the
	// other way round.
	ts.mustStatus(ts.get(strings.Replace(man.WASM, "verifier-", "c2pa-", 1), nil), 404, "verifier hash on the C2PA route")

	alone := startServer(t, "", nil, func(c *Config, _ *deps) {
		c.Verifier = fstest.MapFS{"verifier.wasm": modules["verifier.wasm"]}
	})
	r = alone.get("/api/v1/widget/manifest.json", nil)
	ts.mustStatus(r, 200, "manifest without the C2PA module")
	if bytes.Contains(r.body, []byte("c2pa_")) {
		t.Errorf("manifest without the C2PA module: %s", r.body)
	}
	ts.mustStatus(alone.get("/api/v1/widget/c2pa-"+man.C2PASHA256[:16]+".wasm", nil), 503, "C2PA module not built")
}
