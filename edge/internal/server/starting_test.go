package server

import (
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/provenant/provenant/edge/internal/verifier"
	"github.com/provenant/provenant/shared/limits"
)

// TestEdgeWhileVerifierStarts: while the verifier engine is still starting
// (its module compiling), the edge answers /ready itself with 503 and
// passes verifies to the origin; once the engine is set, /ready goes to
// the origin again and a verify is decided at the edge (only its lookups
// reach the origin).
func TestEdgeWhileVerifierStarts(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	origin := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		seen = append(seen, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/ready":
			_, _ = io.WriteString(w, `{"status":"ready"}`)
		case lookupPath:
			_, _ = io.WriteString(w, `{"candidates":[]}`)
		default:
			_, _ = io.WriteString(w, `{"authentic":false,"from":"origin"}`)
		}
	})}
	oln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = origin.Serve(oln) }()
	t.Cleanup(func() { _ = origin.Close() })
	originPaths := func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := seen
		seen = nil
		return out
	}

	d := &verifier.Deferred{}
	edge, _ := serveEdge(t, Config{Origin: "http://" + oln.Addr().String(), Engine: d, Swapper: d, Limits: limits.Default(),
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	body, ct := multipartOf(t, [3]string{"file", "smoke.jpg", string(verifier.SmokeImage())})
	verify := func() response {
		return do(t, http.MethodPost, edge+"/api/v1/verify", map[string]string{"Content-Type": ct}, strings.NewReader(string(body)))
	}

	r := do(t, http.MethodGet, edge+"/ready", nil, nil)
	if r.status != 503 || !strings.Contains(string(r.body), `"edge_verifier":"fail"`) {
		t.Fatalf("/ready while starting: %d %s, want the edge's 503", r.status, r.body)
	}
	r = verify()
	if r.status != 200 || !strings.Contains(string(r.body), `"from":"origin"`) || r.header.Get("X-Verified-By") != "" {
		t.Fatalf("verify while starting: %d %s %v, want the origin's answer", r.status, r.body, r.header)
	}
	if p := originPaths(); len(p) != 1 || p[0] != "/api/v1/verify" {
		t.Fatalf("the origin saw %v, want the verify only", p)
	}

	d.Set(verifier.Native{Limits: limits.Default()})
	r = do(t, http.MethodGet, edge+"/ready", nil, nil)
	if r.status != 200 || !strings.Contains(string(r.body), `"ready"`) {
		t.Fatalf("/ready once started: %d %s, want the origin's", r.status, r.body)
	}
	r = verify()
	if r.status != 200 || r.header.Get("X-Verified-By") != "edge native" {
		t.Fatalf("verify once started: %d %s %v, want the edge's verdict", r.status, r.body, r.header)
	}
	// The exact-only lookup first; this origin answers it with no
	// record of the file, so the file is analysed and looked up in full.
	if p := originPaths(); len(p) != 3 || p[0] != "/ready" || p[1] != lookupPath || p[2] != lookupPath {
		t.Fatalf("the origin saw %v, want /ready and the two lookups", p)
	}
}
