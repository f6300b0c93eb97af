package server

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/ratelimit"
)

// TestTrustedProxyClientIP runs the per-IP verify limit (one request a
// minute) behind a proxy on loopback: with the proxy trusted, each
// forwarded client has its own quota and is the access log's client_ip;
// without it, X-Forwarded-For is ignored and everyone shares the peer's.
func TestTrustedProxyClientIP(t *testing.T) {
	verifyOnce := func(c *Config) { c.Limits.Verify = ratelimit.Policy{Name: "verify", Quota: 1, Window: time.Minute} }
	send := func(ts *testServer, xff string) int {
		t.Helper()
		req, err := http.NewRequest("POST", ts.base+"/api/v1/verify", strings.NewReader("x"))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "text/plain")
		req.Header.Set("X-Forwarded-For", xff)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	tests := []struct {
		name    string
		trusted []netip.Prefix
		// X-Forwarded-For of three requests in a row, and whether each is
		// refused by the limit.
		xff     []string
		limited []bool
		logged  []string
	}{
		{
			name:    "trusted proxy: quota per forwarded client",
			trusted: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
			xff:     []string{"198.51.100.1", "203.0.113.5, 198.51.100.1", "198.51.100.2"},
			limited: []bool{false, true, false},
			logged:  []string{"198.51.100.1", "198.51.100.1", "198.51.100.2"},
		},
		{
			name:    "untrusted peer: header ignored",
			xff:     []string{"198.51.100.1", "198.51.100.2", "198.51.100.3"},
			limited: []bool{false, true, true},
			logged:  []string{"127.0.0.1", "127.0.0.1", "127.0.0.1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t, "", nil, func(c *Config, _ *deps) { verifyOnce(c); c.TrustedProxies = tt.trusted })
			for i, x := range tt.xff {
				if got := send(ts, x) == http.StatusTooManyRequests; got != tt.limited[i] {
					t.Errorf("request %d (X-Forwarded-For %q): limited = %v, want %v", i, x, got, tt.limited[i])
				}
			}
			var got []string
			for _, l := range accessLines(t, ts.logs.String()) {
				if l.Route == "/api/v1/verify" {
					got = append(got, l.ClientIP)
				}
			}
			if strings.Join(got, " ") != strings.Join(tt.logged, " ") {
				t.Errorf("access log client_ip = %v, want %v", got, tt.logged)
			}
		})
	}
}
