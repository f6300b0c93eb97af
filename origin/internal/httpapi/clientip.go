package httpapi

import (
	"net"
	"net/netip"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/internal/clientip"
)

// ForwardedForHeader is the proxy header ClientIP reads from trusted peers.
const ForwardedForHeader = clientip.ForwardedForHeader

// ClientIP returns the address the request is attributed to, for the
// per-IP rate limits and the access log: clientip.Resolve of the TCP peer
// and its X-Forwarded-For under Config.TrustedProxies (an edge in front of
// this origin is one of them, and names the client it served there).
func (a *API) ClientIP(ctx *fasthttp.RequestCtx) net.IP {
	peer := ctx.RemoteIP()
	if len(a.cfg.TrustedProxies) == 0 {
		return peer
	}
	addr, ok := netip.AddrFromSlice(peer)
	if !ok {
		return peer
	}
	c := clientip.Resolve(addr, ctx.Request.Header.PeekAll(ForwardedForHeader), a.cfg.TrustedProxies)
	return net.IP(c.AsSlice())
}
