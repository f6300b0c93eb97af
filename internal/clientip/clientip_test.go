package clientip

import (
	"net/netip"
	"testing"
)

func TestResolve(t *testing.T) {
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
		{name: "ipv4-mapped trusted peer", trusted: "10.0.0.0/8", peer: "::ffff:10.1.2.3", xff: []string{"198.51.100.1"}, want: "198.51.100.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nets, err := ParseTrustedProxies(tt.trusted)
			if err != nil {
				t.Fatal(err)
			}
			var xff [][]byte
			for _, v := range tt.xff {
				xff = append(xff, []byte(v))
			}
			if got := Resolve(netip.MustParseAddr(tt.peer), xff, nets).String(); got != tt.want {
				t.Errorf("Resolve = %s, want %s", got, tt.want)
			}
		})
	}
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
			got, err := ParseTrustedProxies(tt.in)
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
		got := Resolve(p, [][]byte{[]byte(xff)}, nets)
		if !got.IsValid() {
			t.Fatalf("Resolve(%q, %q) is not an address", peer, xff)
		}
		if !Trusted(nets, p.Unmap()) && got != p.Unmap() {
			t.Fatalf("untrusted peer %s attributed to %s", peer, got)
		}
	})
}
