// Package ratelimit implements exact per-key sliding-window rate limiting
// and renders the IETF RateLimit header fields
// (draft-ietf-httpapi-ratelimit-headers-10).
//
// A policy of Quota requests per Window means what it says: in no
// half-open interval of length Window are more than Quota requests of one
// key allowed, however they are spaced. The Limiter keeps, per key, the
// times of the requests it allowed during the last Window (a sliding
// window log, at most Quota timestamps); a request is allowed when fewer
// than Quota of them are younger than Window. A refused request is not
// recorded. The decision is exact: a request is refused only when Quota
// requests were allowed in the Window before it.
//
// Memory is bounded: a key's log holds at most Quota timestamps of 8 bytes
// and grows only with the requests it actually made in the last Window;
// keys whose log has expired are equivalent to absent ones and are evicted
// first, and each shard holds at most MaxKeys/shards keys (when full, the
// key whose newest request is oldest is evicted, which can only make the
// limiter more permissive for that key, never block another one).
//
// GCRA (one timestamp per key) was the previous algorithm: it lets a
// burst of Quota through and keeps refilling while the burst is sent, so
// up to 2×Quota-1 pass in the first Window. Any GCRA parameters that rule
// this out also forbid the burst of Quota the policy advertises, so the
// exact log is used and its memory is bounded as above.
//
// State is per process and is lost on restart, which only ever lets a
// little more through.
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

// Allower decides the requests of one Policy. *Limiter keeps its state in
// the process; a limiter on a shared store (package sharedlimit) gives
// every origin and edge of an installation one quota. Implementations are
// safe for concurrent use and keep the semantics of Limiter.Allow.
type Allower interface {
	Allow(key string) Decision
	Policy() Policy
}

// Factory returns the Allower of a policy. scope names its bucket: two
// Allowers of one scope (on different origins) count against one quota,
// two of different scopes never share one, even with the same Policy.
type Factory func(scope string, p Policy) (Allower, error)

var _ Allower = (*Limiter)(nil)

// Limiter is a sliding-window-log rate limiter for one Policy. It is safe
// for concurrent use.
type Limiter struct {
	policy   Policy
	clock    clock.Clock
	window   int64 // Policy.Window in nanoseconds
	perShard int
	seed     maphash.Seed
	shards   [shardCount]shard
}

type shard struct {
	mu   sync.Mutex
	logs map[string]*keyLog
}

// keyLog is a ring of the Unix-nanosecond times of the requests allowed
// for one key, oldest first. It holds at most Quota entries and grows on
// demand, so a key that made few requests costs little.
type keyLog struct {
	ts   []int64
	head int // index of the oldest entry
	n    int // number of entries
}

func (k *keyLog) at(i int) int64 { return k.ts[(k.head+i)%len(k.ts)] }

func (k *keyLog) oldest() int64 { return k.at(0) }

func (k *keyLog) newest() int64 { return k.at(k.n - 1) }

// expire drops the entries that left the window ending at now: an entry
// at t counts for requests at times in [t, t+window).
func (k *keyLog) expire(now, window int64) {
	for k.n > 0 && k.oldest()+window <= now {
		k.head = (k.head + 1) % len(k.ts)
		k.n--
	}
	if k.n == 0 {
		k.head = 0
	}
}

// push appends t, growing the ring up to limit entries.
func (k *keyLog) push(t int64, limit int) {
	if k.n == len(k.ts) {
		size := min(limit, max(4, 2*len(k.ts)))
		ts := make([]int64, size)
		for i := range k.n {
			ts[i] = k.at(i)
		}
		k.ts, k.head = ts, 0
	}
	k.ts[(k.head+k.n)%len(k.ts)] = t
	k.n++
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
	l := &Limiter{
		policy:   cfg.Policy,
		clock:    cfg.Clock,
		window:   int64(cfg.Policy.Window),
		perShard: (maxKeys + shardCount - 1) / shardCount,
		seed:     maphash.MakeSeed(),
	}
	for i := range l.shards {
		l.shards[i].logs = make(map[string]*keyLog)
	}
	return l, nil
}

// Policy returns the limiter's policy.
func (l *Limiter) Policy() Policy { return l.policy }

// Decision is the outcome of one Allow call. Remaining and Reset describe
// the state right after the call, so they predict the next request's
// answer exactly: if Remaining > 0 a request now is allowed; if it is 0, a
// request is refused until Reset has passed and allowed from then on (as
// long as no other request of the key came in between).
type Decision struct {
	// Allowed reports whether the request may proceed; a denied request
	// consumes no quota.
	Allowed bool
	// Remaining is the number of further requests that would be allowed
	// right now (after this one, if it was allowed).
	Remaining int
	// Reset is the time until one more unit of quota comes back (the
	// oldest request in the window leaves it); zero when the whole quota
	// is available. When Remaining is 0 it is the time until the next
	// request will be allowed.
	Reset time.Duration
	// RetryAfter is zero when Allowed, otherwise the time until a request
	// would be allowed (equal to Reset).
	RetryAfter time.Duration
}

// Allow records a request for key and reports whether it is within the
// policy: it is allowed iff fewer than Quota requests of key were allowed
// in the Window before now.
func (l *Limiter) Allow(key string) Decision {
	now := l.clock.Now().UnixNano()
	quota := l.policy.Quota
	sh := &l.shards[maphash.String(l.seed, key)%shardCount]
	sh.mu.Lock()
	defer sh.mu.Unlock()

	lg, ok := sh.logs[key]
	at := now
	if ok {
		lg.expire(now, l.window)
		// A clock that stepped back must not reorder the log: record no
		// earlier than the newest entry, which only keeps entries longer.
		if lg.n > 0 {
			at = max(now, lg.newest())
		}
	}
	if ok && lg.n >= quota {
		wait := time.Duration(lg.oldest() + l.window - now)
		return Decision{Allowed: false, Remaining: 0, Reset: wait, RetryAfter: wait}
	}
	if !ok {
		if len(sh.logs) >= l.perShard {
			sh.evict(now, l.window)
		}
		lg = &keyLog{}
		sh.logs[key] = lg
	}
	lg.push(at, quota)
	return Decision{Allowed: true, Remaining: quota - lg.n, Reset: time.Duration(lg.oldest() + l.window - now)}
}

// Len returns the number of keys currently tracked (for tests and metrics).
func (l *Limiter) Len() int {
	n := 0
	for i := range l.shards {
		l.shards[i].mu.Lock()
		n += len(l.shards[i].logs)
		l.shards[i].mu.Unlock()
	}
	return n
}

// evict drops the keys whose log has expired; if none has, it drops the
// key whose newest request is oldest. Called with the shard lock held.
func (s *shard) evict(now, window int64) {
	var oldestKey string
	var oldest int64
	found, removed := false, false
	for k, lg := range s.logs {
		if lg.n == 0 || lg.newest()+window <= now {
			delete(s.logs, k)
			removed = true
			continue
		}
		if t := lg.newest(); !found || t < oldest {
			oldestKey, oldest, found = k, t, true
		}
	}
	if !removed && found {
		delete(s.logs, oldestKey)
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
