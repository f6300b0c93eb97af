// Package domains lets an organisation prove it controls a domain, so that
// its records show the verified domain instead of "unverified
// organisation" (docs/verification.md, "Who a signer is"). A claim gets a
// random token; the account proves the domain by serving the token at
// https://DOMAIN/.well-known/provenant-verification.txt or in a DNS TXT
// record at _provenant.DOMAIN. A verified domain belongs to one account at
// a time: the "dom/v/<domain>" unique index is written in the same Badger
// transaction that marks the claim verified, so two concurrent checks
// cannot both win. It owns the "dom/" key prefix.
package domains

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/provenant/provenant/internal/defaults"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/webhooks"
	"github.com/provenant/provenant/shared/clock"
	"github.com/provenant/provenant/shared/signerid"
	"github.com/provenant/provenant/shared/wire"
)

// Errors callers branch on.
var (
	// ErrInvalidDomain: the domain is not a bare, public-looking DNS name
	// (the error is an *InvalidDomainError saying why).
	ErrInvalidDomain = errors.New("domains: invalid domain")
	// ErrDomainTaken: another account holds this domain verified.
	ErrDomainTaken = errors.New("domains: domain verified by another account")
	// ErrDomainUnverified: neither proof carried the claim's token (the
	// error is an *UnverifiedError saying what was tried).
	ErrDomainUnverified = errors.New("domains: domain not proven")
	// ErrNotFound: the account has no claim for this domain.
	ErrNotFound = errors.New("domains: claim not found")
	// ErrLimit: the account has MaxClaims claims already.
	ErrLimit = errors.New("domains: too many domain claims")
)

// InvalidDomainError says why a domain was refused. Reason is constant and
// client-safe (it never echoes the value).
type InvalidDomainError struct{ Reason string }

func (e *InvalidDomainError) Error() string { return "domains: domain " + e.Reason }

// Unwrap makes errors.Is(err, ErrInvalidDomain) hold.
func (e *InvalidDomainError) Unwrap() error { return ErrInvalidDomain }

// UnverifiedError lists, per method, why the proof was not found. The
// sentences are the service's own (status codes, "no TXT record"), never
// content fetched from the domain.
type UnverifiedError struct{ Tried []string }

func (e *UnverifiedError) Error() string {
	return "domains: not proven: " + strings.Join(e.Tried, "; ")
}

// Unwrap makes errors.Is(err, ErrDomainUnverified) hold.
func (e *UnverifiedError) Unwrap() error { return ErrDomainUnverified }

// Proof locations (docs/api.md).
const (
	// WellKnownPath is the path of the HTTPS proof file.
	WellKnownPath = "/.well-known/provenant-verification.txt"
	// TXTPrefix is prepended to the domain for the DNS proof.
	TXTPrefix = "_provenant."
	// TokenPrefix starts every token, so that a TXT record or file line is
	// recognisable.
	TokenPrefix = "provenant-verification="
)

// Claim statuses and proof methods.
const (
	StatusPending  = "pending"
	StatusVerified = "verified"
	MethodHTTPS    = "https"
	MethodDNSTXT   = "dns_txt"
)

// Defaults for zero Config fields.
const (
	DefaultTimeout   = 10 * time.Second
	DefaultMaxClaims = 20
	// maxProofBody bounds how much of the proof file is read.
	maxProofBody = 4096
)

// TXTResolver looks up DNS TXT records. *net.Resolver implements it; tests
// pass a fake because no DNS is reachable there.
type TXTResolver interface {
	LookupTXT(ctx context.Context, name string) ([]string, error)
}

// Config configures a Service. Store, Clock, Rand and Guard are required.
type Config struct {
	Store store.Store
	Clock clock.Clock
	// Rand makes tokens (crypto/rand.Reader in production).
	Rand io.Reader
	// Guard is the webhooks' SSRF policy; proof files are fetched through
	// webhooks.NewHTTPClient(Guard, Timeout), so a domain resolving to a
	// private, loopback or otherwise refused address is never contacted
	// unless the Guard's allow-list names it, and redirects are not
	// followed.
	Guard *webhooks.Guard
	// TXT resolves the DNS proof; nil means net.DefaultResolver.
	TXT TXTResolver
	// PlainHTTPPort, when non-zero, fetches the proof file over plain
	// http on this port instead of https on 443 for a domain whose every
	// address is in the Guard's allow-list (Guard.CheckURL accepts http
	// only then). It exists for tests, whose proof server listens on a
	// loopback port; a domain with any public address is always fetched
	// over https on 443.
	PlainHTTPPort uint16
	// Timeout bounds one proof fetch or lookup; zero means DefaultTimeout.
	Timeout time.Duration
	// MaxClaims bounds the claims of one account; zero means
	// DefaultMaxClaims.
	MaxClaims int
	// Names counts the accounts whose organisation names fold alike
	// (*accounts.Service); nil means names are never reported shared.
	Names NameHolders
	// Logger; nil discards. It never receives tokens.
	Logger *slog.Logger
}

// NameHolders is what Identity needs of the account service.
type NameHolders interface {
	// OrgNameHolders counts the accounts (up to at least 2) whose
	// organisation name folds like name.
	OrgNameHolders(ctx context.Context, name string) (int, error)
}

// Service implements domain claims. It is safe for concurrent use.
type Service struct {
	cfg    Config
	log    *slog.Logger
	client *http.Client
}

// New returns a Service.
func New(cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Clock == nil || cfg.Rand == nil || cfg.Guard == nil {
		return nil, errors.New("domains: Store, Clock, Rand and Guard are required")
	}
	if cfg.TXT == nil {
		cfg.TXT = net.DefaultResolver
	}
	cfg.Timeout = defaults.Positive(cfg.Timeout, DefaultTimeout)
	cfg.MaxClaims = defaults.Positive(cfg.MaxClaims, DefaultMaxClaims)
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{cfg: cfg, log: log, client: webhooks.NewHTTPClient(cfg.Guard, cfg.Timeout)}, nil
}

// Claim is one account's claim on a domain: the API's type, stored as it
// is answered, so that a member added there needs no copy by hand.
type Claim = wire.DomainClaim

// ProofURL is where the HTTPS proof file must be served.
func ProofURL(domain string) string { return "https://" + domain + WellKnownPath }

// TXTName is the DNS name whose TXT record carries the token.
func TXTName(domain string) string { return TXTPrefix + domain }

func claimPrefix(account string) []byte             { return []byte("dom/c/" + account + "/") }
func claimKey(account, domain string) []byte        { return append(claimPrefix(account), domain...) }
func verifiedKey(domain string) []byte              { return []byte("dom/v/" + domain) }
func invalid(reason string) error                   { return &InvalidDomainError{Reason: reason} }
func (s *Service) now() time.Time                   { return s.cfg.Clock.Now().UTC() }
func holder(tx store.Txn, d string) ([]byte, error) { return tx.Get(verifiedKey(d)) }

// NormalizeDomain returns d lower-cased without a trailing dot, or an
// *InvalidDomainError: it must be a bare ASCII DNS name (a non-ASCII name
// in its punycode A-label form) of at least two labels, each 1-63 letters,
// digits or hyphens not starting or ending with a hyphen, at most 253
// characters, whose last label is not numeric; not a URL, not an IP
// address, not localhost.
func NormalizeDomain(d string) (string, error) {
	d = strings.ToLower(strings.TrimSpace(d))
	d = strings.TrimSuffix(d, ".")
	switch {
	case d == "":
		return "", invalid("is required")
	case strings.Contains(d, "://") || strings.ContainsAny(d, "/?#@:"):
		if _, err := netip.ParseAddr(d); err == nil {
			return "", invalid("must be a domain name, not an IP address")
		}
		return "", invalid("must be a bare domain name (example.com), not a URL")
	case len(d) > 253:
		return "", invalid("is too long")
	}
	for i := 0; i < len(d); i++ {
		if d[i] >= 0x80 {
			return "", invalid("must be ASCII (use the punycode xn-- form of an internationalised name)")
		}
	}
	if _, err := netip.ParseAddr(d); err == nil {
		return "", invalid("must be a domain name, not an IP address")
	}
	labels := strings.Split(d, ".")
	if len(labels) < 2 {
		return "", invalid("must have at least two labels (example.com)")
	}
	for _, l := range labels {
		if len(l) == 0 || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return "", invalid("has an empty, too long or hyphen-edged label")
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return "", invalid("may contain only letters, digits, hyphens and dots")
			}
		}
	}
	if last := labels[len(labels)-1]; strings.Trim(last, "0123456789") == "" {
		return "", invalid("must end in a top-level domain, not a number")
	}
	if labels[len(labels)-1] == "localhost" {
		return "", invalid("must not be localhost")
	}
	return d, nil
}

// Start begins (or returns the existing) claim of account on domain. It
// returns ErrDomainTaken if another account holds the domain verified,
// ErrLimit beyond MaxClaims and *InvalidDomainError for a bad name.
func (s *Service) Start(ctx context.Context, account, domain string) (Claim, error) {
	d, err := NormalizeDomain(domain)
	if err != nil {
		return Claim{}, err
	}
	raw := make([]byte, 16)
	if _, err := io.ReadFull(s.cfg.Rand, raw); err != nil {
		return Claim{}, fmt.Errorf("domains: token: %w", err)
	}
	fresh := Claim{Domain: d, Token: TokenPrefix + hex.EncodeToString(raw), Status: StatusPending, CreatedAt: s.now()}
	var out Claim
	err = s.cfg.Store.Update(ctx, func(tx store.Txn) error {
		if c, err := store.GetJSON[Claim](tx, claimKey(account, d)); err == nil {
			out = c
			return nil
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if h, err := holder(tx, d); err == nil && string(h) != account {
			return ErrDomainTaken
		} else if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		n := 0
		if err := tx.Scan(claimPrefix(account), nil, func(_, _ []byte) error { n++; return nil }); err != nil {
			return err
		}
		if n >= s.cfg.MaxClaims {
			return ErrLimit
		}
		out = fresh
		return store.PutJSON(tx, claimKey(account, d), &fresh)
	})
	if err != nil {
		return Claim{}, fmt.Errorf("domains: start: %w", err)
	}
	return out, nil
}

// List returns account's claims ordered by domain.
func (s *Service) List(ctx context.Context, account string) ([]Claim, error) {
	out, err := store.Collect(ctx, s.cfg.Store, claimPrefix(account), func(tx store.Txn, k []byte) (Claim, error) {
		return store.GetJSON[Claim](tx, k)
	})
	if err != nil {
		return nil, fmt.Errorf("domains: list: %w", err)
	}
	return out, nil
}

// Remove deletes account's claim on domain and, if the account held it
// verified, frees the domain. ErrNotFound if there is no such claim.
func (s *Service) Remove(ctx context.Context, account, domain string) error {
	d, err := NormalizeDomain(domain)
	if err != nil {
		return ErrNotFound
	}
	err = s.cfg.Store.Update(ctx, func(tx store.Txn) error {
		if _, err := tx.Get(claimKey(account, d)); errors.Is(err, store.ErrNotFound) {
			return ErrNotFound
		} else if err != nil {
			return err
		}
		if err := tx.Delete(claimKey(account, d)); err != nil {
			return err
		}
		if h, err := holder(tx, d); err == nil && string(h) == account {
			return tx.Delete(verifiedKey(d))
		} else if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("domains: remove: %w", err)
	}
	s.log.Info("domain claim removed", "account_id", account, "domain", d)
	return nil
}

// Check looks for account's token on domain, the HTTPS file first, then
// the DNS TXT record, and marks the claim verified when either carries
// it. It returns ErrNotFound without a claim, *UnverifiedError when
// neither proof holds, and ErrDomainTaken when another account verified
// the domain first (decided in the transaction that would mark it, so of
// two concurrent checks exactly one wins). Checking a verified claim
// proves it again.
func (s *Service) Check(ctx context.Context, account, domain string) (Claim, error) {
	d, err := NormalizeDomain(domain)
	if err != nil {
		return Claim{}, ErrNotFound
	}
	var c Claim
	err = s.cfg.Store.View(ctx, func(tx store.Txn) (err error) {
		c, err = store.GetJSON[Claim](tx, claimKey(account, d))
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return Claim{}, ErrNotFound
	}
	if err != nil {
		return Claim{}, fmt.Errorf("domains: check: %w", err)
	}
	method, tried := s.prove(ctx, d, c.Token)
	now := s.now()
	err = s.cfg.Store.Update(ctx, func(tx store.Txn) error {
		cur, err := store.GetJSON[Claim](tx, claimKey(account, d))
		if errors.Is(err, store.ErrNotFound) {
			return ErrNotFound // removed meanwhile
		} else if err != nil {
			return err
		}
		if cur.Token != c.Token {
			return ErrNotFound
		}
		cur.CheckedAt = &now
		if method == "" {
			c = cur
			return store.PutJSON(tx, claimKey(account, d), &cur)
		}
		if h, err := holder(tx, d); err == nil && string(h) != account {
			return ErrDomainTaken
		} else if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if err := tx.Set(verifiedKey(d), []byte(account)); err != nil {
			return err
		}
		if cur.Status != StatusVerified {
			cur.VerifiedAt = &now
		}
		cur.Status, cur.Method = StatusVerified, method
		c = cur
		return store.PutJSON(tx, claimKey(account, d), &cur)
	})
	if err != nil {
		return Claim{}, fmt.Errorf("domains: check: %w", err)
	}
	if method == "" {
		return c, &UnverifiedError{Tried: tried}
	}
	s.log.Info("domain verified", "account_id", account, "domain", d, "method", method)
	return c, nil
}

// prove returns the method that carried token, or "" and why each failed.
func (s *Service) prove(ctx context.Context, d, token string) (string, []string) {
	var tried []string
	ok, why := s.proveFile(ctx, d, token)
	if ok {
		return MethodHTTPS, nil
	}
	tried = append(tried, "https file: "+why)
	ok, why = s.proveTXT(ctx, d, token)
	if ok {
		return MethodDNSTXT, nil
	}
	return "", append(tried, "dns txt: "+why)
}

// proveFile fetches the proof file through the SSRF-guarded client: the
// URL is checked (Guard.CheckURL) before the request, and every connection
// the client opens is checked again at dial time.
func (s *Service) proveFile(ctx context.Context, d, token string) (bool, string) {
	u := ProofURL(d)
	if s.cfg.PlainHTTPPort != 0 {
		plain := "http://" + net.JoinHostPort(d, strconv.Itoa(int(s.cfg.PlainHTTPPort))) + WellKnownPath
		if _, err := s.cfg.Guard.CheckURL(ctx, plain); err == nil {
			u = plain
		}
	}
	if _, err := s.cfg.Guard.CheckURL(ctx, u); err != nil {
		var ue *webhooks.URLError
		if errors.As(err, &ue) {
			return false, "url " + ue.Reason
		}
		return false, "url refused"
	}
	rctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, u, nil)
	if err != nil {
		return false, "bad request"
	}
	req.Header.Set("User-Agent", "provenant-domain-verification")
	resp, err := s.client.Do(req)
	if err != nil {
		if errors.Is(err, webhooks.ErrDestinationRefused) {
			return false, "destination address refused"
		}
		return false, "could not connect"
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, "status " + strconv.Itoa(resp.StatusCode) + " (redirects are not followed)"
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxProofBody))
	if err != nil {
		return false, "could not read the file"
	}
	for _, line := range strings.Split(string(body), "\n") {
		if strings.TrimSpace(line) == token {
			return true, ""
		}
	}
	return false, "the file does not contain the token on a line of its own"
}

func (s *Service) proveTXT(ctx context.Context, d, token string) (bool, string) {
	rctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	recs, err := s.cfg.TXT.LookupTXT(rctx, TXTName(d))
	if err != nil {
		return false, "no TXT record at " + TXTName(d)
	}
	for _, r := range recs {
		if strings.TrimSpace(r) == token {
			return true, ""
		}
	}
	return false, "no TXT record at " + TXTName(d) + " carries the token"
}

// VerifiedDomain returns the domain account holds verified ("" if none);
// with several, the first in alphabetical order, so every surface shows
// the same one.
func (s *Service) VerifiedDomain(ctx context.Context, account string) (string, error) {
	var out string
	err := s.cfg.Store.View(ctx, func(tx store.Txn) error {
		out = ""
		return tx.Scan(claimPrefix(account), nil, func(k, _ []byte) error {
			d := string(k[len(claimPrefix(account)):])
			h, err := holder(tx, d)
			if errors.Is(err, store.ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			if string(h) == account {
				out = d
				return store.ErrStopIteration
			}
			return nil
		})
	})
	if err != nil {
		return "", fmt.Errorf("domains: verified domain: %w", err)
	}
	return out, nil
}

// SignerIdentity returns what the service knows of the signer account
// beyond its declared name: its verified domain, and whether another
// account's organisation name looks like orgName.
func (s *Service) SignerIdentity(ctx context.Context, account, orgName string) (signerid.Identity, error) {
	d, err := s.VerifiedDomain(ctx, account)
	if err != nil {
		return signerid.Identity{}, err
	}
	id := signerid.Identity{VerifiedDomain: d}
	if s.cfg.Names != nil {
		n, err := s.cfg.Names.OrgNameHolders(ctx, orgName)
		if err != nil {
			return signerid.Identity{}, err
		}
		id.NameShared = n > 1
	}
	return id, nil
}
