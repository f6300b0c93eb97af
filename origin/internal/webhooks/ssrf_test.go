package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/events"
)

// fakeResolver answers from a table; a host with several entries answers
// them in turn (DNS rebinding); unknown hosts fail to resolve.
type fakeResolver struct {
	mu    sync.Mutex
	table map[string][][]netip.Addr
	calls map[string]int
}

func newFakeResolver(entries map[string][]string) *fakeResolver {
	r := &fakeResolver{table: map[string][][]netip.Addr{}, calls: map[string]int{}}
	for host, answers := range entries {
		for _, a := range answers {
			var addrs []netip.Addr
			for _, s := range strings.Split(a, ",") {
				addrs = append(addrs, netip.MustParseAddr(s))
			}
			r.table[host] = append(r.table[host], addrs)
		}
	}
	return r
}

func (r *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	answers, ok := r.table[host]
	if !ok {
		return nil, fmt.Errorf("no such host %s", host)
	}
	i := min(r.calls[host], len(answers)-1)
	r.calls[host]++
	return answers[i], nil
}

func TestCheckURLRefusesInternalTargets(t *testing.T) {
	res := newFakeResolver(map[string][]string{
		"localhost":           {"127.0.0.1"},
		"internal.example":    {"10.1.2.3"},
		"metadata.example":    {"169.254.169.254"},
		"mixed.example":       {"93.184.215.14,192.168.1.1"},
		"public.example":      {"93.184.215.14"},
		"public6.example":     {"2606:2800:21f:cb07:6820:80da:af6b:8b2c"},
		"mapped.example":      {"::ffff:10.0.0.1"},
		"cgnat.example":       {"100.64.0.1"},
		"multicast.example":   {"224.0.0.1"},
		"unspecified.example": {"0.0.0.0"},
	})
	guard := NewGuard(GuardConfig{Resolver: res, AllowHTTP: true})
	tests := []struct {
		url     string
		wantErr bool
		ssrf    bool // refusal is the address policy (ErrDestinationRefused)
	}{
		{"http://127.0.0.1/", true, true},
		{"http://127.0.0.1:8080/hook", true, true},
		{"http://[::1]/", true, true},
		{"http://[::ffff:127.0.0.1]/", true, true},
		{"http://[::ffff:7f00:1]/", true, true},
		{"http://169.254.169.254/latest/meta-data", true, true},
		{"http://[fe80::1]/", true, true},
		{"http://10.0.0.1/", true, true},
		{"http://172.16.0.1/", true, true},
		{"http://192.168.0.1/", true, true},
		{"http://100.64.0.1/", true, true},
		{"http://0.0.0.0/", true, true},
		{"http://[::]/", true, true},
		{"http://224.0.0.1/", true, true},
		{"http://255.255.255.255/", true, true},
		{"http://[fc00::1]/", true, true},
		{"http://[64:ff9b::a00:1]/", true, true},
		{"http://[2002:a00:1::]/", true, true},
		{"http://localhost/", true, true},
		{"http://LOCALHOST./", true, true},
		{"http://api.localhost/", true, true},
		{"http://internal.example/", true, true},
		{"http://metadata.example/", true, true},
		{"http://mixed.example/", true, true},
		{"http://mapped.example/", true, true},
		{"http://cgnat.example/", true, true},
		{"http://multicast.example/", true, true},
		{"http://unspecified.example/", true, true},
		{"http://public.example:22/", true, true},
		{"ftp://public.example/", true, false},
		{"file:///etc/passwd", true, false},
		{"gopher://public.example/", true, false},
		{"http://user:pw@public.example/", true, false},
		{"http://public.example/#frag", true, false},
		{"http://2130706433/", true, false},
		{"http://0x7f.1/", true, false},
		{"http://017700000001/", true, false},
		{"http://[fe80::1%25eth0]/", true, false},
		{"http://nxdomain.example/", true, false},
		{"/relative", true, false},
		{"", true, false},
		{"http://public.example:0/", true, false},
		{"http:// public.example/", true, false},
		{"https://public.example/hook?x=1", false, false},
		{"http://public.example/hook", false, false},
		{"https://public.example:443/", false, false},
		{"https://public6.example/", false, false},
		{"https://93.184.215.14/", false, false},
	}
	for _, tc := range tests {
		got, err := guard.CheckURL(context.Background(), tc.url)
		if (err != nil) != tc.wantErr {
			t.Errorf("CheckURL(%q) = %q, %v; wantErr %v", tc.url, got, err, tc.wantErr)
			continue
		}
		if err != nil {
			var ue *URLError
			if !errors.As(err, &ue) {
				t.Errorf("CheckURL(%q) error %T, want *URLError", tc.url, err)
			}
			if got := errors.Is(err, ErrDestinationRefused); got != tc.ssrf {
				t.Errorf("CheckURL(%q) = %v: address refusal %v, want %v", tc.url, err, got, tc.ssrf)
			}
			if strings.Contains(err.Error(), "public.example") {
				t.Errorf("CheckURL(%q) error echoes the URL: %v", tc.url, err)
			}
		}
	}
}

func TestCheckURLHTTPSOnlyByDefault(t *testing.T) {
	res := newFakeResolver(map[string][]string{"public.example": {"93.184.215.14"}})
	g := NewGuard(GuardConfig{Resolver: res, Allow: loopback})
	tests := []struct {
		url     string
		wantErr bool
	}{
		{"http://public.example/", true},
		{"https://public.example/", false},
		{"http://127.0.0.1:9999/", false}, // allow-listed: any port, http
		{"http://127.0.0.2/", true},       // only 127.0.0.1/32 is allowed
		{"http://[::ffff:127.0.0.1]:9999/", false},
	}
	for _, tc := range tests {
		if _, err := g.CheckURL(context.Background(), tc.url); (err != nil) != tc.wantErr {
			t.Errorf("CheckURL(%q) err = %v, wantErr %v", tc.url, err, tc.wantErr)
		}
	}
}

// TestDialTimeCheckDefeatsRebinding: the name resolves to a public address
// at registration and to loopback when the delivery dials; the dial is
// refused and nothing reaches the loopback receiver.
func TestDialTimeCheckDefeatsRebinding(t *testing.T) {
	rcv := newReceiver(t, 200)
	port := rcv.srv.Listener.Addr().(interface{ AddrPort() netip.AddrPort }).AddrPort().Port()
	res := newFakeResolver(map[string][]string{"rebind.example": {"93.184.215.14", "127.0.0.1"}})
	e := newEnv(t, func(c *Config) {
		c.Guard = NewGuard(GuardConfig{Resolver: res, AllowHTTP: true, Ports: []uint16{port}})
	})
	w, _ := e.create("acct-a", fmt.Sprintf("http://rebind.example:%d/", port), nil)
	e.publish(events.ContentSigned, map[string]any{}, "acct-a")
	e.dispatch()
	if got := len(rcv.requests()); got != 0 {
		t.Fatalf("loopback receiver got %d requests through a rebinding name, want 0", got)
	}
	d := e.deliveries("acct-a", w.ID, "")[0]
	if len(d.Attempts) != 1 || d.Attempts[0].Error != "destination_refused" {
		t.Errorf("attempts = %+v, want one destination_refused", d.Attempts)
	}
}

// TestRedirectNotFollowed: a receiver answering 302 to another (allowed)
// receiver counts as a failure and the target is never contacted.
func TestRedirectNotFollowed(t *testing.T) {
	target := newReceiver(t, 200)
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.srv.URL+"/stolen", http.StatusFound)
	}))
	t.Cleanup(redirector.Close)
	e := newEnv(t, nil)
	w, _ := e.create("acct-a", redirector.URL, nil)
	e.publish(events.ContentSigned, map[string]any{}, "acct-a")
	e.dispatch()
	if got := len(target.requests()); got != 0 {
		t.Errorf("redirect target got %d requests, want 0", got)
	}
	d := e.deliveries("acct-a", w.ID, "")[0]
	if len(d.Attempts) != 1 || d.Attempts[0].StatusCode != 302 || d.Attempts[0].Error != "http_status" || d.Status != StatusPending {
		t.Errorf("delivery = %s %+v, want pending after one failed 302 attempt", d.Status, d.Attempts)
	}
}

// TestRefusedWithoutAllowList: a webhook on 127.0.0.1 cannot be created
// without the allow-list, and the delivery client refuses to dial it.
func TestRefusedWithoutAllowList(t *testing.T) {
	rcv := newReceiver(t, 200)
	e := newEnv(t, func(c *Config) { c.Guard = NewGuard(GuardConfig{AllowHTTP: true}) })
	if _, _, err := e.svc.Create(context.Background(), "acct-a", CreateInput{URL: rcv.srv.URL}); !errors.Is(err, ErrDestinationRefused) && err == nil {
		t.Errorf("Create(%s) without allow-list succeeded, want refusal", rcv.srv.URL)
	}
	client := NewHTTPClient(NewGuard(GuardConfig{AllowHTTP: true}), time.Second)
	resp, err := client.Post(rcv.srv.URL, "application/json", strings.NewReader("{}"))
	if err == nil {
		resp.Body.Close()
		t.Fatalf("delivery client reached %s without allow-list", rcv.srv.URL)
	}
	if !errors.Is(err, ErrDestinationRefused) {
		t.Errorf("dial error = %v, want ErrDestinationRefused", err)
	}
	if got := len(rcv.requests()); got != 0 {
		t.Errorf("receiver got %d requests, want 0", got)
	}
}

func TestAddressClass(t *testing.T) {
	tests := map[string]string{
		"8.8.8.8":                "",
		"2001:4860:4860::8888":   "",
		"127.0.0.1":              "loopback",
		"::1":                    "loopback",
		"::ffff:127.0.0.1":       "loopback",
		"::ffff:169.254.169.254": "link-local",
		"169.254.169.254":        "link-local",
		"10.0.0.1":               "private",
		"::ffff:192.168.1.1":     "private",
		"100.64.0.1":             "cgnat",
		"100.127.255.255":        "cgnat",
		"100.128.0.1":            "",
		"0.0.0.0":                "unspecified",
		"ff02::1":                "multicast",
		"224.0.0.1":              "multicast",
		"ff01::1":                "multicast",
		"255.255.255.255":        "broadcast",
		"::":                     "unspecified",
		"239.1.1.1":              "multicast",
		"fd00::1":                "private",
		"::ffff:100.64.0.1":      "cgnat",
		"2001:db8::1":            "documentation",
		"64:ff9b::7f00:1":        "nat64",
		"::7f00:1":               "ipv4-compatible",
	}
	for ip, want := range tests {
		if got := AddressClass(netip.MustParseAddr(ip)); got != want {
			t.Errorf("AddressClass(%s) = %q, want %q", ip, got, want)
		}
	}
}

// FuzzCheckURL: CheckURL never panics, and whatever it accepts is an
// absolute http(s) URL without user info or fragment whose host resolves
// only to addresses the dial-time check also accepts.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"https://public.example/hook", "http://127.0.0.1", "http://[::ffff:127.0.0.1]/",
		"http://169.254.169.254", "ftp://x", "http://localhost", "https://a.b.c:8443/p?q#f", "http://[fe80::1%25lo]/",
		"http://0x7f.1/", "https://public.example:443", "HTTPS://PUBLIC.EXAMPLE/", "http://user@public.example/"} {
		f.Add(s)
	}
	res := newFakeResolver(map[string][]string{"public.example": {"93.184.215.14"}, "a.b.c": {"10.0.0.1"}})
	g := NewGuard(GuardConfig{Resolver: res, AllowHTTP: true})
	f.Fuzz(func(t *testing.T, raw string) {
		got, err := g.CheckURL(context.Background(), raw)
		if err != nil {
			var ue *URLError
			if !errors.As(err, &ue) {
				t.Fatalf("CheckURL(%q) error %T, want *URLError", raw, err)
			}
			return
		}
		u, perr := url.Parse(got)
		if perr != nil {
			t.Fatalf("accepted %q normalises to unparsable %q", raw, got)
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || u.Fragment != "" || u.Hostname() == "" {
			t.Fatalf("accepted %q -> %q violates the URL rules", raw, got)
		}
		host := u.Hostname()
		addrs := []netip.Addr{}
		if ip, err := netip.ParseAddr(host); err == nil {
			addrs = append(addrs, ip)
		} else if addrs, err = res.LookupNetIP(context.Background(), "ip", host); err != nil {
			t.Fatalf("accepted %q whose host %q does not resolve", raw, host)
		}
		port := uint16(80)
		if u.Scheme == "https" {
			port = 443
		}
		if p := u.Port(); p != "" {
			fmt.Sscan(p, &port)
		}
		for _, a := range addrs {
			if err := g.CheckAddr(a, port); err != nil {
				t.Fatalf("accepted %q but the dial check refuses %s:%d: %v", raw, a, port, err)
			}
		}
	})
}
