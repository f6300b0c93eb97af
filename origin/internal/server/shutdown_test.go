package server

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/origin/internal/httpapi"
	"github.com/provenant/provenant/origin/internal/store"
)

// slowWriteServer serves POST /test/slow-write and returns once a request
// is inside its handler, which waits (for its context to end when obeys,
// until release is closed otherwise; at most hold either way), then writes
// to the store and reports the write's error on wrote.
func slowWriteServer(t *testing.T, obeys bool, hold time.Duration) (ts *testServer, wrote chan error, release chan struct{}) {
	started := make(chan struct{})
	wrote = make(chan error, 1)
	release = make(chan struct{})
	var st store.Store
	ready := make(chan struct{})
	ts = startServer(t, "", nil, func(_ *Config, d *deps) {
		prev := d.routes
		d.routes = func(a *httpapi.API) {
			prev(a)
			a.Handle(httpapi.Route{Method: "POST", Path: "/test/slow-write", Auth: httpapi.Public}, func(ctx *fasthttp.RequestCtx) error {
				<-ready
				close(started)
				if obeys {
					select {
					case <-httpapi.Context(ctx).Done():
					case <-time.After(hold):
					}
					time.Sleep(200 * time.Millisecond) // cleanup after the cancel
				} else {
					select {
					case <-release:
					case <-time.After(hold):
					}
				}
				wrote <- st.Update(context.Background(), func(tx store.Txn) error {
					return tx.Set([]byte("test/slow-write"), []byte("done"))
				})
				return httpapi.Context(ctx).Err()
			})
		}
	})
	st = ts.srv.store
	close(ready)
	go func() {
		req, _ := http.NewRequest("POST", ts.base+"/test/slow-write", strings.NewReader("{}"))
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-started
	return ts, wrote, release
}

// TestShutdownCancelsHandlersBeforeStore: a handler still running at the
// shutdown deadline sees its context cancelled, and the store is closed
// only after it returned: its last write succeeds. (Before request
// contexts, the handler never saw the shutdown and the store was closed
// under it after the grace.)
func TestShutdownCancelsHandlersBeforeStore(t *testing.T) {
	ts, wrote, _ := slowWriteServer(t, true, 2*stalledGrace)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	ts.stopped = true
	start := time.Now()
	err := ts.srv.Shutdown(ctx)
	if d := time.Since(start); d >= stalledGrace {
		t.Errorf("Shutdown took %v: the handler did not see its context cancelled", d)
	}
	if err != nil && strings.Contains(err.Error(), "still running") {
		t.Errorf("Shutdown = %v, want the handler returned once cancelled", err)
	}
	if err := <-wrote; err != nil {
		t.Errorf("the running handler's write: %v, want the store still open", err)
	}
	if n := ts.srv.api.Running(); n != 0 {
		t.Errorf("%d handlers running after Shutdown", n)
	}
}

// TestShutdownLeavesStoreOpenUnderStuckHandler: a handler that ignores
// its cancelled context past the grace keeps the store open: Shutdown
// says so instead of closing the store under it.
func TestShutdownLeavesStoreOpenUnderStuckHandler(t *testing.T) {
	// The handler holds on until released after Shutdown returned (a fixed
	// hold a second past the grace let it return within the grace when the
	// shutdown started late on a loaded machine).
	ts, wrote, release := slowWriteServer(t, false, time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	ts.stopped = true
	err := ts.srv.Shutdown(ctx)
	close(release)
	if err == nil || !strings.Contains(err.Error(), "still running") {
		t.Errorf("Shutdown = %v, want an error saying a handler is still running", err)
	}
	if err := <-wrote; err != nil {
		t.Errorf("the stuck handler's write: %v, want the store still open", err)
	}
	_ = ts.srv.chain.Close()
	_ = ts.srv.store.Close()
}
