package httpapi

import (
	"context"
	"crypto/rand"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/content"
	"github.com/provenant/provenant/origin/internal/content/nearindex"
	"github.com/provenant/provenant/origin/internal/store/storetest"
)

// TestNearIndexLoading: over HTTP, while the near-duplicate index loads
// a verify by facts answers 503 near_index_loading with a Retry-After and
// GET /ready is 503 naming the near_index check; once it is loaded both
// answer 200.
func TestNearIndexLoading(t *testing.T) {
	open := make(chan struct{})
	var near *nearindex.Index
	e := newTestEnv(t, func(cfg *Config) {
		near = content.StartNear(t.Context(), &storetest.Gated{Store: cfg.Store, Open: open}, nil, nearindex.Options{Wait: 10 * time.Millisecond})
		recs, err := content.New(content.Config{Store: cfg.Store, Keys: cfg.Keys, Accounts: cfg.Accounts, Clock: cfg.Clock, Rand: rand.Reader, Near: content.NearConfig{Index: near}})
		if err != nil {
			t.Fatal(err)
		}
		cfg.Records = recs
		cfg.Ready = []ReadyCheck{{Name: "near_index", Check: func(context.Context) error { return near.Ready() }}}
	})
	facts := `{"sha256":"` + strings.Repeat("ab", 32) + `","perceptual_hash":"` + strings.Repeat("0f", 40) + `"}`
	r := e.do(t, "POST", "/api/v1/verify/lookup", nil, facts)
	if r.status != 503 || r.code() != CodeNearIndexLoading || r.header.Get("Retry-After") != "10" {
		t.Errorf("lookup while loading: %d %q Retry-After %q, want 503 %s Retry-After 10", r.status, r.code(), r.header.Get("Retry-After"), CodeNearIndexLoading)
	}
	r = e.do(t, "GET", "/ready", nil, "")
	if r.status != 503 || !strings.Contains(r.body, `"near_index":"fail"`) {
		t.Errorf("/ready while loading: %d %s, want 503 with near_index failing", r.status, r.body)
	}
	close(open)
	select {
	case <-near.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the index did not load")
	}
	if r = e.do(t, "POST", "/api/v1/verify/lookup", nil, facts); r.status != 200 {
		t.Errorf("lookup once loaded: %d %s", r.status, r.body)
	}
	if r = e.do(t, "GET", "/ready", nil, ""); r.status != 200 {
		t.Errorf("/ready once loaded: %d %s", r.status, r.body)
	}
}
