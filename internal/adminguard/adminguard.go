// Package adminguard decides whether a request may reach an admin
// listener (the origin's metrics, profiles and backup; the edge's
// verifier reload). Those listeners sit on loopback or a private network,
// which a browser on the same machine still reaches: a page can post to
// them cross-site, or rebind its own name to 127.0.0.1 and read them. The
// guard refuses what a browser sends in those cases — a foreign Host, a
// cross-site Origin or Sec-Fetch-Site — and, when configured, anything
// without the operator's bearer token.
package adminguard

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net"
	"net/netip"
	"net/url"
	"strings"
)

// Errors of Check, for the answer's status and code.
var (
	// ErrHost: the Host header names neither a loopback name nor a
	// configured one (403).
	ErrHost = errors.New("adminguard: Host is not an admin name")
	// ErrCrossSite: a browser sent the request from another site (403).
	ErrCrossSite = errors.New("adminguard: cross-site request")
	// ErrBrowser: a download that must never land in a browser was
	// requested by one (403).
	ErrBrowser = errors.New("adminguard: browser request for a download")
	// ErrToken: the bearer token is missing or wrong (401).
	ErrToken = errors.New("adminguard: missing or wrong admin token")
)

// Guard holds the accepted names and the optional token. The zero value
// accepts loopback names only, without a token.
type Guard struct {
	hosts map[string]bool
	token [32]byte
	// hasToken is set when a token is required.
	hasToken bool
}

// New returns a Guard that accepts the loopback names (localhost,
// 127.0.0.0/8, ::1) and hosts (names or addresses, without port) in the
// Host header, and, when token is not empty, requires
// "Authorization: Bearer <token>".
func New(hosts []string, token string) *Guard {
	g := &Guard{hosts: map[string]bool{}}
	for _, h := range hosts {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			g.hosts[strings.Trim(h, "[]")] = true
		}
	}
	if token != "" {
		g.token, g.hasToken = sha256.Sum256([]byte(token)), true
	}
	return g
}

// Request is what the guard reads of a request: header values, "" when
// absent.
type Request struct {
	Host, Origin, SecFetchSite, SecFetchMode, Authorization string
}

// Check returns nil when r may reach an admin endpoint: its Host is
// accepted, it is not cross-site (Sec-Fetch-Site absent, "none" or
// "same-origin"; an Origin, if any, of an accepted host) and it carries
// the token when one is configured.
func (g *Guard) Check(r Request) error {
	if !g.hostOK(r.Host) {
		return ErrHost
	}
	switch r.SecFetchSite {
	case "", "none", "same-origin":
	default:
		return ErrCrossSite
	}
	if r.Origin != "" {
		u, err := url.Parse(r.Origin)
		if err != nil || u.Host == "" || !strings.EqualFold(u.Host, r.Host) || !g.hostOK(u.Host) {
			return ErrCrossSite
		}
	}
	if g.hasToken {
		const prefix = "Bearer "
		a := r.Authorization
		if len(a) <= len(prefix) || !strings.EqualFold(a[:len(prefix)], prefix) {
			return ErrToken
		}
		got := sha256.Sum256([]byte(strings.TrimSpace(a[len(prefix):])))
		if subtle.ConstantTimeCompare(got[:], g.token[:]) != 1 {
			return ErrToken
		}
	}
	return nil
}

// CheckDownload is Check for a response that must never reach a browser
// (the backup archive, which holds every secret): it also refuses any
// request a browser made — one with an Origin or any Sec-Fetch-Mode —
// since browsers send them with navigations, downloads and fetches alike,
// and the operator's tools send neither.
func (g *Guard) CheckDownload(r Request) error {
	if err := g.Check(r); err != nil {
		return err
	}
	if r.Origin != "" || r.SecFetchMode != "" || r.SecFetchSite != "" {
		return ErrBrowser
	}
	return nil
}

// hostOK reports whether hostport (a Host header) names a loopback
// address, localhost, or a configured host.
func (g *Guard) hostOK(hostport string) bool {
	h := strings.ToLower(hostport)
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.Trim(h, "[]")
	if h == "" {
		return false
	}
	return g.hosts[h] || loopbackName(h)
}

// OnLoopback reports whether addr, a listen address (host:port), reaches
// this machine's loopback only: localhost or a loopback IP. Any other
// host, an empty one (every interface) or an address without a port is
// not.
func OnLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && loopbackName(strings.ToLower(host))
}

// loopbackName reports whether h (lower-case, without port or brackets)
// is localhost or a loopback address.
func loopbackName(h string) bool {
	if h == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.Unmap().IsLoopback()
}
