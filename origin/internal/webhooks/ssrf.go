package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrDestinationRefused is returned (wrapped) when a webhook URL, or an
// address it resolves to at registration or at dial time, is in a refused
// address class and not in the configured allow-list.
var ErrDestinationRefused = errors.New("webhooks: destination address refused")

// Resolver resolves a host name to IP addresses. *net.Resolver implements
// it: a deployment can pass one that asks a chosen DNS server (its Dial
// field), and tests pass a fake so that no outside DNS is needed.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// MaxURLLength caps a webhook URL.
const MaxURLLength = 2048

// GuardConfig configures a Guard.
type GuardConfig struct {
	// Allow lists networks that are accepted even though they fall in a
	// refused class (tests use 127.0.0.1/32). Addresses in Allow may use
	// any port and plain http.
	Allow []netip.Prefix
	// AllowHTTP accepts http:// URLs for any public address; otherwise only
	// https:// is accepted (except for addresses in Allow).
	AllowHTTP bool
	// Ports are accepted in addition to 80 and 443 for public addresses.
	Ports []uint16
	// Resolver resolves host names at registration and at dial time; nil
	// means net.DefaultResolver.
	Resolver Resolver
	// DialTimeout bounds one TCP connect; zero means 10 s.
	DialTimeout time.Duration
}

// Guard is the SSRF policy for webhook URLs. It is checked twice: on the
// URL when a webhook is created or updated (CheckURL), and on the resolved
// IP of every connection the delivery client opens (DialContext and the
// net.Dialer Control hook), so DNS rebinding between the two cannot reach a
// refused address. A Guard is immutable and safe for concurrent use.
type Guard struct {
	allow       []netip.Prefix
	allowHTTP   bool
	ports       []uint16
	resolver    Resolver
	dialTimeout time.Duration
}

// NewGuard returns a Guard for cfg.
func NewGuard(cfg GuardConfig) *Guard {
	g := &Guard{allow: slices.Clone(cfg.Allow), allowHTTP: cfg.AllowHTTP, ports: slices.Clone(cfg.Ports),
		resolver: cfg.Resolver, dialTimeout: cfg.DialTimeout}
	for i, p := range g.allow {
		g.allow[i] = p.Masked()
	}
	if g.resolver == nil {
		g.resolver = net.DefaultResolver
	}
	if g.dialTimeout <= 0 {
		g.dialTimeout = 10 * time.Second
	}
	return g
}

// refusedPrefixes are special-purpose ranges refused in addition to the
// classes netip reports (loopback, private, link-local, multicast,
// unspecified). IPv4-mapped IPv6 addresses are unmapped before checking.
// Read-only after package initialisation.
var refusedPrefixes = []struct {
	p    netip.Prefix
	name string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "this-network"},
	{netip.MustParsePrefix("100.64.0.0/10"), "cgnat"},
	{netip.MustParsePrefix("192.0.0.0/24"), "ietf-protocol"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"}, // includes 255.255.255.255
	{netip.MustParsePrefix("::/96"), "ipv4-compatible"},
	{netip.MustParsePrefix("64:ff9b::/96"), "nat64"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "nat64"},
	{netip.MustParsePrefix("100::/64"), "discard"},
	{netip.MustParsePrefix("2001::/23"), "ietf-protocol"}, // Teredo, ORCHID, ...
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("2002::/16"), "6to4"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
}

// AddressClass returns the name of the refused class ip belongs to
// ("loopback", "private", "link-local", "multicast", "broadcast",
// "unspecified", "cgnat", ...), or "" if ip is a
// public unicast address. IPv4-mapped IPv6 forms are classified as the
// IPv4 address they carry.
func AddressClass(ip netip.Addr) string {
	if ip.Zone() != "" {
		return "zoned"
	}
	ip = ip.Unmap()
	switch {
	case !ip.IsValid():
		return "invalid"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsLoopback():
		return "loopback"
	case ip.IsPrivate():
		return "private"
	case ip.IsLinkLocalUnicast():
		return "link-local"
	case ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}): // not just "reserved"
		return "broadcast"
	case ip.IsMulticast(): // every scope, 224.0.0.1 and ff02::1 included
		return "multicast"
	}
	for _, r := range refusedPrefixes {
		if r.p.Contains(ip) {
			return r.name
		}
	}
	return ""
}

func (g *Guard) allowed(ip netip.Addr) bool {
	ip = ip.WithZone("").Unmap()
	for _, p := range g.allow {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// CheckAddr returns nil if a connection to ip:port is permitted: ip is in
// the allow-list (any port), or ip is public and port is 80, 443 or a
// configured extra port. Otherwise it returns an error wrapping
// ErrDestinationRefused.
func (g *Guard) CheckAddr(ip netip.Addr, port uint16) error {
	if g.allowed(ip) {
		return nil
	}
	if c := AddressClass(ip); c != "" {
		return fmt.Errorf("%w: %s address", ErrDestinationRefused, c)
	}
	if port != 80 && port != 443 && !slices.Contains(g.ports, port) {
		return fmt.Errorf("%w: port %d not allowed", ErrDestinationRefused, port)
	}
	return nil
}

// URLError reports why a webhook URL was refused. Reason is a constant,
// client-safe phrase that never echoes the URL.
type URLError struct {
	Reason string
	// Err is ErrDestinationRefused for address-policy refusals, nil for
	// syntax errors.
	Err error
}

func (e *URLError) Error() string { return "webhooks: url " + e.Reason }

// Unwrap returns the underlying sentinel, if any.
func (e *URLError) Unwrap() error { return e.Err }

func urlErr(reason string) error { return &URLError{Reason: reason} }

// CheckURL validates a webhook URL at registration: absolute http(s) URL,
// no user info or fragment, a host that is an IP literal or a DNS name,
// and every address the host resolves to permitted by CheckAddr; http is
// accepted only when AllowHTTP is set or every address is allow-listed.
// It returns the normalised URL string. Errors are *URLError.
func (g *Guard) CheckURL(ctx context.Context, raw string) (string, error) {
	u, host, port, err := parseWebhookURL(raw)
	if err != nil {
		return "", err
	}
	var addrs []netip.Addr
	if ip, perr := netip.ParseAddr(host); perr == nil {
		addrs = []netip.Addr{ip}
	} else {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		addrs, err = g.resolver.LookupNetIP(rctx, "ip", host)
		cancel()
		if err != nil || len(addrs) == 0 {
			return "", urlErr("host does not resolve")
		}
	}
	allAllowed := true
	for _, ip := range addrs {
		if err := g.CheckAddr(ip, port); err != nil {
			return "", &URLError{Reason: "resolves to a refused address (" + strings.TrimPrefix(err.Error(), ErrDestinationRefused.Error()+": ") + ")", Err: ErrDestinationRefused}
		}
		allAllowed = allAllowed && g.allowed(ip)
	}
	if u.Scheme == "http" && !g.allowHTTP && !allAllowed {
		return "", urlErr("must use https")
	}
	return u.String(), nil
}

// parseWebhookURL checks the syntax of raw and returns the parsed URL, its
// host (without brackets) and its effective port.
func parseWebhookURL(raw string) (*url.URL, string, uint16, error) {
	if raw == "" {
		return nil, "", 0, urlErr("is required")
	}
	if len(raw) > MaxURLLength {
		return nil, "", 0, urlErr("is too long")
	}
	for _, c := range raw {
		if c <= ' ' || c == 0x7f {
			return nil, "", 0, urlErr("contains white space or control characters")
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, "", 0, urlErr("is not a valid URL")
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, "", 0, urlErr("must use http or https")
	}
	if u.Opaque != "" || u.Host == "" {
		return nil, "", 0, urlErr("must be an absolute URL with a host")
	}
	if u.User != nil {
		return nil, "", 0, urlErr("must not contain user info")
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return nil, "", 0, urlErr("must not contain a fragment")
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return nil, "", 0, urlErr("must be an absolute URL with a host")
	}
	port := uint16(443)
	if u.Scheme == "http" {
		port = 80
	}
	if p := u.Port(); p != "" {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil || n == 0 {
			return nil, "", 0, urlErr("has an invalid port")
		}
		port = uint16(n)
	} else if strings.HasSuffix(u.Host, ":") {
		return nil, "", 0, urlErr("has an invalid port")
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if ip.Zone() != "" {
			return nil, "", 0, urlErr("must not use a zoned IPv6 address")
		}
		if ip.Is6() && !strings.HasPrefix(u.Host, "[") {
			return nil, "", 0, urlErr("is not a valid URL")
		}
		return u, host, port, nil
	}
	if !validHostname(host) {
		return nil, "", 0, urlErr("has an invalid host name")
	}
	if bare := strings.TrimSuffix(host, "."); bare == "localhost" || strings.HasSuffix(bare, ".localhost") {
		return nil, "", 0, &URLError{Reason: "resolves to a refused address (loopback address)", Err: ErrDestinationRefused}
	}
	u.Host = strings.ToLower(u.Host)
	return u, host, port, nil
}

// validHostname accepts LDH DNS names (with an optional trailing dot) whose
// last label is not numeric, so that inet_aton forms such as "2130706433"
// or "0x7f.1" never reach a resolver that would read them as IPs.
func validHostname(h string) bool {
	h = strings.TrimSuffix(h, ".")
	if len(h) == 0 || len(h) > 253 {
		return false
	}
	labels := strings.Split(h, ".")
	for _, l := range labels {
		if len(l) == 0 || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	last := labels[len(labels)-1]
	if strings.HasPrefix(last, "0x") {
		return false
	}
	return strings.Trim(last, "0123456789") != ""
}

// control is the net.Dialer Control hook: it runs after name resolution,
// on the exact address the socket is about to connect to.
func (g *Guard) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: unparsable dial address", ErrDestinationRefused)
	}
	return g.CheckAddr(ap.Addr(), ap.Port())
}

// DialContext resolves addr's host with the Guard's resolver and connects to
// the first permitted address, re-checking each in the dialer's Control
// hook. It is the delivery client's only way out.
func (g *Guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("webhooks: dial: bad port: %w", err)
	}
	var addrs []netip.Addr
	if ip, perr := netip.ParseAddr(host); perr == nil {
		addrs = []netip.Addr{ip}
	} else if addrs, err = g.resolver.LookupNetIP(ctx, "ip", host); err != nil {
		return nil, fmt.Errorf("webhooks: resolve: %w", err)
	}
	d := net.Dialer{Timeout: g.dialTimeout, Control: g.control}
	var errs []error
	for _, ip := range addrs {
		if err := g.CheckAddr(ip, uint16(port)); err != nil {
			errs = append(errs, err)
			continue
		}
		c, err := d.DialContext(ctx, network, netip.AddrPortFrom(ip.WithZone(""), uint16(port)).String())
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return nil, fmt.Errorf("webhooks: resolve %s: no addresses", host)
	}
	return nil, errors.Join(errs...)
}

// NewHTTPClient returns the delivery client: every connection goes through
// g.DialContext, no proxy is consulted (Proxy nil, so the Control hook sees
// the real destination), redirects are never followed (a 3xx is returned
// as is and counts as a failure), and the whole request is bounded by
// timeout.
func NewHTTPClient(g *Guard, timeout time.Duration) *http.Client {
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           g.DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		MaxIdleConns:          64,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
