package sharedlimit

import (
	"bytes"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/ratelimit"
	"github.com/provenant/provenant/internal/ratelimit/ratelimittest"
	"github.com/provenant/provenant/internal/sharedlimit/redistest"
	"github.com/provenant/provenant/shared/clock"
)

func newStore(t *testing.T, cfg Config) *Store {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestConformance: on the shared store, the limiter passes the tests of
// the in-process one (same answers, to the nanosecond, on a fake clock).
func TestConformance(t *testing.T) {
	srv := redistest.Start(t)
	var n atomic.Int64
	ratelimittest.Run(t, 10, func(t *testing.T, quota int, window time.Duration, _ int) (ratelimit.Allower, *clock.Fake) {
		clk := clock.NewFake(ratelimittest.Start)
		s := newStore(t, Config{URL: srv.URL(), Clock: clk, Timeout: 5 * time.Second})
		l, err := s.Limiter(fmt.Sprintf("scope%d", n.Add(1)), ratelimit.Policy{Name: "test", Quota: quota, Window: window})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if f := s.Fallbacks(); f != 0 {
				t.Errorf("%d decisions fell back to the process", f)
			}
		})
		return l, clk
	})
}

// TestOneQuotaAcrossOrigins: two stores (two origins' clients) on one
// Redis, hammered in parallel on the server's clock, allow exactly the
// quota between them; another scope and another key are not affected.
func TestOneQuotaAcrossOrigins(t *testing.T) {
	srv := redistest.Start(t)
	pol := ratelimit.Policy{Name: "sign", Quota: 50, Window: time.Minute}
	var lims []ratelimit.Allower
	for range 2 {
		s := newStore(t, Config{URL: srv.URL(), Timeout: 5 * time.Second})
		l, err := s.Limiter("sign", pol)
		if err != nil {
			t.Fatal(err)
		}
		lims = append(lims, l)
	}
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 40 {
				if lims[i%2].Allow("key:k1").Allowed {
					allowed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := allowed.Load(); n != int64(pol.Quota) {
		t.Fatalf("%d of 320 requests through two origins allowed, want exactly %d", n, pol.Quota)
	}
	d := lims[1].Allow("key:k1")
	if d.Allowed || d.RetryAfter <= 0 || d.RetryAfter > time.Minute {
		t.Errorf("after the quota: %+v, want refused with 0 < RetryAfter <= 1m", d)
	}
	if !lims[0].Allow("key:k2").Allowed {
		t.Error("another key was refused")
	}
	other := newStore(t, Config{URL: srv.URL(), Timeout: 5 * time.Second})
	lv, err := other.Limiter("verify", pol)
	if err != nil {
		t.Fatal(err)
	}
	if !lv.Allow("key:k1").Allowed {
		t.Error("another scope's bucket was used")
	}
}

// TestServerClockWindow: on the Redis server's clock a refusal's
// RetryAfter is when the next request is allowed.
func TestServerClockWindow(t *testing.T) {
	srv := redistest.Start(t)
	s := newStore(t, Config{URL: srv.URL(), Timeout: 5 * time.Second})
	l, err := s.Limiter("burst", ratelimit.Policy{Name: "burst", Quota: 3, Window: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// The four requests must fall in one window; a round in which a loaded
	// machine spread them over half of it says nothing and is run again
	// with a fresh key.
	var d ratelimit.Decision
	var key string
	for round := 0; ; round++ {
		key = "ip" + strconv.Itoa(round)
		t0 := time.Now()
		for i := range 3 {
			if d := l.Allow(key); !d.Allowed || d.Remaining != 2-i {
				t.Fatalf("request %d: %+v", i, d)
			}
		}
		d = l.Allow(key)
		if time.Since(t0) < 500*time.Millisecond {
			break
		}
		if round == 20 {
			t.Fatal("never four requests within half a second")
		}
	}
	if d.Allowed || d.RetryAfter <= 0 || d.RetryAfter > time.Second {
		t.Fatalf("fourth request: %+v, want refused within the second", d)
	}
	time.Sleep(d.RetryAfter + 5*time.Millisecond)
	if d := l.Allow(key); !d.Allowed {
		t.Fatalf("refused after RetryAfter passed: %+v", d)
	}
	if s.Fallbacks() != 0 {
		t.Errorf("%d fallbacks", s.Fallbacks())
	}
}

// TestStoreDown: with Redis down the limiter still decides, in process
// and with the quota (not an open door), logs it and counts it; once
// Redis is back the decisions go to it again.
func TestStoreDown(t *testing.T) {
	srv := redistest.Start(t)
	var logBuf bytes.Buffer
	var counted atomic.Int64
	// A stopped server refuses at once, so the timeout need not be short;
	// a short one let a slow round trip on a loaded machine fall back
	// after the restart.
	s := newStore(t, Config{URL: srv.URL(), Timeout: 5 * time.Second, RetryInterval: 10 * time.Millisecond,
		Logger:     slog.New(slog.NewTextHandler(&logBuf, nil)),
		OnFallback: func(scope string) { counted.Add(1) }})
	l, err := s.Limiter("login", ratelimit.Policy{Name: "login", Quota: 2, Window: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if !l.Allow("ip").Allowed || s.Fallbacks() != 0 {
		t.Fatal("first request with Redis up")
	}
	srv.Stop()
	got := []bool{l.Allow("ip2").Allowed, l.Allow("ip2").Allowed, l.Allow("ip2").Allowed}
	if !got[0] || !got[1] || got[2] {
		t.Errorf("Redis down: decisions %v, want the quota of 2 kept in process", got)
	}
	if s.Fallbacks() != 3 || counted.Load() != 3 {
		t.Errorf("fallbacks %d, counted %d, want 3", s.Fallbacks(), counted.Load())
	}
	if !strings.Contains(logBuf.String(), "rate-limit store unreachable") || strings.Count(logBuf.String(), "\n") != 1 {
		t.Errorf("log: %q, want one line", logBuf.String())
	}
	srv.Restart()
	time.Sleep(20 * time.Millisecond)
	before := s.Fallbacks()
	for range 2 {
		if !l.Allow("ip3").Allowed {
			t.Error("refused with Redis back and an empty bucket")
		}
	}
	if s.Fallbacks() != before {
		t.Errorf("decisions still fall back with Redis back (%d more)", s.Fallbacks()-before)
	}
}

func TestConfig(t *testing.T) {
	if _, err := New(Config{URL: "http://nope"}); err == nil {
		t.Error("a non-Redis URL was accepted")
	}
	s := newStore(t, Config{URL: "redis://127.0.0.1:1/0"})
	if _, err := s.Limiter("", ratelimit.Policy{Name: "a", Quota: 1, Window: time.Second}); err == nil {
		t.Error("empty scope accepted")
	}
	if _, err := s.Limiter("a", ratelimit.Policy{Name: "a", Quota: 0, Window: time.Second}); err == nil {
		t.Error("invalid policy accepted")
	}
}

// BenchmarkAllow: one decision on Redis over a unix socket (the round
// trip and the script), keys spread over 1,000 clients, from parallel
// goroutines as an origin's requests are.
func BenchmarkAllow(b *testing.B) {
	srv := redistest.Start(b)
	s, err := New(Config{URL: srv.URL(), Timeout: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	l, err := s.Limiter("bench", ratelimit.Policy{Name: "bench", Quota: 100, Window: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	var n atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			l.Allow("client-" + strconv.FormatInt(n.Add(1)%1000, 10))
		}
	})
	if s.Fallbacks() != 0 {
		b.Fatalf("%d fallbacks", s.Fallbacks())
	}
}
