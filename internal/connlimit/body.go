package connlimit

import (
	"log/slog"
	"sync"
	"time"

	"github.com/provenant/provenant/internal/defaults"
	"github.com/valyala/fasthttp"
)

// Defaults of the per-request read limits.
const (
	// DefaultHeaderTimeout bounds the wait for a request's header, from
	// the connection's first byte (or, on a kept-alive connection, from
	// the request's first byte).
	DefaultHeaderTimeout = 10 * time.Second
	// DefaultIdleTimeout bounds the wait for the next request on a
	// kept-alive connection.
	DefaultIdleTimeout = 60 * time.Second
	// DefaultMinBodyRate is the slowest upload served in full: a body
	// must arrive within the header timeout plus its declared size at
	// this rate (256 kbit/s: a 32 MiB upload gets 17 minutes).
	DefaultMinBodyRate = 32 << 10
)

// Bodies derives each request's read deadline from the size it declares
// and refuses a declared size over the cap before any of the body is
// read. Plug HeaderReceived into fasthttp.Server.HeaderReceived, Handler
// around the server's handler, and OverCap into its ErrorHandler.
type Bodies struct {
	header  time.Duration
	minRate int64
	max     int64
	limit   func(h *fasthttp.RequestHeader) int64
	refuse  fasthttp.RequestHandler
	// overCap holds the headers of requests refused by HeaderReceived
	// until the answer is written: fasthttp's callback sees the header
	// only, and the error handler or handler then gets the same header
	// inside the request's context.
	overCap sync.Map // *fasthttp.RequestHeader → struct{}
}

// BodyConfig configures Bodies.
type BodyConfig struct {
	// HeaderTimeout is the server's ReadTimeout (the header's deadline);
	// zero means DefaultHeaderTimeout.
	HeaderTimeout time.Duration
	// MinRate is the slowest body, bytes per second; zero means
	// DefaultMinBodyRate.
	MinRate int64
	// MaxBody is the largest body any route accepts; a larger declared
	// Content-Length is refused at once. A chunked body gets the deadline
	// of a body of this size.
	MaxBody int64
	// Limit, when set, is the cap of one request (by its method and
	// path), at most MaxBody; 0 means MaxBody.
	Limit func(h *fasthttp.RequestHeader) int64
	// Refuse writes the 413 answer (the server's problem format).
	Refuse fasthttp.RequestHandler
}

// NewBodies returns the limits of cfg.
func NewBodies(cfg BodyConfig) *Bodies {
	b := &Bodies{header: cfg.HeaderTimeout, minRate: cfg.MinRate, max: cfg.MaxBody, limit: cfg.Limit, refuse: cfg.Refuse}
	b.header = defaults.Positive(b.header, DefaultHeaderTimeout)
	b.minRate = defaults.Positive(b.minRate, DefaultMinBodyRate)
	return b
}

// Deadline is how long a body of n declared bytes may take, from the end
// of its header: the header timeout plus n at the minimum rate. n < 0 (a
// chunked body) counts as the cap.
func (b *Bodies) Deadline(n int64) time.Duration {
	if n < 0 {
		n = b.max
	}
	return b.header + time.Duration(float64(n)/float64(b.minRate)*float64(time.Second))
}

// HeaderReceived is the fasthttp.Server.HeaderReceived callback: it sets
// the body's read deadline, and for a declared size over the cap a
// deadline that has already passed, so that fasthttp stops waiting for the
// body at once and hands the request to the error handler (or, when the
// body's start came with the header, to the handler), which answer 413.
func (b *Bodies) HeaderReceived(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
	n := int64(h.ContentLength())
	limit := b.max
	if b.limit != nil {
		if l := b.limit(h); l > 0 && (limit <= 0 || l < limit) {
			limit = l
		}
	}
	if limit > 0 && n > limit {
		b.overCap.Store(h, struct{}{})
		return fasthttp.RequestConfig{ReadTimeout: time.Nanosecond}
	}
	// fasthttp reuses a request's header for later requests: a mark that
	// was never collected must not refuse one of them.
	b.overCap.Delete(h)
	switch {
	case n > 0 || n == -1:
		return fasthttp.RequestConfig{ReadTimeout: b.Deadline(n)}
	}
	return fasthttp.RequestConfig{}
}

// OverCap reports whether the request of ctx was refused by
// HeaderReceived; the error handler calls it first and, when true,
// answers with Refuse (see Refuse).
func (b *Bodies) OverCap(ctx *fasthttp.RequestCtx) bool {
	_, ok := b.overCap.LoadAndDelete(&ctx.Request.Header)
	return ok
}

// Refuse writes the 413 answer and closes the connection after it.
func (b *Bodies) Refuse(ctx *fasthttp.RequestCtx) {
	ctx.SetConnectionClose()
	b.refuse(ctx)
}

// Expect is the fasthttp.Server.ExpectHandler: a request that asks to
// continue (Expect: 100-continue) with a declared size over the cap gets
// 413 instead of 100 Continue, and sends no body. fasthttp lets this
// callback set the status only, so that answer has no problem body.
func (b *Bodies) Expect(ctx *fasthttp.RequestCtx) int {
	if b.OverCap(ctx) {
		return fasthttp.StatusRequestEntityTooLarge
	}
	return fasthttp.StatusContinue
}

// Handler wraps next: it marks the connection busy for the request (see
// Begin) and answers a request over the cap with Refuse instead of next.
func (b *Bodies) Handler(next fasthttp.RequestHandler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		c := ctx.Conn()
		Begin(c)
		defer End(c)
		if b.OverCap(ctx) {
			b.Refuse(ctx)
			return
		}
		next(ctx)
	}
}

// Budget is a server's connection budget as its operator configures it:
// the caps of Config and the timeouts of the fasthttp server and of
// Bodies.
type Budget struct {
	// MaxConns and MaxConnsPerIP are Config's caps: 0 means the default,
	// a negative value no cap.
	MaxConns, MaxConnsPerIP int
	// HeaderTimeout bounds the wait for a request's header (the server's
	// ReadTimeout), IdleTimeout the wait for the next request on a
	// kept-alive connection; zero means the default.
	HeaderTimeout, IdleTimeout time.Duration
	// MinBodyRate, bytes per second, gives a body its deadline (see
	// Bodies); zero means the default.
	MinBodyRate int64
}

// WithDefaults returns b with its zero fields set to the package
// defaults and its negative caps to 0 (no cap), as Config reads them.
func (b Budget) WithDefaults() Budget {
	pick := func(v, def int) int {
		switch {
		case v < 0:
			return 0
		case v == 0:
			return def
		}
		return v
	}
	b.MaxConns = pick(b.MaxConns, DefaultMaxConns)
	b.MaxConnsPerIP = pick(b.MaxConnsPerIP, DefaultMaxConnsPerIP)
	b.HeaderTimeout = defaults.Positive(b.HeaderTimeout, DefaultHeaderTimeout)
	b.IdleTimeout = defaults.Positive(b.IdleTimeout, DefaultIdleTimeout)
	b.MinBodyRate = defaults.Positive(b.MinBodyRate, DefaultMinBodyRate)
	return b
}

// FromFlags turns command-line caps (0: no cap) into a Budget's (negative:
// no cap), after raising the open-files limit as far as the system allows
// and lowering the total cap to fit in it (FitCap), with a warning when a
// configured cap had to be lowered: the cap, not accept, is then what runs
// out.
func FromFlags(b Budget, log *slog.Logger) Budget {
	files, err := RaiseFileLimit()
	if err != nil {
		log.Warn("open-files limit unknown", "err", err)
	}
	configured := b.MaxConns != 0
	if !configured {
		b.MaxConns = 1 << 30
	}
	if fit := FitCap(b.MaxConns, files); fit < b.MaxConns {
		if configured {
			log.Warn("--max-conns lowered to fit the open-files limit", "max_conns", fit, "open_files_limit", files)
		}
		b.MaxConns = fit
	}
	if b.MaxConnsPerIP == 0 {
		b.MaxConnsPerIP = -1
	}
	return b
}
