package ratelimit

import (
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/clock"
)

var start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newLimiter(t *testing.T, quota int, window time.Duration, maxKeys int) (*Limiter, *clock.Fake) {
	t.Helper()
	clk := clock.NewFake(start)
	l, err := New(Config{Policy: Policy{Name: "test", Quota: quota, Window: window}, Clock: clk, MaxKeys: maxKeys})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return l, clk
}

// TestGCRA drives one key through a script of (advance, want) steps.
func TestGCRA(t *testing.T) {
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
		{"burst of quota then refusal", 3, 3 * time.Second, []step{
			{0, true, 2, time.Second},
			{0, true, 1, 2 * time.Second},
			{0, true, 0, 3 * time.Second},
			{0, false, 0, time.Second},
			{999 * time.Millisecond, false, 0, time.Millisecond},
			{time.Millisecond, true, 0, 3 * time.Second},
		}},
		{"idle period restores the quota fully", 2, 2 * time.Second, []step{
			{0, true, 1, time.Second},
			{0, true, 0, 2 * time.Second},
			{time.Hour, true, 1, time.Second},
		}},
		{"spec register 10/min: one per 6 s after the burst", 10, time.Minute, []step{
			{0, true, 9, 6 * time.Second}, {0, true, 8, 12 * time.Second}, {0, true, 7, 18 * time.Second},
			{0, true, 6, 24 * time.Second}, {0, true, 5, 30 * time.Second}, {0, true, 4, 36 * time.Second},
			{0, true, 3, 42 * time.Second}, {0, true, 2, 48 * time.Second}, {0, true, 1, 54 * time.Second},
			{0, true, 0, 60 * time.Second},
			{0, false, 0, 6 * time.Second},
			{5 * time.Second, false, 0, time.Second},
			{time.Second, true, 0, 60 * time.Second},
			{12 * time.Second, true, 1, 54 * time.Second},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, clk := newLimiter(t, tc.quota, tc.window, 0)
			for i, s := range tc.steps {
				clk.Advance(s.advance)
				d := l.Allow("k")
				if d.Allowed != s.wantAllowed || d.Remaining != s.wantRemaining || d.Reset != s.wantReset {
					t.Fatalf("step %d: Allow = {allowed %v remaining %d reset %v}, want {%v %d %v}",
						i, d.Allowed, d.Remaining, d.Reset, s.wantAllowed, s.wantRemaining, s.wantReset)
				}
				if !d.Allowed && d.RetryAfter != d.Reset {
					t.Errorf("step %d: RetryAfter %v != Reset %v on refusal", i, d.RetryAfter, d.Reset)
				}
			}
		})
	}
}

func TestKeysAreIndependent(t *testing.T) {
	l, _ := newLimiter(t, 1, time.Minute, 0)
	if !l.Allow("a").Allowed || l.Allow("a").Allowed {
		t.Fatalf("key a: want one allowed then refused")
	}
	if !l.Allow("b").Allowed {
		t.Errorf("key b refused because of key a")
	}
}

func TestMemoryBound(t *testing.T) {
	const maxKeys = 64
	l, clk := newLimiter(t, 5, time.Minute, maxKeys)
	for i := range 10_000 {
		l.Allow(fmt.Sprintf("ip-%d", i))
		if n := l.Len(); n > maxKeys+shardCount {
			t.Fatalf("after %d keys the limiter tracks %d, bound %d", i+1, n, maxKeys)
		}
	}
	// Once every entry has expired, new keys evict them.
	clk.Advance(2 * time.Minute)
	for i := range 200 {
		l.Allow(fmt.Sprintf("new-%d", i))
	}
	if n := l.Len(); n > maxKeys+shardCount {
		t.Errorf("tracks %d keys after expiry, bound %d", n, maxKeys)
	}
}

func TestHeaders(t *testing.T) {
	p := Policy{Name: "register", Quota: 10, Window: time.Minute}
	if got, want := p.PolicyHeader(), `"register";q=10;w=60`; got != want {
		t.Errorf("PolicyHeader = %q, want %q", got, want)
	}
	d := Decision{Allowed: true, Remaining: 9, Reset: 5500 * time.Millisecond}
	if got, want := d.Header(p), `"register";r=9;t=6`; got != want {
		t.Errorf("Header = %q, want %q", got, want)
	}
}

func TestPolicyValidate(t *testing.T) {
	tests := []struct {
		p  Policy
		ok bool
	}{
		{Policy{"sign", 100, time.Minute}, true},
		{Policy{"", 1, time.Minute}, false},
		{Policy{"has space", 1, time.Minute}, false},
		{Policy{"a", 0, time.Minute}, false},
		{Policy{"a", 1, 1500 * time.Millisecond}, false},
	}
	for _, tc := range tests {
		if err := tc.p.Validate(); (err == nil) != tc.ok {
			t.Errorf("Validate(%+v) = %v, want ok=%v", tc.p, err, tc.ok)
		}
	}
}

func TestIPKey(t *testing.T) {
	tests := []struct{ ip, want string }{
		{"203.0.113.7", "203.0.113.7"},
		{"::ffff:203.0.113.7", "203.0.113.7"},
		{"2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"},
		{"2001:db8:1:2:ffff::1", "2001:db8:1:2::/64"},
	}
	for _, tc := range tests {
		if got := IPKey(net.ParseIP(tc.ip)); got != tc.want {
			t.Errorf("IPKey(%s) = %q, want %q", tc.ip, got, tc.want)
		}
	}
}

func BenchmarkAllow(b *testing.B) {
	l, err := New(Config{Policy: Policy{Name: "b", Quota: 100, Window: time.Minute}, Clock: clock.System{}})
	if err != nil {
		b.Fatal(err)
	}
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			l.Allow(fmt.Sprint(i & 1023))
			i++
		}
	})
}
