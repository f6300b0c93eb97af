package httpapi

import (
	"net"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/internal/clientip"
)

// TestClientIPWiring checks what ClientIP adds to clientip.Resolve (whose
// own table covers the attribution rules): the TCP peer of the request,
// every X-Forwarded-For line of the header, and Config.TrustedProxies.
func TestClientIPWiring(t *testing.T) {
	tests := []struct {
		name    string
		trusted string
		peer    string
		xff     []string // one element per header line
		want    string
	}{
		{name: "no trusted proxies: the peer, header unread", peer: "203.0.113.9", xff: []string{"198.51.100.1"}, want: "203.0.113.9"},
		{name: "untrusted peer: the peer", trusted: "10.0.0.0/8", peer: "203.0.113.9", xff: []string{"198.51.100.1"}, want: "203.0.113.9"},
		{name: "trusted peer: every header line is read", trusted: "10.0.0.0/8", peer: "10.1.2.3", xff: []string{"1.1.1.1", "198.51.100.1, 10.0.0.5"}, want: "198.51.100.1"},
		{name: "ipv6 client behind a trusted proxy", trusted: "10.0.0.0/8", peer: "10.1.2.3", xff: []string{"2001:db8::1"}, want: "2001:db8::1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nets, err := clientip.ParseTrustedProxies(tt.trusted)
			if err != nil {
				t.Fatal(err)
			}
			a := &API{cfg: Config{TrustedProxies: nets}}
			var req fasthttp.Request
			for _, v := range tt.xff {
				req.Header.Add(ForwardedForHeader, v)
			}
			var ctx fasthttp.RequestCtx
			ctx.Init(&req, &net.TCPAddr{IP: net.ParseIP(tt.peer), Port: 4000}, nil)
			if got := a.ClientIP(&ctx).String(); got != tt.want {
				t.Errorf("ClientIP = %s, want %s", got, tt.want)
			}
		})
	}
}
