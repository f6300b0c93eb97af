// Package clientiptest holds the client-address attribution cases that
// clientip's own tests check Resolve against and that a server wiring
// clientip into its requests checks its wiring against, so both are held
// to one table rather than a copy and a subset of it, checked by one loop.
package clientiptest

import (
	"net/netip"
	"testing"

	"github.com/provenant/provenant/internal/clientip"
)

// Case is one attribution: a request from Peer carrying the X-Forwarded-For
// lines XFF, read with the trusted proxies Trusted, comes from Want.
type Case struct {
	Name    string
	Trusted string   // as clientip.ParseTrustedProxies reads it
	Peer    string   // the TCP peer's address
	XFF     []string // one element per header line
	Want    string
}

// Cases returns the attribution table, a fresh copy on every call.
func Cases() []Case {
	return []Case{
		{Name: "no trusted proxies ignores the header", Peer: "203.0.113.9", XFF: []string{"198.51.100.1"}, Want: "203.0.113.9"},
		{Name: "untrusted peer ignores the header", Trusted: "10.0.0.0/8", Peer: "203.0.113.9", XFF: []string{"198.51.100.1"}, Want: "203.0.113.9"},
		{Name: "trusted peer without header is the client", Trusted: "10.0.0.0/8", Peer: "10.1.2.3", Want: "10.1.2.3"},
		{Name: "trusted Peer: rightmost entry", Trusted: "10.0.0.0/8", Peer: "10.1.2.3", XFF: []string{"198.51.100.1"}, Want: "198.51.100.1"},
		{Name: "forged left entries are not believed", Trusted: "10.0.0.0/8", Peer: "10.1.2.3", XFF: []string{"1.1.1.1, 198.51.100.1"}, Want: "198.51.100.1"},
		{Name: "chain of trusted proxies is skipped", Trusted: "10.0.0.0/8, 192.0.2.7", Peer: "10.1.2.3", XFF: []string{"198.51.100.1, 192.0.2.7, 10.9.9.9"}, Want: "198.51.100.1"},
		{Name: "several header lines join in order", Trusted: "10.0.0.0/8", Peer: "10.1.2.3", XFF: []string{"1.1.1.1", "198.51.100.1, 10.0.0.5"}, Want: "198.51.100.1"},
		{Name: "all Trusted: leftmost", Trusted: "10.0.0.0/8", Peer: "10.1.2.3", XFF: []string{"10.0.0.1, 10.0.0.2"}, Want: "10.0.0.1"},
		{Name: "garbage stops at the last believed hop", Trusted: "10.0.0.0/8", Peer: "10.1.2.3", XFF: []string{"198.51.100.1, junk, 10.0.0.2"}, Want: "10.0.0.2"},
		{Name: "ipv6 client behind trusted ipv4 proxy", Trusted: "10.0.0.0/8", Peer: "10.1.2.3", XFF: []string{"2001:db8::1"}, Want: "2001:db8::1"},
		{Name: "ipv4-mapped entry is unmapped", Trusted: "10.0.0.0/8", Peer: "10.1.2.3", XFF: []string{"::ffff:198.51.100.1"}, Want: "198.51.100.1"},
		{Name: "ipv4-mapped trusted peer", Trusted: "10.0.0.0/8", Peer: "::ffff:10.1.2.3", XFF: []string{"198.51.100.1"}, Want: "198.51.100.1"},
	}
}

// Run checks resolve against every case of the table, each in a subtest
// named after it: resolve gets the case and its trusted proxies as
// clientip.ParseTrustedProxies reads them, and returns the address it
// attributes the request to, as text.
func Run(t *testing.T, resolve func(c Case, trusted []netip.Prefix) string) {
	t.Helper()
	for _, c := range Cases() {
		t.Run(c.Name, func(t *testing.T) {
			trusted, err := clientip.ParseTrustedProxies(c.Trusted)
			if err != nil {
				t.Fatal(err)
			}
			if got := resolve(c, trusted); got != c.Want {
				t.Errorf("attributed to %s, want %s", got, c.Want)
			}
		})
	}
}
