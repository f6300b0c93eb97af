package clientip_test

import (
	"net/netip"
	"testing"

	"github.com/provenant/provenant/internal/clientip"
	"github.com/provenant/provenant/internal/clientip/clientiptest"
)

func TestResolve(t *testing.T) {
	clientiptest.Run(t, func(c clientiptest.Case, trusted []netip.Prefix) string {
		var xff [][]byte
		for _, v := range c.XFF {
			xff = append(xff, []byte(v))
		}
		return clientip.Resolve(netip.MustParseAddr(c.Peer), xff, trusted).String()
	})
}

func TestParseTrustedProxies(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{in: "", want: nil},
		{in: "10.0.0.0/8", want: []string{"10.0.0.0/8"}},
		{in: " 10.1.2.3/8 , 192.0.2.7,2001:db8::/32", want: []string{"10.0.0.0/8", "192.0.2.7/32", "2001:db8::/32"}},
		{in: "::ffff:192.0.2.7", want: []string{"192.0.2.7/32"}},
		{in: "10.0.0.0/8,nope", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := clientip.ParseTrustedProxies(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i].String() != tt.want[i] {
					t.Errorf("[%d] = %s, want %s", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func FuzzResolve(f *testing.F) {
	f.Add("10.1.2.3", "198.51.100.1, junk, 10.0.0.2")
	f.Add("203.0.113.9", "")
	f.Fuzz(func(t *testing.T, peer, xff string) {
		p, err := netip.ParseAddr(peer)
		if err != nil {
			return
		}
		nets := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
		got := clientip.Resolve(p, [][]byte{[]byte(xff)}, nets)
		if !got.IsValid() {
			t.Fatalf("Resolve(%q, %q) is not an address", peer, xff)
		}
		if !clientip.Trusted(nets, p.Unmap()) && got != p.Unmap() {
			t.Fatalf("untrusted peer %s attributed to %s", peer, got)
		}
	})
}
