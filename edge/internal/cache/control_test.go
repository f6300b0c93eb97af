package cache

import (
	"strings"
	"testing"
	"time"
)

func TestParseCacheControl(t *testing.T) {
	s := time.Second
	tests := []struct {
		in   []string
		want directives
	}{
		{[]string{"public, max-age=30, stale-while-revalidate=30"}, directives{public: true, maxAge: 30 * s, hasMaxAge: true, swr: 30 * s}},
		{[]string{"public, max-age=31536000, immutable"}, directives{public: true, maxAge: 31536000 * s, hasMaxAge: true, immutable: true}},
		{[]string{"no-cache"}, directives{noCache: true}},
		{[]string{"no-store"}, directives{noStore: true}},
		{[]string{`private="Set-Cookie", max-age=5`}, directives{private: true, maxAge: 5 * s, hasMaxAge: true}},
		{[]string{`no-cache="Set-Cookie, X-A"`, "s-maxage=9"}, directives{noCache: true, sMaxAge: 9 * s, hasSMaxAge: true}},
		{[]string{"MAX-AGE=7, Must-Revalidate"}, directives{maxAge: 7 * s, hasMaxAge: true, mustRevalidate: true}},
		{[]string{"proxy-revalidate, no-transform"}, directives{mustRevalidate: true, noTransform: true}},
		{[]string{"max-age=60, max-age=10"}, directives{maxAge: 10 * s, hasMaxAge: true}},
		{[]string{"max-age=abc"}, directives{hasMaxAge: true}},
		{[]string{"max-age=-5"}, directives{hasMaxAge: true}},
		{[]string{`max-age="20"`}, directives{maxAge: 20 * s, hasMaxAge: true}},
		{[]string{"max-age=99999999999999999999999"}, directives{maxAge: maxDelta, hasMaxAge: true}},
		{[]string{"stale-if-error=x, stale-while-revalidate="}, directives{}},
		{[]string{"stale-if-error=86400"}, directives{sie: 86400 * s}},
		{[]string{" , ,max-age = 3 ,, public"}, directives{maxAge: 3 * s, hasMaxAge: true, public: true}},
		{[]string{`ext="a,b\"c", public`}, directives{public: true}},
		{[]string{`max-age="5`}, directives{maxAge: 5 * s, hasMaxAge: true}},
		{nil, directives{}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.in, "|"), func(t *testing.T) {
			if got := parseCacheControl(tt.in...); got != tt.want {
				t.Fatalf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// FuzzParseCacheControl: any header value parses without panicking into
// bounded durations, and what it parsed to survives a round trip through
// its own rendering.
func FuzzParseCacheControl(f *testing.F) {
	for _, seed := range []string{
		"public, max-age=30, stale-while-revalidate=30",
		"public, max-age=31536000, immutable",
		"no-cache",
		`private="Set-Cookie", no-store`,
		"s-maxage=10, max-age=5, stale-if-error=99999999999999999999",
		`ext="unterminated, max-age=1`,
		"max-age=abc,,=,=x,\"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d := parseCacheControl(v)
		for _, x := range []time.Duration{d.maxAge, d.sMaxAge, d.swr, d.sie} {
			if x < 0 || x > maxDelta {
				t.Fatalf("%q: duration %v out of range", v, x)
			}
		}
		if again := parseCacheControl(d.String()); again != d {
			t.Fatalf("%q: %+v renders as %q which parses to %+v", v, d, d.String(), again)
		}
	})
}

func TestOriginForm(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/api/v1/widget/badge/r1.svg?x=1", "/api/v1/widget/badge/r1.svg?x=1"},
		{"/api/v1/widget/org-badge/A%2FB.svg", "/api/v1/widget/org-badge/A%2FB.svg"},
		{"http://edge.example/demo?a=b", "/demo?a=b"},
		{"HTTPS://edge.example", "/"},
		{"http://edge.example?q", "/?q"},
	}
	for _, tt := range tests {
		if got := originForm([]byte(tt.in)); got != tt.want {
			t.Errorf("originForm(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
