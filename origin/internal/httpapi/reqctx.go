package httpapi

import (
	"context"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/internal/defaults"
)

// Class is a route's class for its request deadline (Timeouts).
type Class int

// Route classes.
const (
	// ClassJSON is the default: a request that reads at most a JSON body
	// and makes store and chain reads and writes.
	ClassJSON Class = iota
	// ClassUpload is a route that takes image uploads (sign-batch, C2PA
	// by content): decodes wait for room and run on the request's time.
	ClassUpload
	// ClassMedia is a route that may take a video (a Route with MaxBody
	// set is one whatever its Class): ffmpeg runs on the request's time.
	ClassMedia
)

// Timeouts are the request deadlines by route class: the context a
// handler gets from Context ends at the deadline (or earlier, when the
// server shuts down or the client of a video goes away).
type Timeouts struct {
	// JSON bounds ClassJSON routes; zero means DefaultJSONTimeout.
	JSON time.Duration
	// Upload bounds ClassUpload routes; zero means DefaultUploadTimeout.
	Upload time.Duration
	// Media bounds ClassMedia routes; zero means DefaultMediaTimeout.
	Media time.Duration
}

// Default request deadlines (docs/api.md, "Request deadlines").
const (
	// DefaultJSONTimeout is above the longest a JSON route waits on
	// purpose: a domain check's two outbound proofs (HTTPS file, then DNS
	// TXT, 10 s each at most) and the chain reads of a record's anchoring
	// state (5 s), with room for the store.
	DefaultJSONTimeout = 30 * time.Second
	// DefaultUploadTimeout covers the wait for decode memory (5 s), the
	// decodes of a sign-batch and the store writes; it is the public
	// listener's write timeout.
	DefaultUploadTimeout = 60 * time.Second
	// DefaultMediaTimeout covers three ffmpeg/ffprobe runs at the video
	// engine's default wall time (10 min each); an image on the same
	// routes normally ends far sooner.
	DefaultMediaTimeout = 30 * time.Minute
)

func (t Timeouts) withDefaults() Timeouts {
	t.JSON = defaults.Positive(t.JSON, DefaultJSONTimeout)
	t.Upload = defaults.Positive(t.Upload, DefaultUploadTimeout)
	t.Media = defaults.Positive(t.Media, DefaultMediaTimeout)
	return t
}

// of is the deadline of route rt.
func (t Timeouts) of(rt Route) time.Duration {
	switch {
	case rt.Class == ClassMedia || rt.MaxBody > 0:
		return t.Media
	case rt.Class == ClassUpload:
		return t.Upload
	}
	return t.JSON
}

// reqContextKey holds a request's context.Context.
type reqContextKey struct{}

// running counts the requests being served and cancels their contexts
// on Cancel; the server's shutdown uses it to close the store only once
// no handler can touch it.
type running struct {
	base   context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	n      int
	idle   chan struct{} // closed when n drops to zero; nil while nobody waits
}

func newRunning() *running {
	base, cancel := context.WithCancel(context.Background())
	return &running{base: base, cancel: cancel}
}

func (r *running) begin() {
	r.mu.Lock()
	r.n++
	r.mu.Unlock()
}

func (r *running) end() {
	r.mu.Lock()
	r.n--
	if r.n == 0 && r.idle != nil {
		close(r.idle)
		r.idle = nil
	}
	r.mu.Unlock()
}

// requestContext gives the request its context: a child of the API's
// base context with rt's deadline. The caller calls the returned cancel
// when the handler returns.
func (a *API) requestContext(ctx *fasthttp.RequestCtx, rt Route) context.CancelFunc {
	c, cancel := context.WithTimeout(a.run.base, a.timeouts.of(rt))
	ctx.SetUserValue(reqContextKey{}, c)
	return func() {
		cancel()
		ctx.SetUserValue(reqContextKey{}, nil)
	}
}

// Cancel cancels the context of every request being served, and of every
// request served from now on: their domain calls return
// context.Canceled, answered 503 shutting_down. The server calls it when
// its shutdown deadline has passed.
func (a *API) Cancel() { a.run.cancel() }

// Running is the number of requests being served.
func (a *API) Running() int {
	a.run.mu.Lock()
	defer a.run.mu.Unlock()
	return a.run.n
}

// Wait returns nil once no request is being served (at once if none is),
// or ctx's error if ctx ends first.
func (a *API) Wait(ctx context.Context) error {
	r := a.run
	r.mu.Lock()
	if r.n == 0 {
		r.mu.Unlock()
		return nil
	}
	if r.idle == nil {
		r.idle = make(chan struct{})
	}
	idle := r.idle
	r.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
