package httpapi

import (
	"net"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/internal/clientip"
)

func TestClientIP(t *testing.T) {
	tests := []struct {
		name    string
		trusted string
		peer    string
		xff     []string // one element per header line
		want    string
	}{
		{name: "no trusted proxies ignores the header", peer: "203.0.113.9", xff: []string{"198.51.100.1"}, want: "203.0.113.9"},
		{name: "untrusted peer ignores the header", trusted: "10.0.0.0/8", peer: "203.0.113.9", xff: []string{"198.51.100.1"}, want: "203.0.113.9"},
		{name: "trusted peer without header is the client", trusted: "10.0.0.0/8", peer: "10.1.2.3", want: "10.1.2.3"},
		{name: "trusted peer: rightmost entry", trusted: "10.0.0.0/8", peer: "10.1.2.3", xff: []string{"198.51.100.1"}, want: "198.51.100.1"},
		{name: "forged left entries are not believed", trusted: "10.0.0.0/8", peer: "10.1.2.3", xff: []string{"1.1.1.1, 198.51.100.1"}, want: "198.51.100.1"},
		{name: "chain of trusted proxies is skipped", trusted: "10.0.0.0/8, 192.0.2.7", peer: "10.1.2.3", xff: []string{"198.51.100.1, 192.0.2.7, 10.9.9.9"}, want: "198.51.100.1"},
		{name: "several header lines join in order", trusted: "10.0.0.0/8", peer: "10.1.2.3", xff: []string{"1.1.1.1", "198.51.100.1, 10.0.0.5"}, want: "198.51.100.1"},
		{name: "all trusted: leftmost", trusted: "10.0.0.0/8", peer: "10.1.2.3", xff: []string{"10.0.0.1, 10.0.0.2"}, want: "10.0.0.1"},
		{name: "garbage stops at the last believed hop", trusted: "10.0.0.0/8", peer: "10.1.2.3", xff: []string{"198.51.100.1, junk, 10.0.0.2"}, want: "10.0.0.2"},
		{name: "ipv6 client behind trusted ipv4 proxy", trusted: "10.0.0.0/8", peer: "10.1.2.3", xff: []string{"2001:db8::1"}, want: "2001:db8::1"},
		{name: "ipv4-mapped entry is unmapped", trusted: "10.0.0.0/8", peer: "10.1.2.3", xff: []string{"::ffff:198.51.100.1"}, want: "198.51.100.1"},
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
