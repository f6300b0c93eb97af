package httpapi

import (
	"bytes"
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/valyala/fasthttp"
)

// ForwardedForHeader is the proxy header ClientIP reads from trusted peers.
const ForwardedForHeader = "X-Forwarded-For"

// maxForwardedHops bounds how many X-Forwarded-For entries ClientIP walks,
// so that a long forged header costs nothing.
const maxForwardedHops = 32

// ClientIP returns the address the request is attributed to, for the
// per-IP rate limits and the access log. It is the TCP peer unless the
// peer is one of Config.TrustedProxies; then X-Forwarded-For is read from
// the right (the entry the trusted peer appended) and the first address
// that is not itself a trusted proxy is the client. A client can prepend
// anything to the header, but cannot forge what a trusted proxy appended,
// so entries left of the first untrusted one are never believed. If every
// entry is a trusted proxy, the leftmost is the client; an unparsable entry
// stops the walk at the last address that was believed.
func (a *API) ClientIP(ctx *fasthttp.RequestCtx) net.IP {
	peer := ctx.RemoteIP()
	if len(a.cfg.TrustedProxies) == 0 {
		return peer
	}
	addr, ok := netip.AddrFromSlice(peer)
	if !ok || !trusted(a.cfg.TrustedProxies, addr.Unmap()) {
		return peer
	}
	var entries []string
	for _, h := range ctx.Request.Header.PeekAll(ForwardedForHeader) {
		for part := range bytes.SplitSeq(h, []byte{','}) {
			entries = append(entries, string(bytes.TrimSpace(part)))
		}
	}
	client := addr.Unmap()
	for i, hops := len(entries)-1, 0; i >= 0 && hops < maxForwardedHops; i, hops = i-1, hops+1 {
		hop, err := netip.ParseAddr(entries[i])
		if err != nil {
			break
		}
		client = hop.Unmap().WithZone("")
		if !trusted(a.cfg.TrustedProxies, client) {
			break
		}
	}
	return net.IP(client.AsSlice())
}

func trusted(nets []netip.Prefix, a netip.Addr) bool {
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
