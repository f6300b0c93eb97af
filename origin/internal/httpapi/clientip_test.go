package httpapi

import (
	"net"
	"net/netip"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/internal/clientip/clientiptest"
)

// TestClientIPWiring checks what ClientIP adds to clientip.Resolve: the TCP
// peer of the request, every X-Forwarded-For line of the header, and
// Config.TrustedProxies, over the same attribution table Resolve is held
// to.
func TestClientIPWiring(t *testing.T) {
	clientiptest.Run(t, func(c clientiptest.Case, trusted []netip.Prefix) string {
		a := &API{cfg: Config{TrustedProxies: trusted}}
		var req fasthttp.Request
		for _, v := range c.XFF {
			req.Header.Add(ForwardedForHeader, v)
		}
		var ctx fasthttp.RequestCtx
		ctx.Init(&req, &net.TCPAddr{IP: net.ParseIP(c.Peer), Port: 4000}, nil)
		return a.ClientIP(&ctx).String()
	})
}
