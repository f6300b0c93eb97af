package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/provenant/provenant/edge/internal/verifier"
	"github.com/provenant/provenant/shared/limits"
)

// echoOrigin is a loopback HTTP server standing in for the origin in the
// proxy tests: /echo reports the request it received (headers, body
// digest and size), /big streams n bytes, /slow never answers in time.
func echoOrigin(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		h := sha256.New()
		n, _ := io.Copy(h, r.Body)
		w.Header().Set("X-Got-Xff", r.Header.Get("X-Forwarded-For"))
		w.Header().Set("X-Got-Secret", r.Header.Get("X-Secret"))
		w.Header().Set("X-Got-Keepalive", r.Header.Get("Keep-Alive"))
		w.Header().Set("X-Got-Proxy-Authorization", r.Header.Get("Proxy-Authorization"))
		w.Header().Set("X-Got-Authorization", r.Header.Get("Authorization"))
		w.Header().Set("X-Got-Size", strconv.FormatInt(n, 10))
		w.Header().Set("X-Got-Sha256", hex.EncodeToString(h.Sum(nil)))
		w.Header().Set("Connection", "X-Private")
		w.Header().Set("X-Private", "hop")
		w.Header().Set("Keep-Alive", "timeout=5")
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, "ok")
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		w.Header().Set("Content-Type", "application/octet-stream")
		chunk := bytes.Repeat([]byte("0123456789abcdef"), 4096)
		for n > 0 {
			k := min(n, len(chunk))
			if _, err := w.Write(chunk[:k]); err != nil {
				return
			}
			n -= k
		}
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

func proxyEdge(t *testing.T, origin string, mutate func(*Config)) string {
	t.Helper()
	// A generous origin timeout: a loaded machine under the race detector
	// can take over a second for a loopback round trip. The test of the
	// timeout itself shortens it.
	cfg := Config{Origin: origin, Engine: verifier.Native{Limits: limits.Default()}, OriginTimeout: 30 * time.Second, DialTimeout: 300 * time.Millisecond}
	if mutate != nil {
		mutate(&cfg)
	}
	base, _ := serveEdge(t, cfg)
	return base
}

// TestProxyHeaders: hop-by-hop headers (the fixed list and those the
// Connection header names) are dropped both ways, end-to-end headers pass,
// and the origin sees the client's address as the only X-Forwarded-For
// entry (an untrusted client's own entry is not believed).
func TestProxyHeaders(t *testing.T) {
	edge := proxyEdge(t, echoOrigin(t), nil)
	r := do(t, "POST", edge+"/echo", map[string]string{
		"Connection": "X-Secret", "X-Secret": "hop", "Keep-Alive": "300", "Proxy-Authorization": "Basic Zm9vOmJhcg==",
		"Authorization": "Bearer end-to-end", "X-Forwarded-For": "6.6.6.6",
	}, strings.NewReader("hello"))
	mustStatus(t, r, 202, "echo")
	for name, want := range map[string]string{
		"X-Got-Secret": "", "X-Got-Keepalive": "", "X-Got-Proxy-Authorization": "", "X-Got-Authorization": "Bearer end-to-end",
		"X-Got-Xff": "127.0.0.1", "X-Got-Size": "5", "X-Private": "", "Keep-Alive": "",
	} {
		if got := r.header.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

// TestProxyStreamsLargeBodies: a 30 MB upload reaches the origin intact
// and a 30 MB answer reaches the client intact, through an edge whose
// pre-read limit is far smaller.
func TestProxyStreamsLargeBodies(t *testing.T) {
	origin := echoOrigin(t)
	edge := proxyEdge(t, origin, func(c *Config) { c.OriginTimeout = time.Minute })
	const n = 30 << 20
	body := bytes.Repeat([]byte("provenant"), n/9+1)[:n]
	sum := sha256.Sum256(body)
	r := do(t, "POST", edge+"/echo", map[string]string{"Content-Type": "application/octet-stream"}, bytes.NewReader(body))
	mustStatus(t, r, 202, "30 MB upload")
	if r.header.Get("X-Got-Size") != strconv.Itoa(n) || r.header.Get("X-Got-Sha256") != hex.EncodeToString(sum[:]) {
		t.Fatalf("origin received %s bytes, sha256 %s", r.header.Get("X-Got-Size"), r.header.Get("X-Got-Sha256"))
	}
	// Chunked upload (no Content-Length).
	r = do(t, "POST", edge+"/echo", nil, io.MultiReader(bytes.NewReader(body[:n/2]), bytes.NewReader(body[n/2:])))
	mustStatus(t, r, 202, "chunked upload")
	if r.header.Get("X-Got-Sha256") != hex.EncodeToString(sum[:]) {
		t.Fatalf("chunked upload arrived as %s bytes", r.header.Get("X-Got-Size"))
	}
	direct := do(t, "HEAD", origin+"/big?n=1000", nil, nil)
	r = do(t, "HEAD", edge+"/big?n=1000", nil, nil)
	if direct.header.Get("Content-Length") != "1000" || r.header.Get("Content-Length") != "1000" || len(r.body) != 0 {
		t.Errorf("HEAD: Content-Length %q, the origin says %q", r.header.Get("Content-Length"), direct.header.Get("Content-Length"))
	}
	r = do(t, "GET", edge+"/big?n="+strconv.Itoa(n), nil, nil)
	mustStatus(t, r, 200, "30 MB download")
	if len(r.body) != n {
		t.Fatalf("download: %d bytes, want %d", len(r.body), n)
	}
}

// TestProxyOriginFailures: an origin that is not listening is answered
// 503 quickly; one that does not answer in time, 504.
func TestProxyOriginFailures(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	for _, tt := range []struct {
		name, origin, path string
		status             int
		code               string
	}{
		{"not listening", closed, "/anything", 503, "origin_unavailable"},
		{"too slow", echoOrigin(t), "/slow", 504, "origin_timeout"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			edge := proxyEdge(t, tt.origin, func(c *Config) { c.OriginTimeout = time.Second })
			t0 := time.Now()
			r := do(t, "GET", edge+tt.path, nil, nil)
			t.Logf("answered in %v", time.Since(t0))
			mustStatus(t, r, tt.status, tt.name)
			if r.header.Get("Content-Type") != "application/problem+json" || r.json(t)["code"] != tt.code {
				t.Errorf("%v %s", r.header, r.body)
			}
		})
	}
}

// TestProxyConcurrentKeepAlive: many clients, each on its own keep-alive
// connections, send bodies larger than what the server reads ahead
// (8 KiB) but below the pre-read limit; every body reaches the origin
// whole and no connection receives another's bytes.
func TestProxyConcurrentKeepAlive(t *testing.T) {
	edge := proxyEdge(t, echoOrigin(t), func(c *Config) { c.OriginTimeout = time.Minute })
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			tr := &http.Transport{MaxIdleConnsPerHost: 2}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr, Timeout: time.Minute}
			for i := 0; i < 25; i++ {
				body := bytes.Repeat([]byte{byte(w), byte(i)}, 5000+(w*7919+i*104729)%60000)
				sum := sha256.Sum256(body)
				resp, err := client.Post(edge+"/echo", "application/octet-stream", bytes.NewReader(body))
				if err != nil {
					errs <- err.Error()
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 202 || resp.Header.Get("X-Got-Sha256") != hex.EncodeToString(sum[:]) {
					errs <- fmt.Sprintf("client %d request %d: status %d, origin got %s bytes", w, i, resp.StatusCode, resp.Header.Get("X-Got-Size"))
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
