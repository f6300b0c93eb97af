// Package connlimit makes connections a budgeted resource: a listener
// wrapper that caps the connections open at once, in total and per client
// address, reclaims the oldest connection that is not inside a request when
// the cap is reached, and keeps accepting when accept itself fails (out of
// file descriptors, a connection aborted before it was accepted) by backing
// off instead of returning. The HTTP servers (origin and edge) put their
// public listeners behind it; package body adds the per-request timeouts.
package connlimit

import (
	"container/list"
	"errors"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Defaults sized for the reference machine (2 cores, 24 GiB): a
// connection waiting for its request costs about 27 KiB on the edge and
// 42 KiB on the origin (goroutine, read buffer, bookkeeping; measured), so
// the total cap costs at most ~420 MiB while an attack holds it.
const (
	DefaultMaxConns      = 10000
	DefaultMaxConnsPerIP = 256
	// minBackoff and maxBackoff bound the pause after a failed accept.
	minBackoff = 5 * time.Millisecond
	maxBackoff = time.Second
	// pressureWindow is how long a refusal, eviction or failed accept
	// keeps Stats.Saturated true.
	pressureWindow = 10 * time.Second
	// saturatedShare is the share of MaxConns at which the listener
	// reports saturation without having refused anything yet.
	saturatedShare = 0.9
)

// Config configures a Listener. The zero value caps nothing but still
// backs off on accept errors.
type Config struct {
	// MaxConns caps the connections open at once; 0 means no cap. When it
	// is reached, the connection that has waited longest without a request
	// in progress (stalled headers, idle keep-alive) is closed to make
	// room; when every open connection is inside a request, the newcomer
	// is answered 503 and closed.
	MaxConns int
	// MaxConnsPerIP caps the connections of one client address (an IPv6
	// client by its /64); 0 means no cap. Over it the newcomer is answered
	// 429 and closed.
	MaxConnsPerIP int
	// Exempt are peers the per-address cap does not apply to (reverse
	// proxies, the edge in front of an origin): all their clients share
	// one address. They still count towards MaxConns, but their idle
	// connections are never closed to make room: a proxy reuses them for
	// its clients' requests, and one closed under it fails a request.
	Exempt []netip.Prefix
	// Logger receives rate-limited warnings; nil discards them.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Stats is a snapshot of a Listener's budget.
type Stats struct {
	// Open is the number of connections open; Busy of them are inside a
	// request (between Begin and End).
	Open, Busy int
	// MaxConns and MaxConnsPerIP are the configured caps (0: none).
	MaxConns, MaxConnsPerIP int
	// Refused counts connections answered 503 because the total cap was
	// reached with no connection to reclaim; RefusedPerIP those answered
	// 429 by the per-address cap; Evicted the idle or stalled connections
	// closed to make room; AcceptErrors the failed accepts (each followed
	// by a pause).
	Refused, RefusedPerIP, Evicted, AcceptErrors uint64
	// Saturated is true while the open connections are at 90 % of
	// MaxConns or more, or within 10 s of a refusal, eviction or failed
	// accept.
	Saturated bool
}

// Listener is a net.Listener with a connection budget. Accept never
// returns a temporary failure: it returns only the inner listener's
// net.ErrClosed (or another error once the listener is closed).
type Listener struct {
	inner net.Listener
	cfg   Config
	now   func() time.Time
	sleep func(time.Duration)

	mu    sync.Mutex
	perIP map[netip.Addr]int
	// idle holds the open connections not inside a request, the one
	// that has waited longest first: the candidates for eviction.
	idle   list.List
	all    map[*Conn]struct{}
	busy   int
	closed bool

	refused, refusedPerIP, evicted, acceptErrors atomic.Uint64
	lastPressure                                 atomic.Int64 // unix nanoseconds
	lastLog                                      atomic.Int64
}

// NewListener wraps inner with the budget of cfg.
func NewListener(inner net.Listener, cfg Config) *Listener {
	l := &Listener{inner: inner, cfg: cfg, now: cfg.Now, sleep: time.Sleep, perIP: map[netip.Addr]int{}, all: map[*Conn]struct{}{}}
	if l.now == nil {
		l.now = time.Now
	}
	if l.cfg.Logger == nil {
		l.cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return l
}

// Addr is the inner listener's address.
func (l *Listener) Addr() net.Addr { return l.inner.Addr() }

// Close closes the inner listener; open connections stay (see CloseAll).
func (l *Listener) Close() error {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	return l.inner.Close()
}

// Accept returns the next connection within the budget. Connections over
// a cap are answered and closed here, and failed accepts are retried after
// a pause that doubles from 5 ms up to 1 s, reclaiming one idle connection
// each time (an exhausted file-descriptor table frees up that way).
func (l *Listener) Accept() (net.Conn, error) {
	backoff := minBackoff
	for {
		c, err := l.inner.Accept()
		if err != nil {
			l.mu.Lock()
			closed := l.closed
			l.mu.Unlock()
			if closed || errors.Is(err, net.ErrClosed) {
				return nil, err
			}
			l.acceptErrors.Add(1)
			l.pressure()
			l.warn("accept failed; pausing", "err", err, "pause", backoff)
			l.evictOne()
			l.sleep(backoff)
			backoff = min(2*backoff, maxBackoff)
			continue
		}
		backoff = minBackoff
		if conn := l.admit(c); conn != nil {
			return conn, nil
		}
	}
}

// admit registers c, or refuses it; it returns nil when c was refused.
func (l *Listener) admit(c net.Conn) *Conn {
	key, exempt := l.clientKey(c.RemoteAddr())
	l.mu.Lock()
	if !exempt && l.cfg.MaxConnsPerIP > 0 && l.perIP[key] >= l.cfg.MaxConnsPerIP {
		l.mu.Unlock()
		l.turnAway(c, &l.refusedPerIP, tooManyFromIP, "connection refused: too many from one address", "max_conns_per_ip", l.cfg.MaxConnsPerIP)
		return nil
	}
	var victim *Conn
	if l.cfg.MaxConns > 0 && len(l.all) >= l.cfg.MaxConns {
		victim = l.popIdleLocked()
		if victim == nil {
			l.mu.Unlock()
			l.turnAway(c, &l.refused, serverFull, "connection refused: every connection is busy", "max_conns", l.cfg.MaxConns)
			return nil
		}
	}
	conn := &Conn{Conn: c, l: l, key: key, exempt: exempt}
	l.all[conn] = struct{}{}
	if !exempt {
		l.perIP[key]++
	}
	if !exempt {
		conn.elem = l.idle.PushBack(conn)
	}
	l.mu.Unlock()
	if victim != nil {
		l.evicted.Add(1)
		l.pressure()
		l.warn("idle or stalled connection closed to make room", "max_conns", l.cfg.MaxConns)
		_ = victim.Close()
	}
	return conn
}

// turnAway refuses c with answer after admit let go of the lock:
// counted, logged with the limit that was reached, and marked as pressure.
func (l *Listener) turnAway(c net.Conn, count *atomic.Uint64, answer []byte, msg, limitName string, limit int) {
	count.Add(1)
	l.pressure()
	l.warn(msg, limitName, limit)
	refuse(c, answer)
}

// evictOne closes the connection that has waited longest outside a
// request, if any.
func (l *Listener) evictOne() {
	l.mu.Lock()
	victim := l.popIdleLocked()
	l.mu.Unlock()
	if victim != nil {
		l.evicted.Add(1)
		_ = victim.Close()
	}
}

func (l *Listener) popIdleLocked() *Conn {
	e := l.idle.Front()
	if e == nil {
		return nil
	}
	c := l.idle.Remove(e).(*Conn)
	c.elem = nil
	return c
}

// CloseAll closes every open connection (a shutdown whose grace period
// ran out) and returns how many there were.
func (l *Listener) CloseAll() int {
	l.mu.Lock()
	conns := make([]*Conn, 0, len(l.all))
	for c := range l.all {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
	}
	return len(conns)
}

// Stats returns the budget's current state.
func (l *Listener) Stats() Stats {
	l.mu.Lock()
	st := Stats{Open: len(l.all), Busy: l.busy}
	l.mu.Unlock()
	st.MaxConns, st.MaxConnsPerIP = l.cfg.MaxConns, l.cfg.MaxConnsPerIP
	st.Refused, st.RefusedPerIP, st.Evicted, st.AcceptErrors = l.refused.Load(), l.refusedPerIP.Load(), l.evicted.Load(), l.acceptErrors.Load()
	recent := l.now().UnixNano()-l.lastPressure.Load() < int64(pressureWindow)
	st.Saturated = recent || (st.MaxConns > 0 && float64(st.Open) >= saturatedShare*float64(st.MaxConns))
	return st
}

func (l *Listener) pressure() { l.lastPressure.Store(l.now().UnixNano()) }

// warn logs at most one message a second: under attack every refusal
// would otherwise write a line.
func (l *Listener) warn(msg string, args ...any) {
	now := l.now().UnixNano()
	last := l.lastLog.Load()
	if now-last < int64(time.Second) || !l.lastLog.CompareAndSwap(last, now) {
		return
	}
	l.cfg.Logger.Warn(msg, args...)
}

// clientKey is the address the per-address cap counts: the IPv4 address,
// or an IPv6 address's /64 (one host usually holds a whole /64).
func (l *Listener) clientKey(a net.Addr) (key netip.Addr, exempt bool) {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return netip.Addr{}, true // not TCP (a unix socket in a test): no address to count
	}
	ip, _ := netip.AddrFromSlice(ta.IP)
	ip = ip.Unmap()
	for _, p := range l.cfg.Exempt {
		if p.Contains(ip) {
			return ip, true
		}
	}
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.Addr(), false
	}
	return ip, false
}

// Conn is a connection accepted by a Listener; closing it returns its
// place in the budget.
type Conn struct {
	net.Conn
	l      *Listener
	key    netip.Addr
	exempt bool
	// elem is the connection's place in l.idle, nil while it is inside a
	// request or once closed; busy counts Begin calls without End.
	elem   *list.Element
	busy   int
	closed bool
}

// Close closes the connection and frees its place; it is safe to call
// more than once and concurrently with Begin and End.
func (c *Conn) Close() error {
	l := c.l
	l.mu.Lock()
	if !c.closed {
		c.closed = true
		if c.elem != nil {
			l.idle.Remove(c.elem)
			c.elem = nil
		}
		if c.busy > 0 {
			l.busy--
		}
		delete(l.all, c)
		if !c.exempt {
			if l.perIP[c.key]--; l.perIP[c.key] <= 0 {
				delete(l.perIP, c.key)
			}
		}
	}
	l.mu.Unlock()
	return c.Conn.Close()
}

// SyscallConn gives the underlying connection's descriptor, so code that
// watches a request's connection (for the peer's close, say) sees through
// the budget's wrapper. It fails when the underlying connection has none.
func (c *Conn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, errors.New("connlimit: the underlying connection has no descriptor")
	}
	return sc.SyscallConn()
}

// Begin marks the connection c as inside a request (its header has been
// read): it is no longer a candidate for eviction until End. c that is
// not a *Conn is ignored, so a handler may call it on any connection.
func Begin(c net.Conn) {
	withOpen(c, func(cc *Conn, l *Listener) {
		if cc.busy == 0 {
			l.busy++
			if cc.elem != nil {
				l.idle.Remove(cc.elem)
				cc.elem = nil
			}
		}
		cc.busy++
	})
}

// End marks the end of the request that Begin marked: the connection
// waits for its next request and is again the newest eviction candidate.
func End(c net.Conn) {
	withOpen(c, func(cc *Conn, l *Listener) {
		if cc.busy > 0 {
			if cc.busy--; cc.busy == 0 {
				l.busy--
				if !cc.exempt {
					cc.elem = l.idle.PushBack(cc)
				}
			}
		}
	})
}

// withOpen runs f under the listener's lock when c is a budgeted
// connection that is not closed yet; a closed one has left the counts and
// the eviction list for good, so Begin and End must not touch them.
func withOpen(c net.Conn, f func(cc *Conn, l *Listener)) {
	cc, ok := c.(*Conn)
	if !ok {
		return
	}
	cc.l.mu.Lock()
	defer cc.l.mu.Unlock()
	if !cc.closed {
		f(cc, cc.l)
	}
}

// Canned answers to refused connections: a problem+json body a client
// can act on, then the connection is closed.
var (
	serverFull    = refusal(503, "Service Unavailable", "server_busy", "The server has no room for another connection; retry shortly")
	tooManyFromIP = refusal(429, "Too Many Requests", "too_many_connections", "Too many connections from this address")
)

func refusal(status int, reason, code, title string) []byte {
	body := `{"type":"urn:provenant:problem:` + code + `","title":"` + title + `","status":` + strconv.Itoa(status) + `,"code":"` + code + `"}`
	return []byte("HTTP/1.1 " + strconv.Itoa(status) + " " + reason + "\r\nContent-Type: application/problem+json\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + body)
}

// refuseWriteTimeout bounds the write of a refusal: it fits in a fresh
// socket's send buffer, so it only waits on a peer that is already gone.
const refuseWriteTimeout = 50 * time.Millisecond

func refuse(c net.Conn, answer []byte) {
	_ = c.SetWriteDeadline(time.Now().Add(refuseWriteTimeout))
	_, _ = c.Write(answer)
	_ = c.Close()
}

// fdReserve is what FitCap keeps free of connections: the store's files,
// the chain's, outgoing connections to the origin or webhooks, pipes to
// ffmpeg.
const fdReserve = 512

// FitCap returns maxConns lowered, when the file limit is known and too
// small for it, to the limit less a reserve for the process's other files,
// so that the cap is reached before accept runs out of descriptors. It
// never returns less than 64 unless maxConns is smaller.
func FitCap(maxConns int, fileLimit uint64) int {
	if fileLimit == 0 || maxConns <= 0 {
		return maxConns
	}
	reserve := max(uint64(fdReserve), fileLimit/10)
	room := 64
	if fileLimit > reserve+64 {
		room = int(min(fileLimit-reserve, uint64(1<<30)))
	}
	return min(maxConns, room)
}
