package httpapi

import (
	"net"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/internal/clientip"
	"github.com/provenant/provenant/internal/clientip/clientiptest"
)

// TestClientIPWiring checks what ClientIP adds to clientip.Resolve: the TCP
// peer of the request, every X-Forwarded-For line of the header, and
// Config.TrustedProxies, over the same attribution table Resolve is held
// to.
func TestClientIPWiring(t *testing.T) {
	for _, tt := range clientiptest.Cases() {
		t.Run(tt.Name, func(t *testing.T) {
			nets, err := clientip.ParseTrustedProxies(tt.Trusted)
			if err != nil {
				t.Fatal(err)
			}
			a := &API{cfg: Config{TrustedProxies: nets}}
			var req fasthttp.Request
			for _, v := range tt.XFF {
				req.Header.Add(ForwardedForHeader, v)
			}
			var ctx fasthttp.RequestCtx
			ctx.Init(&req, &net.TCPAddr{IP: net.ParseIP(tt.Peer), Port: 4000}, nil)
			if got := a.ClientIP(&ctx).String(); got != tt.Want {
				t.Errorf("ClientIP = %s, want %s", got, tt.Want)
			}
		})
	}
}
