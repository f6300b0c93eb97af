package conntest

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestExchange(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			time.Sleep(2 * time.Second)
		}
		_, _ = io.WriteString(w, "from "+r.RemoteAddr)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	addr := ln.Addr().String()

	resp, err := Exchange(t, "127.0.0.7", addr, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.HasPrefix(string(b), "from 127.0.0.7:") {
		t.Errorf("answer %d %q, want 200 from the chosen source address", resp.StatusCode, b)
	}
	if _, err := Exchange(t, "", addr, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n", 200*time.Millisecond); err == nil {
		t.Error("an answer later than wait: no error")
	}
}
