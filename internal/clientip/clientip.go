// Package clientip attributes a request to a client address behind
// reverse proxies: the TCP peer, unless the peer is a trusted proxy, in
// which case X-Forwarded-For is walked from the right. The origin and the
// edge both use it, so that a proxy chain is read the same way in both.
package clientip

import (
	"bytes"
	"fmt"
	"net/netip"
	"strings"
)

// ForwardedForHeader is the proxy header Resolve reads from trusted peers.
const ForwardedForHeader = "X-Forwarded-For"

// maxForwardedHops bounds how many X-Forwarded-For entries Resolve walks,
// so that a long forged header costs nothing.
const maxForwardedHops = 32

// Resolve returns the address a request from peer, carrying the
// X-Forwarded-For header lines xff, is attributed to. It is peer unless
// peer is in trusted; then xff is read from the right (the entry the
// trusted peer appended) and the first address that is not itself trusted
// is the client. A client can prepend anything to the header but cannot
// forge what a trusted proxy appended, so entries left of the first
// untrusted one are never believed. If every entry is trusted, the
// leftmost is the client; an unparsable entry stops the walk at the last
// address that was believed. The result is unmapped (IPv4-mapped IPv6
// addresses become IPv4) and carries no zone.
func Resolve(peer netip.Addr, xff [][]byte, trusted []netip.Prefix) netip.Addr {
	peer = peer.Unmap()
	if len(trusted) == 0 || !Trusted(trusted, peer) {
		return peer
	}
	var entries [][]byte
	for _, h := range xff {
		for part := range bytes.SplitSeq(h, []byte{','}) {
			entries = append(entries, bytes.TrimSpace(part))
		}
	}
	client := peer
	for i, hops := len(entries)-1, 0; i >= 0 && hops < maxForwardedHops; i, hops = i-1, hops+1 {
		hop, err := netip.ParseAddr(string(entries[i]))
		if err != nil {
			break
		}
		client = hop.Unmap().WithZone("")
		if !Trusted(trusted, client) {
			break
		}
	}
	return client
}

// Trusted reports whether a is inside one of nets.
func Trusted(nets []netip.Prefix, a netip.Addr) bool {
	for _, p := range nets {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// ParseTrustedProxies reads a comma-separated list of CIDR prefixes or
// single addresses (e.g. "10.0.0.0/8, 192.0.2.7"); "" is the empty list.
func ParseTrustedProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
			continue
		}
		ip, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("trusted proxies: %q is neither a CIDR prefix nor an address", f)
		}
		ip = ip.Unmap()
		out = append(out, netip.PrefixFrom(ip, ip.BitLen()))
	}
	return out, nil
}
