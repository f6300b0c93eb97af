package httpapi

import (
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// limitedRoute is a route with a spec limit and how to send it one request.
// The requests are refused by the handler (400: no file, invalid fields)
// after the limiter counted them, which keeps these tests fast: the quota
// counts every request that reaches the route, whatever its answer.
type limitedRoute struct {
	name   string
	policy string
	quota  int
	send   func(t *testing.T, e *testEnv, key string) reply
}

func specLimitedRoutes() []limitedRoute {
	return []limitedRoute{
		{"61 verifies per IP", "verify", 60, func(t *testing.T, e *testEnv, _ string) reply {
			return e.do(t, "POST", "/api/v1/verify", map[string]string{"Content-Type": "text/plain"}, "x")
		}},
		{"101 signs per API key", "sign", 100, func(t *testing.T, e *testEnv, key string) reply {
			return e.do(t, "POST", "/api/v1/sign", bearer(key), "")
		}},
		{"11 registers per IP", "register", 10, func(t *testing.T, e *testEnv, _ string) reply {
			return e.do(t, "POST", "/api/v1/auth/register", nil, "{}")
		}},
	}
}

var rateLimitRE = regexp.MustCompile(`^"([a-z-]+)";r=(\d+);t=(\d+)$`)

// rateLimit parses the RateLimit field of r for policy.
func rateLimit(t *testing.T, r reply, policy string) (remaining, reset int) {
	t.Helper()
	m := rateLimitRE.FindStringSubmatch(r.header.Get("RateLimit"))
	if m == nil || m[1] != policy {
		t.Fatalf("RateLimit = %q, want policy %q", r.header.Get("RateLimit"), policy)
	}
	remaining, _ = strconv.Atoi(m[2])
	reset, _ = strconv.Atoi(m[3])
	return remaining, reset
}

// TestSpecLimits: the spec's limits (60 verifies per minute per IP, 100
// signs per minute per API key, 10 registers per minute per IP) hold in
// every 60-second window: one request over the quota is refused (429)
// however the quota's requests were spaced: all at once, in parallel, or
// spread over 50 seconds.
func TestSpecLimits(t *testing.T) {
	for _, rt := range specLimitedRoutes() {
		t.Run(rt.name, func(t *testing.T) {
			spacings := []struct {
				name string
				gap  time.Duration // between two requests of the quota
			}{
				{"sequential", 0},
				{"spread over 50 s", 50 * time.Second / time.Duration(rt.quota-1)},
			}
			for _, sp := range spacings {
				t.Run(sp.name, func(t *testing.T) {
					e := newTestEnv(t, nil)
					owner, _ := e.account(t, "limits@example.com")
					key := e.apiKey(t, owner)
					for i := range rt.quota {
						if i > 0 {
							e.clock.Advance(sp.gap)
						}
						r := rt.send(t, e, key)
						if r.status == 429 {
							t.Fatalf("request %d of %d refused: %s", i+1, rt.quota, r.body)
						}
						if rem, _ := rateLimit(t, r, rt.policy); rem != rt.quota-i-1 {
							t.Errorf("request %d: r=%d, want %d", i+1, rem, rt.quota-i-1)
						}
					}
					checkRefusedUntilReset(t, e, rt, key)
				})
			}
			t.Run("parallel", func(t *testing.T) {
				e := newTestEnv(t, nil)
				owner, _ := e.account(t, "limits@example.com")
				key := e.apiKey(t, owner)
				var passed, refused atomic.Int64
				var wg sync.WaitGroup
				next := make(chan struct{})
				go func() {
					for range rt.quota + 20 {
						next <- struct{}{}
					}
					close(next)
				}()
				for range 8 {
					wg.Go(func() {
						for range next {
							if rt.send(t, e, key).status == 429 {
								refused.Add(1)
							} else {
								passed.Add(1)
							}
						}
					})
				}
				wg.Wait()
				if passed.Load() != int64(rt.quota) || refused.Load() != 20 {
					t.Errorf("%d requests 8 at a time: %d passed, %d refused; want %d and 20", rt.quota+20, passed.Load(), refused.Load(), rt.quota)
				}
				checkRefusedUntilReset(t, e, rt, key)
			})
		})
	}
}

// checkRefusedUntilReset sends one request over the quota and checks its
// 429 and headers against what follows: Retry-After equals RateLimit's t,
// a request one second before t is still refused, and one at t passes.
func checkRefusedUntilReset(t *testing.T, e *testEnv, rt limitedRoute, key string) {
	t.Helper()
	r := rt.send(t, e, key)
	if r.status != 429 || r.code() != CodeRateLimited {
		t.Fatalf("request %d: %d %s, want 429 %s", rt.quota+1, r.status, r.body, CodeRateLimited)
	}
	if got, want := r.header.Get("RateLimit-Policy"), `"`+rt.policy+`";q=`+strconv.Itoa(rt.quota)+`;w=60`; got != want {
		t.Errorf("RateLimit-Policy = %q, want %q", got, want)
	}
	rem, reset := rateLimit(t, r, rt.policy)
	if rem != 0 || reset < 1 || reset > 60 || r.header.Get("Retry-After") != strconv.Itoa(reset) {
		t.Fatalf("429: RateLimit r=%d t=%d, Retry-After %q; want r=0, 1 <= t <= 60, Retry-After = t", rem, reset, r.header.Get("Retry-After"))
	}
	e.clock.Advance(time.Duration(reset-1) * time.Second)
	if r := rt.send(t, e, key); r.status != 429 {
		t.Errorf("a second before t=%d: %d, want still 429", reset, r.status)
	}
	e.clock.Advance(time.Second)
	r = rt.send(t, e, key)
	if r.status == 429 {
		t.Fatalf("at t=%d: refused again: %s", reset, r.body)
	}
	if rem, _ := rateLimit(t, r, rt.policy); rem < 0 || rem >= rt.quota {
		t.Errorf("after the reset: r=%d", rem)
	}
}

// TestLimitsAreKeyed: one API key's exhausted sign quota leaves another
// key's alone, and a verify quota belongs to its client IP.
func TestLimitsAreKeyed(t *testing.T) {
	e := newTestEnv(t, nil)
	owner, _ := e.account(t, "keyed@example.com")
	a, b := e.apiKey(t, owner), e.apiKey(t, owner)
	for range 100 {
		e.do(t, "POST", "/api/v1/sign", bearer(a), "")
	}
	if r := e.do(t, "POST", "/api/v1/sign", bearer(a), ""); r.status != 429 {
		t.Fatalf("101st sign with key a: %d, want 429", r.status)
	}
	if r := e.do(t, "POST", "/api/v1/sign", bearer(b), ""); r.status == 429 {
		t.Errorf("first sign with key b refused: %s", r.body)
	}
}
