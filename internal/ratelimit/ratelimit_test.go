package ratelimit

import (
	"fmt"
	"net"
	"runtime"
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

// BenchmarkMemoryPerKey reports the heap a tracked key costs after one
// request and after a full quota of requests in the window.
func BenchmarkMemoryPerKey(b *testing.B) {
	for _, reqs := range []int{1, 60, 100} {
		b.Run(fmt.Sprintf("requests=%d", reqs), func(b *testing.B) {
			const keys = 10_000
			names := make([]string, keys)
			for i := range names {
				names[i] = fmt.Sprintf("203.0.%d.%d", i/256, i%256)
			}
			var perKey float64
			for b.Loop() {
				clk := clock.NewFake(start)
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				l, _ := New(Config{Policy: Policy{Name: "m", Quota: reqs, Window: time.Minute}, Clock: clk})
				for _, k := range names {
					for range reqs {
						l.Allow(k)
					}
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				perKey = float64(after.HeapAlloc-before.HeapAlloc) / keys
				runtime.KeepAlive(l)
			}
			b.ReportMetric(perKey, "B/key")
		})
	}
}
