package server

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/ratelimit"
	"github.com/provenant/provenant/internal/sharedlimit"
	"github.com/provenant/provenant/internal/sharedlimit/redistest"
)

// TestSharedVerifyLimit: two edges on one Redis give a client one verify
// quota between them (not one each), with the usual 429 problem and
// headers, while another client keeps its own.
func TestSharedVerifyLimit(t *testing.T) {
	rds := redistest.Start(t)
	origin := echoOrigin(t)
	pol := ratelimit.Policy{Name: "verify", Quota: 5, Window: time.Minute}
	var edges []string
	for range 2 {
		st, err := sharedlimit.New(sharedlimit.Config{URL: rds.URL(), Prefix: "provenant:rl:edge:", Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		edges = append(edges, proxyEdge(t, origin, func(c *Config) {
			c.Limiters, c.VerifyPolicy = st.Factory(), pol
			c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
		}))
	}
	send := func(edge, client string) response {
		return do(t, "POST", edge+"/api/v1/verify", map[string]string{"Content-Type": "text/plain", "X-Forwarded-For": client}, strings.NewReader("x"))
	}
	for i := range pol.Quota {
		if r := send(edges[i%2], "203.0.113.7"); r.status == 429 {
			t.Fatalf("verify %d (edge %d) refused: %s", i+1, i%2, r.body)
		}
	}
	for i, edge := range edges {
		r := send(edge, "203.0.113.7")
		mustStatus(t, r, 429, "a verify past the shared quota")
		if m := r.json(t); m["code"] != "rate_limited" || r.header.Get("Retry-After") == "" ||
			!strings.Contains(r.header.Get("RateLimit-Policy"), `"verify";q=5;w=60`) || !strings.Contains(r.header.Get("RateLimit"), "r=0") {
			t.Errorf("edge %d: headers %v body %s", i, r.header, r.body)
		}
	}
	if r := send(edges[1], "203.0.113.8"); r.status == 429 {
		t.Errorf("another client refused: %s", r.body)
	}
}
