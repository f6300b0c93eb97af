// Package domainstest answers the name lookups of domain verification from
// tables, for the tests of the domains package and of the servers that
// wire it (no DNS exists in tests).
package domainstest

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"sync"
)

// DNS answers address lookups for the hosts given to SetIP, and for every
// host under a suffix given to ResolveUnder, and TXT lookups for the names
// given to SetTXT; any other name is "no such host". It implements the
// resolver interfaces of the SSRF guard and of domain verification, and is
// safe for concurrent use.
type DNS struct {
	mu    sync.Mutex
	ips   map[string]netip.Addr
	under map[string]netip.Addr
	txt   map[string][]string
}

// New returns a DNS that answers nothing yet.
func New() *DNS {
	return &DNS{ips: map[string]netip.Addr{}, under: map[string]netip.Addr{}, txt: map[string][]string{}}
}

// SetIP makes host resolve to ip.
func (d *DNS) SetIP(host string, ip netip.Addr) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.ips[host] = ip
}

// ResolveUnder makes every host ending in suffix (".test") resolve to ip.
func (d *DNS) ResolveUnder(suffix string, ip netip.Addr) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.under[suffix] = ip
}

// SetTXT sets the TXT records of name.
func (d *DNS) SetTXT(name string, records ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.txt[name] = records
}

// LookupNetIP answers host's address from the tables.
func (d *DNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	host = strings.TrimSuffix(host, ".")
	if ip, ok := d.ips[host]; ok {
		return []netip.Addr{ip}, nil
	}
	for suffix, ip := range d.under {
		if strings.HasSuffix(host, suffix) {
			return []netip.Addr{ip}, nil
		}
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// LookupTXT answers name's TXT records from the table.
func (d *DNS) LookupTXT(_ context.Context, name string) ([]string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if v, ok := d.txt[name]; ok {
		return v, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}
