package server

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/provenant/provenant/shared/clock"
)

// get sends a GET without Go's transparent gzip, so that the test sees
// the encoding the edge chose.
func get(t testing.TB, url string, hdr map[string]string) response {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: time.Minute}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// TestCacheAgainstOrigin: a record's badge through the edge in front of a
// real origin: MISS then HIT; after max-age and stale-while-revalidate,
// REVALIDATED by the origin's 304; with the origin stopped, STALE within
// the badge's stale-while-revalidate, then 503 once it has run out.
func TestCacheAgainstOrigin(t *testing.T) {
	origin, stop := startOrigin(t, "--trusted-proxies", "127.0.0.1/32", "--batch-size", "1")
	clk := clock.NewFake(time.Now())
	edge, _ := startEdge(t, origin, edgeOpts{engine: "native", mutate: func(c *Config) {
		c.Clock, c.MaxStale = clk, 5*time.Minute
	}})
	s := newSigner(t, origin, "badge@edge.example")
	_, id := s.sign(t, origin, testImage(t, "meadow.jpg"))
	// The badge changes when the record is anchored: wait for that first.
	waitAnchored(t, origin, s, id)
	path := edge + "/api/v1/widget/badge/" + id + ".svg"

	direct := get(t, origin+"/api/v1/widget/badge/"+id+".svg", nil)
	mustStatus(t, direct, 200, "badge at the origin")
	step := func(advance time.Duration, want string) response {
		t.Helper()
		clk.Advance(advance)
		r := get(t, path, nil)
		if got := r.header.Get("X-Cache"); got != want {
			t.Fatalf("after +%v: X-Cache %q (status %d), want %s", advance, got, r.status, want)
		}
		return r
	}
	if r := step(0, "MISS"); !bytes.Equal(r.body, direct.body) {
		t.Fatalf("badge through the edge differs from the origin's")
	}
	step(5*time.Second, "HIT")
	// The badge says max-age=30, stale-while-revalidate=30: past both, the
	// edge asks the origin with If-None-Match and gets 304.
	if r := step(61*time.Second, "REVALIDATED"); r.status != 200 || !bytes.Equal(r.body, direct.body) {
		t.Fatalf("revalidated answer %d, body differs: %v", r.status, !bytes.Equal(r.body, direct.body))
	}

	stop()
	if r := step(35*time.Second, "STALE"); r.status != 200 || !bytes.Equal(r.body, direct.body) {
		t.Fatalf("stale answer %d", r.status)
	}
	clk.Advance(30 * time.Second)
	r := get(t, path, nil)
	mustStatus(t, r, 503, "badge past its stale window with the origin down")
	if r.json(t)["code"] != "origin_unavailable" {
		t.Errorf("problem %s", r.body)
	}
}

// TestCompressedThroughEdge: the widget script and the verifier module
// through the edge, in gzip and zstd, decompress to the identity bytes.
func TestCompressedThroughEdge(t *testing.T) {
	origin, _ := startOrigin(t)
	edge, _ := startEdge(t, origin, edgeOpts{engine: "native"})
	for _, path := range []string{"/api/v1/widget/embed.js", "/api/v1/widget/worker.js"} {
		plain := get(t, edge+path, map[string]string{"Accept-Encoding": "identity"})
		mustStatus(t, plain, 200, path)
		if plain.header.Get("Content-Encoding") != "" || len(plain.body) == 0 {
			t.Fatalf("%s identity: encoding %q", path, plain.header.Get("Content-Encoding"))
		}
		for _, enc := range []string{"gzip", "zstd"} {
			r := get(t, edge+path, map[string]string{"Accept-Encoding": enc})
			mustStatus(t, r, 200, path+" "+enc)
			if r.header.Get("Content-Encoding") != enc {
				t.Fatalf("%s: Content-Encoding %q, want %s", path, r.header.Get("Content-Encoding"), enc)
			}
			var dec []byte
			var err error
			switch enc {
			case "gzip":
				var zr *gzip.Reader
				if zr, err = gzip.NewReader(bytes.NewReader(r.body)); err == nil {
					dec, err = io.ReadAll(zr)
				}
			case "zstd":
				var zr *zstd.Decoder
				if zr, err = zstd.NewReader(bytes.NewReader(r.body)); err == nil {
					dec, err = io.ReadAll(zr)
					zr.Close()
				}
			}
			if err != nil || !bytes.Equal(dec, plain.body) {
				t.Fatalf("%s %s: decoded %d bytes (%v), want the %d identity bytes", path, enc, len(dec), err, len(plain.body))
			}
		}
	}
}
