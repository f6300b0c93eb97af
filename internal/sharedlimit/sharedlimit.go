// Package sharedlimit keeps rate-limit state in Redis (or Valkey), so
// that every origin, or every edge, of an installation counts a client's
// requests against one quota instead of one quota each.
//
// The semantics are those of ratelimit.Limiter, exactly: per key, a
// sliding-window log of the times of the requests allowed in the last
// Window, at most Quota of them; a request is allowed iff fewer than
// Quota were allowed in the Window before it, and a refused request is
// not recorded. The log is a Redis list of fixed-width decimal nanosecond
// times, oldest first, read and updated by one Lua script, which Redis
// runs atomically: two origins deciding at once are serialised. The time
// is the Redis server's (TIME), one clock for every origin, so their
// clocks' skew cannot widen a window. Each key expires when its newest
// entry leaves the window, so memory is what ratelimit.Limiter's is.
//
// When the store cannot answer within Config.Timeout (down, partitioned,
// overloaded), the decision falls back to an in-process ratelimit.Limiter
// per bucket: each origin then enforces the quota on its own, as it does
// without a shared store, so a client gets at most N quotas behind N
// origins for the duration of the outage, never an unlimited pass, and
// no request fails because of the limiter. The fallback is logged (once
// per minute at most) and counted (Fallbacks, and the metric the caller
// registers). After an error the store is not asked again for
// RetryInterval, so that an outage does not add its timeout to every
// request.
package sharedlimit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/provenant/provenant/internal/defaults"
	"github.com/provenant/provenant/internal/ratelimit"
	"github.com/provenant/provenant/shared/clock"
)

// Defaults of Config's zero fields.
const (
	DefaultTimeout       = 50 * time.Millisecond
	DefaultRetryInterval = time.Second
	DefaultPrefix        = "provenant:rl:"
)

// Config configures a Store.
type Config struct {
	// URL is the Redis URL, e.g. redis://10.0.0.7:6379/0 or
	// rediss://user@host:6380/0 (TLS); the password comes from Password
	// rather than the URL when set.
	URL string
	// Password, if set, overrides the URL's.
	Password string
	// Prefix starts every key; zero means DefaultPrefix. Origins and edges
	// use prefixes of their own (an edge forwards some verifies to an
	// origin, which must not count them a second time in the edge's
	// bucket).
	Prefix string
	// Timeout bounds one decision's round trip (dial, write, read); past
	// it the decision falls back. Zero means DefaultTimeout.
	Timeout time.Duration
	// RetryInterval is how long the store is left alone after an error;
	// zero means DefaultRetryInterval.
	RetryInterval time.Duration
	// Clock, if set, is the time of the decisions instead of the Redis
	// server's (tests with a fake clock); it is also the fallback
	// limiters' clock (default: the system clock).
	Clock clock.Clock
	// Logger receives the fallback lines; nil discards.
	Logger *slog.Logger
	// OnFallback, if set, is called for each decision made in process
	// because the store failed (a metric's counter).
	OnFallback func(scope string)
}

// Store builds limiters on one Redis. It is safe for concurrent use.
type Store struct {
	rdb        *redis.Client
	prefix     string
	timeout    time.Duration
	retry      time.Duration
	useClock   bool
	clk        clock.Clock
	log        *slog.Logger
	onFallback func(string)

	downUntil atomic.Int64 // Unix ns before which the store is not asked
	lastLog   atomic.Int64 // Unix ns of the last fallback log line
	fallbacks atomic.Uint64
}

// New connects lazily (the first decision dials); Ping checks the store.
func New(cfg Config) (*Store, error) {
	opt, err := redis.ParseURL(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("sharedlimit: %w", err)
	}
	if cfg.Password != "" {
		opt.Password = cfg.Password
	}
	s := &Store{prefix: cfg.Prefix, timeout: cfg.Timeout, retry: cfg.RetryInterval, clk: cfg.Clock,
		useClock: cfg.Clock != nil, log: cfg.Logger, onFallback: cfg.OnFallback}
	s.prefix = cmp.Or(s.prefix, DefaultPrefix)
	s.timeout = defaults.Positive(s.timeout, DefaultTimeout)
	s.retry = defaults.Positive(s.retry, DefaultRetryInterval)
	if s.clk == nil {
		s.clk = clock.System{}
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = s.timeout, s.timeout, s.timeout
	// A decision that failed falls back at once; retrying would spend
	// the request's time on a store that is away.
	opt.MaxRetries = -1
	s.rdb = redis.NewClient(opt)
	return s, nil
}

// Ping reports whether the store answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("sharedlimit: %w", err)
	}
	return nil
}

// Close closes the connections.
func (s *Store) Close() error { return s.rdb.Close() }

// Fallbacks returns the number of decisions made in process because the
// store failed.
func (s *Store) Fallbacks() uint64 { return s.fallbacks.Load() }

// Factory returns s.Limiter as a ratelimit.Factory.
func (s *Store) Factory() ratelimit.Factory {
	return func(scope string, p ratelimit.Policy) (ratelimit.Allower, error) { return s.Limiter(scope, p) }
}

// Limiter returns the limiter of p whose bucket is scope: every Limiter
// of the same scope on this store, in any process, shares one quota per
// key. All of them must be given the same Policy.
func (s *Store) Limiter(scope string, p ratelimit.Policy) (*Limiter, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if scope == "" {
		return nil, errors.New("sharedlimit: scope is required")
	}
	local, err := ratelimit.New(ratelimit.Config{Policy: p, Clock: s.clk})
	if err != nil {
		return nil, err
	}
	return &Limiter{s: s, p: p, scope: scope, keyPrefix: s.prefix + scope + ":", local: local,
		quota: strconv.Itoa(p.Quota), window: strconv.FormatInt(int64(p.Window/time.Second), 10)}, nil
}

// Limiter is one policy's limiter on the shared store.
type Limiter struct {
	s             *Store
	p             ratelimit.Policy
	scope         string
	keyPrefix     string
	quota, window string
	local         *ratelimit.Limiter
}

var _ ratelimit.Allower = (*Limiter)(nil)

// Policy returns the limiter's policy.
func (l *Limiter) Policy() ratelimit.Policy { return l.p }

// slideScript is the sliding-window log of ratelimit.Limiter on a list.
// Times are 19-digit zero-padded decimal nanoseconds, compared as
// strings: Lua's numbers are doubles, which cannot hold a nanosecond
// Unix time exactly.
//
// KEYS[1] the log; ARGV[1] quota; ARGV[2] window in whole seconds;
// ARGV[3] now and ARGV[4] now minus the window, or both "" for the
// server's clock. Returns {allowed (0/1), remaining, oldest, now}.
var slideScript = redis.NewScript(`
local quota = tonumber(ARGV[1])
local wsec = tonumber(ARGV[2])
local now, cutoff = ARGV[3], ARGV[4]
if now == '' then
  local t = redis.call('TIME')
  local us = string.format('%06d', tonumber(t[2]))
  now = string.format('%010d', tonumber(t[1])) .. us .. '000'
  cutoff = string.format('%010d', tonumber(t[1]) - wsec) .. us .. '000'
end
-- An entry at t counts for requests in [t, t+window): it leaves once
-- t <= now - window.
while true do
  local oldest = redis.call('LINDEX', KEYS[1], 0)
  if not oldest or oldest > cutoff then break end
  redis.call('LPOP', KEYS[1])
end
local n = redis.call('LLEN', KEYS[1])
if n >= quota then
  return {0, 0, redis.call('LINDEX', KEYS[1], 0), now}
end
-- A clock that stepped back must not reorder the log: record no earlier
-- than the newest entry, which only keeps entries longer.
local at = now
if n > 0 then
  local newest = redis.call('LINDEX', KEYS[1], -1)
  if newest > at then at = newest end
end
redis.call('RPUSH', KEYS[1], at)
-- The key lives until its newest entry leaves the window (microsecond
-- arithmetic on the first 16 digits is exact in a double).
local ahead = tonumber(string.sub(at, 1, 16)) - tonumber(string.sub(now, 1, 16))
redis.call('PEXPIRE', KEYS[1], wsec * 1000 + math.ceil(ahead / 1000) + 1)
return {1, quota - n - 1, redis.call('LINDEX', KEYS[1], 0), now}
`)

// Allow decides one request of key on the shared store, or in process
// when the store fails (see the package comment).
func (l *Limiter) Allow(key string) ratelimit.Decision {
	s := l.s
	if now := time.Now().UnixNano(); now < s.downUntil.Load() {
		return l.fallback(key, nil)
	}
	args := []any{l.quota, l.window, "", ""}
	if s.useClock {
		now := s.clk.Now().UnixNano()
		args[2], args[3] = stamp(now), stamp(now-int64(l.p.Window))
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	res, err := slideScript.Run(ctx, s.rdb, []string{l.keyPrefix + key}, args...).Slice()
	if err != nil {
		s.downUntil.Store(time.Now().Add(s.retry).UnixNano())
		return l.fallback(key, err)
	}
	d, err := l.decision(res)
	if err != nil {
		return l.fallback(key, err)
	}
	return d
}

// decision reads the script's answer.
func (l *Limiter) decision(res []any) (ratelimit.Decision, error) {
	if len(res) != 4 {
		return ratelimit.Decision{}, fmt.Errorf("sharedlimit: script answered %d values", len(res))
	}
	allowed, ok1 := res[0].(int64)
	remaining, ok2 := res[1].(int64)
	oldestS, ok3 := res[2].(string)
	nowS, ok4 := res[3].(string)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return ratelimit.Decision{}, fmt.Errorf("sharedlimit: script answered %v", res)
	}
	oldest, err1 := strconv.ParseInt(oldestS, 10, 64)
	now, err2 := strconv.ParseInt(nowS, 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return ratelimit.Decision{}, fmt.Errorf("sharedlimit: script answered %v: %w", res, err)
	}
	reset := time.Duration(oldest + int64(l.p.Window) - now)
	if allowed == 1 {
		return ratelimit.Decision{Allowed: true, Remaining: int(remaining), Reset: reset}, nil
	}
	return ratelimit.Decision{Allowed: false, Remaining: 0, Reset: reset, RetryAfter: reset}, nil
}

// fallback decides in process, and says so.
func (l *Limiter) fallback(key string, err error) ratelimit.Decision {
	s := l.s
	s.fallbacks.Add(1)
	if s.onFallback != nil {
		s.onFallback(l.scope)
	}
	if err != nil {
		now := time.Now().UnixNano()
		if last := s.lastLog.Load(); now-last >= int64(time.Minute) && s.lastLog.CompareAndSwap(last, now) {
			s.log.Warn("rate-limit store unreachable: each process enforces the quotas on its own until it is back", "scope", l.scope, "err", err)
		}
	}
	return l.local.Allow(key)
}

// stamp is t as the script's 19-digit decimal.
func stamp(t int64) string { return fmt.Sprintf("%019d", max(t, 0)) }
