package webhooks

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/events"
	"github.com/provenant/provenant/origin/internal/logbuf"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/clock"
)

var t0 = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)

var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}

type env struct {
	t     testing.TB
	st    *store.Badger
	dir   string
	clock *clock.Fake
	svc   *Service
	logs  *logbuf.Buffer
	cfg   Config
}

// newEnv builds a Service on a real Badger in a temp dir, a fake clock, and
// a Guard that allows only 127.0.0.1. The background loop is not started.
func newEnv(t testing.TB, mod func(*Config)) *env {
	t.Helper()
	dir := t.TempDir()
	e := &env{t: t, dir: dir, clock: clock.NewFake(t0), logs: &logbuf.Buffer{}}
	e.cfg = Config{
		Clock:     e.clock,
		MasterKey: bytes.Repeat([]byte{7}, 32),
		Guard:     NewGuard(GuardConfig{Allow: loopback}),
		// Long enough for a loopback delivery on a loaded machine under
		// the race detector; the tests of the timeout set their own.
		Timeout: 10 * time.Second,
		Logger:  slog.New(slog.NewJSONHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if mod != nil {
		mod(&e.cfg)
	}
	e.open()
	t.Cleanup(e.close)
	return e
}

func (e *env) open() {
	e.t.Helper()
	st, err := store.Open(store.Config{Dir: e.dir})
	if err != nil {
		e.t.Fatalf("store.Open: %v", err)
	}
	e.st = st
	cfg := e.cfg
	cfg.Store = st
	svc, err := New(cfg)
	if err != nil {
		e.t.Fatalf("New: %v", err)
	}
	e.svc = svc
}

func (e *env) close() {
	if e.svc != nil {
		e.svc.Close()
		e.svc = nil
	}
	if e.st != nil {
		_ = e.st.Close()
		e.st = nil
	}
}

func (e *env) create(owner, url string, evs []string) (Webhook, string) {
	e.t.Helper()
	w, secret, err := e.svc.Create(context.Background(), owner, CreateInput{URL: url, Events: evs})
	if err != nil {
		e.t.Fatalf("Create(%s): %v", url, err)
	}
	return w, secret
}

// hooked opens most delivery tests: a receiver answering script and a
// webhook of acct-a on every event pointing at it, with its secret.
func (e *env) hooked(script ...int) (*receiver, Webhook, string) {
	e.t.Helper()
	rcv := newReceiver(e.t, script...)
	w, secret := e.create("acct-a", rcv.srv.URL, nil)
	return rcv, w, secret
}

func (e *env) publish(typ string, data any, accounts ...string) {
	e.t.Helper()
	raw, err := events.NewData(data)
	if err != nil {
		e.t.Fatal(err)
	}
	ev := events.Event{Type: typ, Time: e.clock.Now(), Accounts: accounts, Data: raw}
	if err := e.st.Update(context.Background(), func(tx store.Txn) error { return e.svc.Publish(tx, ev) }); err != nil {
		e.t.Fatalf("Publish: %v", err)
	}
}

func (e *env) dispatch() int {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	n, err := e.svc.DispatchDue(ctx)
	if err != nil {
		e.t.Fatalf("DispatchDue: %v", err)
	}
	return n
}

func (e *env) deliveries(owner, hook string, st Status) []Delivery {
	e.t.Helper()
	p, err := e.svc.ListDeliveries(context.Background(), owner, hook, st, "", 100)
	if err != nil {
		e.t.Fatalf("ListDeliveries: %v", err)
	}
	return p.Items
}

// received is one request as the receiver saw it.
type received struct {
	header http.Header
	body   []byte
}

// receiver is a real loopback HTTP server answering with the statuses in
// script (the last one repeats); hang makes it block until the request is
// cancelled or release is closed.
type receiver struct {
	srv     *httptest.Server
	mu      sync.Mutex
	got     []received
	script  []int
	hang    bool
	release chan struct{}
	notify  chan received
}

func newReceiver(t testing.TB, script ...int) *receiver {
	t.Helper()
	r := &receiver{script: script, release: make(chan struct{}), notify: make(chan received, 1000)}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		rec := received{header: req.Header.Clone(), body: body}
		r.mu.Lock()
		r.got = append(r.got, rec)
		n := len(r.got)
		hang := r.hang
		code := 200
		if len(r.script) > 0 {
			code = r.script[min(n-1, len(r.script)-1)]
		}
		r.mu.Unlock()
		r.notify <- rec
		if hang {
			select {
			case <-req.Context().Done():
			case <-r.release:
			}
			return
		}
		w.WriteHeader(code)
	}))
	t.Cleanup(func() {
		r.mu.Lock()
		if r.hang {
			close(r.release)
			r.hang = false
		}
		r.mu.Unlock()
		r.srv.Close()
	})
	return r
}

func (r *receiver) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

func (r *receiver) setScript(s ...int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.script = s
	r.got = nil
}

func decodeJSON(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("body %q is not JSON: %v", b, err)
	}
	return m
}

var _ = rand.Reader
