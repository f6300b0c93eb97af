package compress

import (
	"bytes"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/valyala/fasthttp"
)

func TestNegotiate(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"identity", ""},
		{"gzip", Gzip},
		{"x-gzip", Gzip},
		{"br", Brotli},
		{"zstd", Zstd},
		{"gzip, deflate, br, zstd", Zstd},
		{"gzip, deflate, br", Brotli},
		{"GZIP;Q=0.5, br;q=0.4", Gzip},
		{"gzip;q=1, br;q=0.9, zstd;q=0.5", Gzip},
		{"zstd;q=0, br;q=0, gzip;q=0", ""},
		{"*", Zstd},
		{"*;q=0.5, zstd;q=0, br;q=0", Gzip},
		{"br;q=0.8, *;q=0.1", Brotli},
		{"gzip;q=1.5, br", Brotli}, // a malformed q drops its element
		{"gzip;q=abc", ""},
		{"gzip;q=0.001", Gzip},
		{"deflate, compress", ""},
		{" gzip ; q=0.7 , zstd ; q=0.6", Gzip},
	}
	for _, tt := range tests {
		if got := Negotiate([]byte(tt.in)); got != tt.want {
			t.Errorf("Negotiate(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzNegotiate: any Accept-Encoding value yields one of the codings the
// package produces (or identity), and never one the client refused.
func FuzzNegotiate(f *testing.F) {
	for _, s := range []string{"gzip, deflate, br, zstd", "br;q=0.8, *;q=0.1", "zstd;q=0", "gzip;q=1.5,,;", "*;q=0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got := Negotiate([]byte(v))
		switch got {
		case "", Zstd, Brotli, Gzip:
		default:
			t.Fatalf("Negotiate(%q) = %q", v, got)
		}
		if got != "" && !strings.Contains(strings.ToLower(v), got) && !strings.Contains(v, "*") && !(got == Gzip && strings.Contains(strings.ToLower(v), "x-gzip")) {
			t.Fatalf("Negotiate(%q) = %q, which the value never names", v, got)
		}
	})
}

func TestCompressible(t *testing.T) {
	tests := []struct {
		ct   string
		want bool
	}{
		{"text/html; charset=utf-8", true},
		{"text/javascript", true},
		{"application/javascript", true},
		{"application/json", true},
		{"application/problem+json", true},
		{"application/manifest+json", true},
		{"image/svg+xml; charset=utf-8", true},
		{"application/wasm", true},
		{"TEXT/CSS", true},
		{"image/png", false},
		{"image/jpeg", false},
		{"image/webp", false},
		{"video/mp4", false},
		{"audio/ogg", false},
		{"application/octet-stream", false},
		{"application/zip", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := Compressible([]byte(tt.ct)); got != tt.want {
			t.Errorf("Compressible(%q) = %v", tt.ct, got)
		}
	}
}

func decode(t *testing.T, coding string, b []byte) []byte {
	t.Helper()
	var out []byte
	var err error
	switch coding {
	case Gzip:
		var zr *gzip.Reader
		if zr, err = gzip.NewReader(bytes.NewReader(b)); err == nil {
			out, err = io.ReadAll(zr)
		}
	case Zstd:
		var zr *zstd.Decoder
		if zr, err = zstd.NewReader(nil); err == nil {
			out, err = zr.DecodeAll(b, nil)
			zr.Close()
		}
	case Brotli:
		out, err = fasthttp.AppendUnbrotliBytes(nil, b)
	case "":
		out = b
	}
	if err != nil {
		t.Fatalf("decode %s: %v", coding, err)
	}
	return out
}

// serve runs h on a loopback fasthttp server and returns a client for it.
func serve(t *testing.T, h fasthttp.RequestHandler) *fasthttp.HostClient {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &fasthttp.Server{Handler: h}
	go srv.Serve(ln) //nolint:errcheck // ends at cleanup
	t.Cleanup(func() { _ = srv.Shutdown() })
	return &fasthttp.HostClient{Addr: ln.Addr().String(), ReadTimeout: 10 * time.Second}
}

func TestHandler(t *testing.T) {
	jsonBody := []byte(`{"items":[` + strings.Repeat(`{"record_id":"r1","status":"active"},`, 60) + `{}]}`)
	streamBody := []byte(strings.Repeat("streamed line of text\n", 400))
	png := bytes.Repeat([]byte{0}, 8<<10)
	next := func(ctx *fasthttp.RequestCtx) {
		switch string(ctx.Path()) {
		case "/json":
			ctx.SetContentType("application/json")
			ctx.Response.Header.Set("ETag", `"j"`)
			ctx.SetBody(jsonBody)
		case "/problem":
			ctx.SetStatusCode(404)
			ctx.SetContentType("application/problem+json")
			ctx.SetBody(jsonBody)
		case "/small":
			ctx.SetContentType("application/json")
			ctx.SetBodyString(`{"ok":true}`)
		case "/png":
			ctx.SetContentType("image/png")
			ctx.SetBody(png)
		case "/encoded":
			ctx.SetContentType("application/json")
			ctx.Response.Header.SetContentEncoding("gzip")
			ctx.SetBody(fasthttp.AppendGzipBytes(nil, jsonBody))
		case "/no-transform":
			ctx.SetContentType("application/json")
			ctx.Response.Header.Set("Cache-Control", "public, no-transform")
			ctx.SetBody(jsonBody)
		case "/stream":
			ctx.SetContentType("text/plain")
			ctx.SetBodyStream(bytes.NewReader(streamBody), -1)
		}
	}
	h := Handler(next, Config{MinSize: 64})
	var streamSeen atomic.Bool
	wrapped := func(ctx *fasthttp.RequestCtx) {
		h(ctx)
		if string(ctx.Path()) == "/stream" {
			// Still a stream after the handler: it was not read into memory.
			streamSeen.Store(ctx.Response.IsBodyStream())
		}
	}
	client := serve(t, wrapped)

	tests := []struct {
		path, acceptEncoding, wantCoding string
		wantBody                         []byte
		wantVary                         bool
	}{
		{"/json", "gzip", Gzip, jsonBody, true},
		{"/json", "zstd", Zstd, jsonBody, true},
		{"/json", "br", Brotli, jsonBody, true},
		{"/json", "gzip, br, zstd", Zstd, jsonBody, true},
		{"/json", "", "", jsonBody, true},
		{"/problem", "gzip", Gzip, jsonBody, true},
		{"/small", "gzip", "", []byte(`{"ok":true}`), true},
		{"/png", "gzip, br, zstd", "", png, false},
		{"/encoded", "zstd", Gzip, jsonBody, false}, // left as the handler encoded it
		{"/no-transform", "gzip", "", jsonBody, false},
		{"/stream", "gzip, br, zstd", "", streamBody, false},
	}
	for _, tt := range tests {
		t.Run(tt.path+"/"+tt.acceptEncoding, func(t *testing.T) {
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			req.SetRequestURI("http://x" + tt.path)
			if tt.acceptEncoding != "" {
				req.Header.Set("Accept-Encoding", tt.acceptEncoding)
			}
			if err := client.Do(req, resp); err != nil {
				t.Fatal(err)
			}
			coding := string(resp.Header.ContentEncoding())
			if coding != tt.wantCoding {
				t.Fatalf("Content-Encoding %q, want %q", coding, tt.wantCoding)
			}
			if !bytes.Equal(decode(t, coding, resp.Body()), tt.wantBody) {
				t.Fatal("decoded body differs")
			}
			if vary := strings.Contains(string(resp.Header.Peek("Vary")), "Accept-Encoding"); vary != tt.wantVary {
				t.Fatalf("Vary = %q", resp.Header.Peek("Vary"))
			}
			if etag := string(resp.Header.Peek("ETag")); etag != "" && coding != "" && !strings.HasPrefix(etag, "W/") {
				t.Fatalf("compressed answer with strong ETag %s", etag)
			}
		})
	}
	if !streamSeen.Load() {
		t.Error("the handler buffered the streamed body")
	}
}

func TestAddVary(t *testing.T) {
	tests := []struct{ have, want string }{
		{"", "Accept-Encoding"},
		{"Accept", "Accept, Accept-Encoding"},
		{"accept-encoding", "accept-encoding"},
		{"Accept, Accept-Encoding", "Accept, Accept-Encoding"},
		{"*", "*"},
	}
	for _, tt := range tests {
		var h fasthttp.ResponseHeader
		if tt.have != "" {
			h.Set("Vary", tt.have)
		}
		AddVary(&h, "Accept-Encoding")
		if got := string(h.Peek("Vary")); got != tt.want {
			t.Errorf("AddVary to %q = %q, want %q", tt.have, got, tt.want)
		}
	}
}
