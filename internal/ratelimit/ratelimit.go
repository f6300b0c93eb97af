// Package ratelimit implements per-key rate limiting with the Generic Cell
// Rate Algorithm (GCRA) and renders the IETF RateLimit header fields
// (draft-ietf-httpapi-ratelimit-headers-10).
//
// A Limiter keeps one "theoretical arrival time" (TAT) per key in memory. A
// policy of Quota requests per Window allows a burst of Quota and then one
// request every Window/Quota, which matches "Quota requests in any Window".
// Memory is bounded: entries whose TAT is in the past are equivalent to
// absent ones and are evicted, and each shard holds at most MaxKeys/shards
// entries (when full, the entry closest to expiry is evicted, which can only
// make the limiter more permissive for that key, never block another one).
//
// State is per process and is lost on restart; that is acceptable for abuse
// protection and is how the spec's per-minute limits are meant.
package ratelimit

import (
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/provenant/provenant/shared/clock"
)

const shardCount = 16

// DefaultMaxKeys is the bound on tracked keys when Config.MaxKeys is zero.
const DefaultMaxKeys = 100_000

// Policy is a quota of Quota requests per Window, named for the
// RateLimit-Policy header.
type Policy struct {
	// Name identifies the policy in headers and problem bodies, e.g. "register".
	Name string
	// Quota is the number of requests allowed per Window; must be > 0.
	Quota int
	// Window is the period of the quota; must be >= 1s and a whole number of
	// seconds (it is advertised in seconds).
	Window time.Duration
}

// Validate reports whether p can be used.
func (p Policy) Validate() error {
	switch {
	case p.Name == "" || !isToken(p.Name):
		return fmt.Errorf("ratelimit: policy name %q must be a non-empty token", p.Name)
	case p.Quota <= 0:
		return fmt.Errorf("ratelimit: policy %s: quota must be positive", p.Name)
	case p.Window < time.Second || p.Window%time.Second != 0:
		return fmt.Errorf("ratelimit: policy %s: window must be whole seconds >= 1s", p.Name)
	}
	return nil
}

// Config configures a Limiter.
type Config struct {
	Policy Policy
	// Clock is the time source; required.
	Clock clock.Clock
	// MaxKeys bounds the number of tracked keys; zero means DefaultMaxKeys.
	MaxKeys int
}

// Limiter is a GCRA rate limiter for one Policy. It is safe for concurrent use.
type Limiter struct {
	policy   Policy
	clock    clock.Clock
	interval time.Duration // emission interval T = Window / Quota
	tau      time.Duration // burst tolerance = Quota * T
	perShard int
	seed     maphash.Seed
	shards   [shardCount]shard
}

type shard struct {
	mu  sync.Mutex
	tat map[string]time.Time
}

// New returns a Limiter for cfg.Policy.
func New(cfg Config) (*Limiter, error) {
	if err := cfg.Policy.Validate(); err != nil {
		return nil, err
	}
	if cfg.Clock == nil {
		return nil, errors.New("ratelimit: Config.Clock is required")
	}
	maxKeys := cfg.MaxKeys
	if maxKeys <= 0 {
		maxKeys = DefaultMaxKeys
	}
	per := (maxKeys + shardCount - 1) / shardCount
	interval := cfg.Policy.Window / time.Duration(cfg.Policy.Quota)
	l := &Limiter{
		policy:   cfg.Policy,
		clock:    cfg.Clock,
		interval: interval,
		tau:      interval * time.Duration(cfg.Policy.Quota),
		perShard: per,
		seed:     maphash.MakeSeed(),
	}
	for i := range l.shards {
		l.shards[i].tat = make(map[string]time.Time)
	}
	return l, nil
}

// Policy returns the limiter's policy.
func (l *Limiter) Policy() Policy { return l.policy }

// Decision is the outcome of one Allow call.
type Decision struct {
	// Allowed reports whether the request may proceed; a denied request
	// consumes no quota.
	Allowed bool
	// Remaining is the number of further requests that would be allowed
	// right now (after this one, if it was allowed).
	Remaining int
	// Reset is the time until additional quota is available: for an allowed
	// request, until the quota is fully restored; for a denied request, until
	// the next request will be allowed (this is also RetryAfter).
	Reset time.Duration
	// RetryAfter is zero when Allowed, otherwise the time until a request
	// would be allowed.
	RetryAfter time.Duration
}

// Allow records a request for key and reports whether it is within the policy.
func (l *Limiter) Allow(key string) Decision {
	now := l.clock.Now()
	sh := &l.shards[maphash.String(l.seed, key)%shardCount]
	sh.mu.Lock()
	defer sh.mu.Unlock()

	tat, ok := sh.tat[key]
	if !ok || tat.Before(now) {
		tat = now
	}
	newTAT := tat.Add(l.interval)
	allowAt := newTAT.Add(-l.tau)
	if now.Before(allowAt) {
		wait := allowAt.Sub(now)
		return Decision{Allowed: false, Remaining: 0, Reset: wait, RetryAfter: wait}
	}
	if !ok && len(sh.tat) >= l.perShard {
		sh.evict(now)
	}
	sh.tat[key] = newTAT
	// Remaining: how many more intervals fit before hitting the tolerance.
	remaining := int((l.tau - newTAT.Sub(now)) / l.interval)
	return Decision{Allowed: true, Remaining: remaining, Reset: newTAT.Sub(now)}
}

// Len returns the number of keys currently tracked (for tests and metrics).
func (l *Limiter) Len() int {
	n := 0
	for i := range l.shards {
		l.shards[i].mu.Lock()
		n += len(l.shards[i].tat)
		l.shards[i].mu.Unlock()
	}
	return n
}

// evict drops expired entries; if none expired, it drops the entry that
// expires first. Called with the shard lock held.
func (s *shard) evict(now time.Time) {
	var oldestKey string
	var oldest time.Time
	found := false
	removed := false
	for k, t := range s.tat {
		if !t.After(now) {
			delete(s.tat, k)
			removed = true
			continue
		}
		if !found || t.Before(oldest) {
			oldestKey, oldest, found = k, t, true
		}
	}
	if !removed && found {
		delete(s.tat, oldestKey)
	}
}

// PolicyHeader returns the RateLimit-Policy field value, e.g.
// `"register";q=10;w=60`.
func (p Policy) PolicyHeader() string {
	return strconv.Quote(p.Name) + ";q=" + strconv.Itoa(p.Quota) + ";w=" + strconv.Itoa(int(p.Window/time.Second))
}

// Header returns the RateLimit field value for d, e.g. `"register";r=9;t=60`.
// t is Reset rounded up to whole seconds.
func (d Decision) Header(p Policy) string {
	return strconv.Quote(p.Name) + ";r=" + strconv.Itoa(d.Remaining) + ";t=" + strconv.Itoa(CeilSeconds(d.Reset))
}

// CeilSeconds rounds d up to whole seconds (0 for d <= 0), the form used by
// Retry-After and the t parameter.
func CeilSeconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int(math.Ceil(d.Seconds()))
}

func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// IPKey returns the limiter key for a client address: the IPv4 address
// itself, or the /64 prefix of an IPv6 address (one subscriber typically
// holds a whole /64). IPv4-mapped IPv6 addresses are keyed as IPv4.
func IPKey(ip net.IP) string {
	if v4 := ip.To4(); v4 != nil {
		return v4.String()
	}
	if v6 := ip.To16(); v6 != nil {
		return v6.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return "invalid"
}
