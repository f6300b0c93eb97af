package adminguard

import (
	"errors"
	"testing"
)

func TestCheck(t *testing.T) {
	open := New([]string{"admin.internal", "10.0.0.5"}, "")
	tok := New(nil, "s3cret")
	for _, tc := range []struct {
		name     string
		g        *Guard
		r        Request
		want     error
		download error
	}{
		{"loopback v4", open, Request{Host: "127.0.0.1:9090"}, nil, nil},
		{"loopback v6", open, Request{Host: "[::1]:9090"}, nil, nil},
		{"localhost", open, Request{Host: "LocalHost:9090"}, nil, nil},
		{"configured name", open, Request{Host: "admin.internal:9090"}, nil, nil},
		{"configured address", open, Request{Host: "10.0.0.5"}, nil, nil},
		{"rebound name", open, Request{Host: "attacker.example:9090"}, ErrHost, ErrHost},
		{"no host", open, Request{}, ErrHost, ErrHost},
		{"cross-site", open, Request{Host: "127.0.0.1:9090", SecFetchSite: "cross-site"}, ErrCrossSite, ErrCrossSite},
		{"same-site", open, Request{Host: "127.0.0.1:9090", SecFetchSite: "same-site"}, ErrCrossSite, ErrCrossSite},
		{"foreign origin", open, Request{Host: "127.0.0.1:9090", Origin: "http://attacker.example"}, ErrCrossSite, ErrCrossSite},
		{"null origin", open, Request{Host: "127.0.0.1:9090", Origin: "null"}, ErrCrossSite, ErrCrossSite},
		{"own origin", open, Request{Host: "127.0.0.1:9090", Origin: "http://127.0.0.1:9090", SecFetchSite: "same-origin"}, nil, ErrBrowser},
		{"browser navigation", open, Request{Host: "127.0.0.1:9090", SecFetchSite: "none", SecFetchMode: "navigate"}, nil, ErrBrowser},
		{"token missing", tok, Request{Host: "127.0.0.1:9090"}, ErrToken, ErrToken},
		{"token wrong", tok, Request{Host: "127.0.0.1:9090", Authorization: "Bearer s3cre"}, ErrToken, ErrToken},
		{"token scheme", tok, Request{Host: "127.0.0.1:9090", Authorization: "Basic s3cret"}, ErrToken, ErrToken},
		{"token", tok, Request{Host: "127.0.0.1:9090", Authorization: "bearer s3cret"}, nil, nil},
	} {
		if err := tc.g.Check(tc.r); !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
			t.Errorf("%s: Check = %v, want %v", tc.name, err, tc.want)
		}
		if err := tc.g.CheckDownload(tc.r); !errors.Is(err, tc.download) || (tc.download == nil && err != nil) {
			t.Errorf("%s: CheckDownload = %v, want %v", tc.name, err, tc.download)
		}
	}
}

func TestOnLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8091":       true,
		"127.9.9.9:8091":       true,
		"[::1]:8091":           true,
		"localhost:8091":       true,
		"LOCALHOST:8091":       true,
		"[::ffff:127.0.0.1]:1": true,
		":8091":                false,
		"0.0.0.0:8091":         false,
		"[::]:8091":            false,
		"10.0.0.1:8091":        false,
		"admin.internal:8091":  false,
		"127.0.0.1":            false,
		"localhost.evil:8091":  false,
	} {
		if got := OnLoopback(addr); got != want {
			t.Errorf("OnLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}
