package domains

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/domains/domainstest"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/store/storetest"
	"github.com/provenant/provenant/origin/internal/webhooks"
	"github.com/provenant/provenant/shared/clock"
)

// proofServer serves /.well-known/provenant-verification.txt per Host
// from a table, on loopback.
type proofServer struct {
	mu    sync.Mutex
	files map[string]string
	hits  atomic.Int64
	srv   *httptest.Server
}

func (p *proofServer) set(domain, body string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.files[domain] = body
}

type env struct {
	svc   *Service
	dns   *domainstest.DNS
	proof *proofServer
	st    store.Store
}

func newEnv(t *testing.T) *env {
	t.Helper()
	st := storetest.Badger(t)
	ps := &proofServer{files: map[string]string{}}
	ps.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ps.hits.Add(1)
		host, _, _ := net.SplitHostPort(r.Host)
		ps.mu.Lock()
		body, ok := ps.files[host]
		ps.mu.Unlock()
		if r.URL.Path != WellKnownPath || !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = fmt.Fprint(w, body)
	}))
	t.Cleanup(ps.srv.Close)
	port := uint16(ps.srv.Listener.Addr().(*net.TCPAddr).Port)
	dns := domainstest.New()
	dns.SetIP("example.test", netip.MustParseAddr("127.0.0.1"))
	dns.SetIP("race.test", netip.MustParseAddr("127.0.0.1"))
	dns.SetIP("private.test", netip.MustParseAddr("10.1.2.3"))
	guard := webhooks.NewGuard(webhooks.GuardConfig{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Resolver: dns, DialTimeout: time.Second})
	svc, err := New(Config{Store: st, Clock: clock.NewFake(time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)), Rand: rand.Reader,
		Guard: guard, TXT: dns, PlainHTTPPort: port, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return &env{svc: svc, dns: dns, proof: ps, st: st}
}

func TestNormalizeDomain(t *testing.T) {
	tests := []struct{ name, in, want, reason string }{
		{"plain", "Example.COM", "example.com", ""},
		{"trailing dot", "example.com.", "example.com", ""},
		{"subdomain", "news.example.co.uk", "news.example.co.uk", ""},
		{"punycode", "xn--mnchen-3ya.de", "xn--mnchen-3ya.de", ""},
		{"empty", " ", "", "is required"},
		{"url", "https://example.com", "", "must be a bare domain name (example.com), not a URL"},
		{"path", "example.com/x", "", "must be a bare domain name (example.com), not a URL"},
		{"port", "example.com:443", "", "must be a bare domain name (example.com), not a URL"},
		{"ipv4", "127.0.0.1", "", "must be a domain name, not an IP address"},
		{"ipv6", "::1", "", "must be a domain name, not an IP address"},
		{"single label", "localhost", "", "must have at least two labels (example.com)"},
		{"localhost tld", "evil.localhost", "", "must not be localhost"},
		{"unicode", "münchen.de", "", "must be ASCII (use the punycode xn-- form of an internationalised name)"},
		{"underscore", "a_b.example.com", "", "may contain only letters, digits, hyphens and dots"},
		{"hyphen edge", "-a.example.com", "", "has an empty, too long or hyphen-edged label"},
		{"numeric tld", "example.123", "", "must end in a top-level domain, not a number"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NormalizeDomain(tc.in)
			if tc.reason == "" {
				if err != nil || got != tc.want {
					t.Fatalf("NormalizeDomain(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
				}
				return
			}
			var ie *InvalidDomainError
			if !errors.As(err, &ie) || !errors.Is(err, ErrInvalidDomain) {
				t.Fatalf("NormalizeDomain(%q) = %q, %v; want an InvalidDomainError", tc.in, got, err)
			}
			if ie.Reason != tc.reason {
				t.Errorf("reason = %q, want %q", ie.Reason, tc.reason)
			}
		})
	}
}

func TestCheckByHTTPSFile(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	c, err := e.svc.Start(ctx, "acct-a", "Example.test")
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if c.Domain != "example.test" || c.Status != StatusPending || !strings.HasPrefix(c.Token, TokenPrefix) {
		t.Fatalf("Start = %+v, want a pending claim on example.test with a token", c)
	}
	again, err := e.svc.Start(ctx, "acct-a", "example.test")
	if err != nil || again.Token != c.Token {
		t.Fatalf("second Start = %+v, %v; want the same claim and token", again, err)
	}
	e.proof.set("example.test", "some other line\n"+c.Token+"\n")
	got, err := e.svc.Check(ctx, "acct-a", "example.test")
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	if got.Status != StatusVerified || got.Method != MethodHTTPS || got.VerifiedAt == nil {
		t.Errorf("Check = %+v, want verified by https", got)
	}
	d, err := e.svc.VerifiedDomain(ctx, "acct-a")
	if err != nil || d != "example.test" {
		t.Errorf("VerifiedDomain = %q, %v; want example.test", d, err)
	}
}

func TestCheckByDNSTXT(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	c := e.start(t, "acct-a", "example.test")
	e.dns.SetTXT("_provenant.example.test", "v=spf1 -all", c.Token)
	got, err := e.svc.Check(ctx, "acct-a", "example.test")
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	if got.Status != StatusVerified || got.Method != MethodDNSTXT {
		t.Errorf("Check = %+v, want verified by dns_txt", got)
	}
}

func TestCheckUnverified(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	c := e.start(t, "acct-a", "example.test")
	e.proof.set("example.test", "provenant-verification=somebody-elses-token\n")
	e.dns.SetTXT("_provenant.example.test", "provenant-verification=wrong")
	got, err := e.svc.Check(ctx, "acct-a", "example.test")
	var ue *UnverifiedError
	if !errors.As(err, &ue) || !errors.Is(err, ErrDomainUnverified) {
		t.Fatalf("Check error = %v, want an UnverifiedError", err)
	}
	if len(ue.Tried) != 2 || !strings.Contains(ue.Tried[0], "does not contain the token") || !strings.Contains(ue.Tried[1], "carries the token") {
		t.Errorf("Tried = %q, want both methods explained", ue.Tried)
	}
	if got.Status != StatusPending || got.CheckedAt == nil || got.Token != c.Token {
		t.Errorf("claim after failed check = %+v, want pending with checked_at", got)
	}
	if d, _ := e.svc.VerifiedDomain(ctx, "acct-a"); d != "" {
		t.Errorf("VerifiedDomain = %q, want none", d)
	}
}

// A domain resolving to a private address is never contacted: the
// webhooks' Guard refuses it before any request.
func TestCheckRefusesPrivateAddress(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.svc.Start(ctx, "acct-a", "private.test"); err != nil {
		t.Fatalf("Start: %v", err)
	}
	before := e.proof.hits.Load()
	_, err := e.svc.Check(ctx, "acct-a", "private.test")
	var ue *UnverifiedError
	if !errors.As(err, &ue) {
		t.Fatalf("Check error = %v, want an UnverifiedError", err)
	}
	if !strings.Contains(ue.Tried[0], "refused address (private address)") {
		t.Errorf("https attempt = %q, want the private address refused", ue.Tried[0])
	}
	if e.proof.hits.Load() != before {
		t.Errorf("the proof server was contacted")
	}
}

// Two accounts prove the same domain at the same time (the file carries
// both tokens): exactly one holds it, the other gets ErrDomainTaken.
func TestConcurrentChecksOneWinner(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for round := range 5 {
		domain := fmt.Sprintf("r%d.race.test", round)
		e.dns.SetIP(domain, netip.MustParseAddr("127.0.0.1"))
		accts := []string{}
		for _, n := range []string{"a", "b", "c"} {
			accts = append(accts, fmt.Sprintf("acct-%s-%d", n, round))
		}
		var body strings.Builder
		for _, a := range accts {
			c, err := e.svc.Start(ctx, a, domain)
			if err != nil {
				t.Fatalf("Start %s: %v", a, err)
			}
			body.WriteString(c.Token + "\n")
		}
		e.proof.set(domain, body.String())
		errs := make([]error, len(accts))
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, a := range accts {
			wg.Go(func() {
				<-start
				_, errs[i] = e.svc.Check(ctx, a, domain)
			})
		}
		close(start)
		wg.Wait()
		winners := 0
		winner := ""
		for i, err := range errs {
			switch {
			case err == nil:
				winners++
				winner = accts[i]
			case !errors.Is(err, ErrDomainTaken):
				t.Fatalf("round %d: Check %s = %v, want nil or ErrDomainTaken", round, accts[i], err)
			}
		}
		if winners != 1 {
			t.Fatalf("round %d: %d accounts verified %s, want exactly 1 (errors %v)", round, winners, domain, errs)
		}
		for _, a := range accts {
			d, err := e.svc.VerifiedDomain(ctx, a)
			if err != nil {
				t.Fatal(err)
			}
			if (a == winner) != (d == domain) {
				t.Errorf("round %d: VerifiedDomain(%s) = %q (winner %s)", round, a, d, winner)
			}
		}
	}
}

func TestTakenDomainAndRemove(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.verify(t, "acct-a", "example.test")
	if _, err := e.svc.Start(ctx, "acct-b", "example.test"); !errors.Is(err, ErrDomainTaken) {
		t.Fatalf("Start by another account = %v, want ErrDomainTaken", err)
	}
	if err := e.svc.Remove(ctx, "acct-b", "example.test"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Remove of a claim b does not have = %v, want ErrNotFound", err)
	}
	if err := e.svc.Remove(ctx, "acct-a", "example.test"); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if d, _ := e.svc.VerifiedDomain(ctx, "acct-a"); d != "" {
		t.Errorf("VerifiedDomain after Remove = %q, want none", d)
	}
	e.verify(t, "acct-b", "example.test")
	list, err := e.svc.List(ctx, "acct-b")
	if err != nil || len(list) != 1 || list[0].Status != StatusVerified {
		t.Errorf("List(b) = %+v, %v; want one verified claim", list, err)
	}
}

// start begins account's claim on domain, failing the test on an error.
func (e *env) start(t *testing.T, account, domain string) Claim {
	t.Helper()
	c, err := e.svc.Start(context.Background(), account, domain)
	if err != nil {
		t.Fatalf("Start(%s, %s): %v", account, domain, err)
	}
	return c
}

// verify claims domain for account and proves it with the HTTPS file.
func (e *env) verify(t *testing.T, account, domain string) {
	t.Helper()
	c := e.start(t, account, domain)
	e.proof.set(domain, c.Token)
	if _, err := e.svc.Check(context.Background(), account, domain); err != nil {
		t.Fatalf("Check(%s, %s): %v", account, domain, err)
	}
}

type fakeNames map[string]int

func (f fakeNames) OrgNameHolders(_ context.Context, name string) (int, error) { return f[name], nil }

func TestSignerIdentity(t *testing.T) {
	e := newEnv(t)
	e.svc.cfg.Names = fakeNames{"Reuters": 2, "Solo": 1}
	ctx := context.Background()
	e.verify(t, "acct-a", "example.test")
	tests := []struct {
		name, account, org string
		domain             string
		shared             bool
	}{
		{"verified, shared name", "acct-a", "Reuters", "example.test", true},
		{"unverified, unique name", "acct-b", "Solo", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id, err := e.svc.SignerIdentity(ctx, tc.account, tc.org)
			if err != nil || id.VerifiedDomain != tc.domain || id.NameShared != tc.shared {
				t.Errorf("SignerIdentity = %+v, %v; want domain %q shared %v", id, err, tc.domain, tc.shared)
			}
		})
	}
}
