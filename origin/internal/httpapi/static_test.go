package httpapi

import (
	"testing"
	"testing/fstest"
)

// TestEmbeddedFilesValidated: the widget's scripts and the demo's pictures
// are answered with their type, their bytes, an ETag and their cache
// policy, and a request that names the ETag is answered 304 without a
// body; a file the demo manifest does not list is not served.
func TestEmbeddedFilesValidated(t *testing.T) {
	demo := fstest.MapFS{
		"manifest.json": {Data: []byte(`{"org_name":"Demo News","items":[{"file":"a.jpg"}]}`)},
		"a.jpg":         {Data: []byte("\xff\xd8 picture bytes")},
		"secret.jpg":    {Data: []byte("\xff\xd8 not listed")},
	}
	e := newTestEnv(t, func(c *Config) { c.Demo = demo })
	for _, tt := range []struct {
		path, contentType, cacheControl, body string
	}{
		{"/api/v1/widget/embed.js", "text/javascript; charset=utf-8", WidgetScriptCacheControl, ""},
		{"/api/v1/widget/worker.js", "text/javascript; charset=utf-8", WidgetScriptCacheControl, ""},
		{"/demo/a.jpg", "image/jpeg", "public, max-age=300", "\xff\xd8 picture bytes"},
	} {
		r := e.do(t, "GET", tt.path, nil, "")
		if r.status != 200 || r.header.Get("Content-Type") != tt.contentType || r.header.Get("Cache-Control") != tt.cacheControl {
			t.Fatalf("GET %s: %d %q %q, want 200 %q %q", tt.path, r.status, r.header.Get("Content-Type"), r.header.Get("Cache-Control"), tt.contentType, tt.cacheControl)
		}
		if r.body == "" || (tt.body != "" && r.body != tt.body) {
			t.Errorf("GET %s: body %q, want %q (or the script)", tt.path, r.body, tt.body)
		}
		etag := r.header.Get("ETag")
		if etag == "" {
			t.Fatalf("GET %s: no ETag", tt.path)
		}
		again := e.do(t, "GET", tt.path, map[string]string{"If-None-Match": etag}, "")
		if again.status != 304 || again.body != "" {
			t.Errorf("GET %s with its ETag: %d, %d bytes; want 304 without a body", tt.path, again.status, len(again.body))
		}
	}
	if r := e.do(t, "GET", "/demo/secret.jpg", nil, ""); r.status != 404 {
		t.Errorf("GET /demo/secret.jpg (not in the manifest): %d, want 404", r.status)
	}
}
