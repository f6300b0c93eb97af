// Package ratelimittest holds the behaviour every ratelimit.Allower
// promises, as tests any implementation runs: the in-process Limiter and
// the limiter on a shared store alike.
package ratelimittest

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/ratelimit"
	"github.com/provenant/provenant/shared/clock"
)

// Start is the fake clock's start in the tests.
var Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// NewFunc returns a fresh limiter (sharing no state with any other it
// returned) of a policy of quota per window, whose time is the fake clock
// it also returns (started at Start). maxKeys is 0 in these tests.
type NewFunc func(t *testing.T, quota int, window time.Duration, maxKeys int) (ratelimit.Allower, *clock.Fake)

// key is the key the single-key tests use.
const key = "k"

// Run runs every test against the limiters of newLimiter; the property
// test runs trials random schedules of 300 requests (fewer for a limiter
// that makes a network round trip per request).
func Run(t *testing.T, trials int, newLimiter NewFunc) {
	for _, tc := range []struct {
		name string
		run  func(*testing.T, NewFunc)
	}{
		{"SlidingWindow", slidingWindow},
		{"NoWindowHoldsMoreThanQuota", func(t *testing.T, f NewFunc) { noWindowHoldsMoreThanQuota(t, trials, f) }},
		{"HeadersPredictNextAnswer", headersPredictNextAnswer},
		{"ParallelBurst", parallelBurst},
		{"ClockStepBack", clockStepBack},
		{"KeysAreIndependent", keysAreIndependent},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newLimiter) })
	}
}

// slidingWindow drives one key through a script of (advance, want)
// steps.
func slidingWindow(t *testing.T, newLimiter NewFunc) {
	type step struct {
		advance       time.Duration
		wantAllowed   bool
		wantRemaining int
		wantReset     time.Duration
	}
	tests := []struct {
		name   string
		quota  int
		window time.Duration
		steps  []step
	}{
		{"burst of quota then refusal until the first leaves the window", 3, 3 * time.Second, []step{
			{0, true, 2, 3 * time.Second},
			{0, true, 1, 3 * time.Second},
			{0, true, 0, 3 * time.Second},
			{0, false, 0, 3 * time.Second},
			{2999 * time.Millisecond, false, 0, time.Millisecond},
			{time.Millisecond, true, 2, 3 * time.Second}, // all three left together
			{0, true, 1, 3 * time.Second},
		}},
		{"idle period restores the quota fully", 2, 2 * time.Second, []step{
			{0, true, 1, 2 * time.Second},
			{0, true, 0, 2 * time.Second},
			{time.Hour, true, 1, 2 * time.Second},
		}},
		{"spaced requests come back one at a time", 3, 3 * time.Second, []step{
			{0, true, 2, 3 * time.Second},           // t=0
			{time.Second, true, 1, 2 * time.Second}, // t=1
			{time.Second, true, 0, time.Second},     // t=2
			{500 * time.Millisecond, false, 0, 500 * time.Millisecond},
			{500 * time.Millisecond, true, 0, time.Second}, // t=3: the t=0 request left
			{500 * time.Millisecond, false, 0, 500 * time.Millisecond},
		}},
		{"spec register 10/min: the 11th waits for the 1st to leave the window", 10, time.Minute, []step{
			{0, true, 9, time.Minute}, {0, true, 8, time.Minute}, {0, true, 7, time.Minute},
			{0, true, 6, time.Minute}, {0, true, 5, time.Minute}, {0, true, 4, time.Minute},
			{0, true, 3, time.Minute}, {0, true, 2, time.Minute}, {0, true, 1, time.Minute},
			{0, true, 0, time.Minute},
			{0, false, 0, time.Minute},
			{59 * time.Second, false, 0, time.Second},
			{time.Second, true, 9, time.Minute},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, clk := newLimiter(t, tc.quota, tc.window, 0)
			for i, s := range tc.steps {
				clk.Advance(s.advance)
				d := l.Allow(key)
				if d.Allowed != s.wantAllowed || d.Remaining != s.wantRemaining || d.Reset != s.wantReset {
					t.Fatalf("step %d: Allow = {allowed %v remaining %d reset %v}, want {%v %d %v}",
						i, d.Allowed, d.Remaining, d.Reset, s.wantAllowed, s.wantRemaining, s.wantReset)
				}
				if !d.Allowed && d.RetryAfter != d.Reset {
					t.Errorf("step %d: RetryAfter %v != Reset %v on refusal", i, d.RetryAfter, d.Reset)
				}
				if d.Allowed && d.RetryAfter != 0 {
					t.Errorf("step %d: RetryAfter %v on an allowed request", i, d.RetryAfter)
				}
			}
		})
	}
}

// noWindowHoldsMoreThanQuota is a property test: for random arrival
// times (bursts, gaps, many requests at one instant), no half-open
// interval of length Window holds more than Quota allowed requests, and a
// request is refused only when Quota were allowed in the Window before it
// (the limiter is exact, not merely safe).
func noWindowHoldsMoreThanQuota(t *testing.T, trials int, newLimiter NewFunc) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range trials {
		quota := 1 + rng.IntN(12)
		window := time.Duration(1+rng.IntN(5)) * time.Second
		l, clk := newLimiter(t, quota, window, 0)
		var allowed []time.Time
		for range 300 {
			switch rng.IntN(4) {
			case 0: // same instant
			case 1:
				clk.Advance(time.Duration(rng.Int64N(int64(window / 10))))
			case 2:
				clk.Advance(time.Duration(rng.Int64N(int64(window))))
			default:
				clk.Advance(time.Duration(rng.Int64N(int64(3 * window))))
			}
			now := clk.Now()
			inWindow := 0 // allowed requests in (now-window, now]; times only grow
			for i := len(allowed) - 1; i >= 0 && now.Sub(allowed[i]) < window; i-- {
				inWindow++
			}
			d := l.Allow(key)
			if d.Allowed != (inWindow < quota) {
				t.Fatalf("trial %d (q=%d w=%v): Allow = %v with %d allowed in the window before", trial, quota, window, d.Allowed, inWindow)
			}
			if d.Allowed {
				allowed = append(allowed, now)
			}
			if want := quota - min(quota, inWindow+b2i(d.Allowed)); d.Remaining != want {
				t.Fatalf("trial %d: Remaining = %d, want %d", trial, d.Remaining, want)
			}
		}
		// Independent check over every window that starts at an allowed request.
		for i, a := range allowed {
			n := 0
			for _, b := range allowed[i:] {
				if b.Sub(a) >= window {
					break
				}
				n++
			}
			if n > quota {
				t.Fatalf("trial %d: %d requests allowed in [%v, +%v), quota %d", trial, n, a, window, quota)
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// headersPredictNextAnswer: whatever the spacing, a Decision's
// Remaining and Reset say what the next request gets: allowed now when
// Remaining > 0; when it is 0, refused just before Reset and allowed at it.
func headersPredictNextAnswer(t *testing.T, newLimiter NewFunc) {
	rng := rand.New(rand.NewPCG(3, 4))
	l, clk := newLimiter(t, 5, 10*time.Second, 0)
	d := l.Allow(key)
	for i := range 2000 {
		if d.Remaining > 0 {
			if next := l.Allow(key); !next.Allowed {
				t.Fatalf("step %d: Remaining %d but the next request was refused", i, d.Remaining)
			} else {
				d = next
			}
		} else {
			if d.Reset <= 0 {
				t.Fatalf("step %d: Remaining 0 with Reset %v", i, d.Reset)
			}
			clk.Advance(d.Reset - time.Nanosecond)
			if l.Allow(key).Allowed {
				t.Fatalf("step %d: allowed before Reset", i)
			}
			clk.Advance(time.Nanosecond)
			if d = l.Allow(key); !d.Allowed {
				t.Fatalf("step %d: refused at Reset", i)
			}
		}
		// Time passing invalidates the prediction: take a fresh answer.
		clk.Advance(time.Duration(rng.Int64N(int64(3 * time.Second))))
		d = l.Allow(key)
	}
}

// parallelBurst: from many goroutines at one instant, exactly Quota
// requests are allowed.
func parallelBurst(t *testing.T, newLimiter NewFunc) {
	l, _ := newLimiter(t, 100, time.Minute, 0)
	var wg sync.WaitGroup
	var allowed atomic.Int64
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if l.Allow(key).Allowed {
					allowed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := allowed.Load(); n != 100 {
		t.Errorf("%d of 400 parallel requests allowed, want exactly 100", n)
	}
}

// clockStepBack: a clock that steps back neither lets more through
// nor forgets the requests made "in the future".
func clockStepBack(t *testing.T, newLimiter NewFunc) {
	l, clk := newLimiter(t, 2, time.Minute, 0)
	l.Allow(key)
	l.Allow(key)
	clk.Advance(-30 * time.Second)
	if l.Allow(key).Allowed {
		t.Fatal("allowed a third request after the clock stepped back")
	}
	clk.Advance(89 * time.Second) // 59 s after the two requests
	if l.Allow(key).Allowed {
		t.Fatal("allowed a third request 59 s after two")
	}
	clk.Advance(time.Second)
	if !l.Allow(key).Allowed {
		t.Fatal("refused after the window passed")
	}
}

func keysAreIndependent(t *testing.T, newLimiter NewFunc) {
	l, _ := newLimiter(t, 1, time.Minute, 0)
	if !l.Allow("a").Allowed || l.Allow("a").Allowed {
		t.Fatalf("key a: want one allowed then refused")
	}
	if !l.Allow("b").Allowed {
		t.Errorf("key b refused because of key a")
	}
}
