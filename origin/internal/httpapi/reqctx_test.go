package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// TestRequestDeadlineByClass: a handler's Context carries its route
// class's deadline (a route with MaxBody is media whatever its Class),
// and the context ends when the handler returns.
func TestRequestDeadlineByClass(t *testing.T) {
	// Each class's deadline is over twice the one before, so a handler
	// that starts late (by up to half its deadline: seconds on a loaded
	// machine under the race detector) is still told the classes apart.
	tos := Timeouts{JSON: 8 * time.Second, Upload: 20 * time.Second, Media: 200 * time.Second}
	e := newTestEnv(t, func(c *Config) { c.Timeouts = tos })
	last := make(chan context.Context, 1)
	h := func(ctx *fasthttp.RequestCtx) error {
		c := Context(ctx)
		last <- c
		dl, ok := c.Deadline()
		if !ok {
			return WriteJSON(ctx, 200, map[string]any{"left_ms": -1})
		}
		return WriteJSON(ctx, 200, map[string]any{"left_ms": time.Until(dl).Milliseconds()})
	}
	for _, tc := range []struct {
		name string
		rt   Route
		want time.Duration
	}{
		{"json", Route{Class: ClassJSON}, tos.JSON},
		{"upload", Route{Class: ClassUpload}, tos.Upload},
		{"media", Route{Class: ClassMedia}, tos.Media},
		{"maxbody", Route{MaxBody: 1 << 30}, tos.Media},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.rt.Method, tc.rt.Path, tc.rt.Auth = "GET", "/test/deadline/"+tc.name, Public
			e.api.Handle(tc.rt, h)
			r := e.do(t, "GET", tc.rt.Path, nil, "")
			if r.status != 200 {
				t.Fatalf("status %d %s", r.status, r.body)
			}
			var got struct {
				LeftMS int64 `json:"left_ms"`
			}
			mustUnmarshal(t, r.body, &got)
			left := time.Duration(got.LeftMS) * time.Millisecond
			// Within the class's deadline, and not the next class's.
			if left <= tc.want/2 || left > tc.want {
				t.Errorf("deadline %v from the handler's start, want about %v", left, tc.want)
			}
			if c := <-last; !errors.Is(c.Err(), context.Canceled) {
				t.Errorf("the request context after the handler returned: %v, want cancelled", c.Err())
			}
		})
	}
	t.Run("page", func(t *testing.T) {
		e.api.HandlePage("GET", "/test/deadline/page", func(ctx *fasthttp.RequestCtx) { _ = h(ctx) })
		r := e.do(t, "GET", "/test/deadline/page", nil, "")
		var got struct {
			LeftMS int64 `json:"left_ms"`
		}
		mustUnmarshal(t, r.body, &got)
		<-last
		if left := time.Duration(got.LeftMS) * time.Millisecond; left <= tos.JSON/2 || left > tos.JSON {
			t.Errorf("a page's deadline %v from the handler's start, want about %v", left, tos.JSON)
		}
	})
}

// TestDeadlinePassedAnswers503: work that outlives its route's deadline
// sees its context end, and the request is answered 503
// deadline_exceeded with Retry-After.
func TestDeadlinePassedAnswers503(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.Timeouts = Timeouts{JSON: 50 * time.Millisecond} })
	e.api.Handle(Route{Method: "GET", Path: "/test/slow", Auth: Public}, func(ctx *fasthttp.RequestCtx) error {
		select {
		case <-Context(ctx).Done():
			return Context(ctx).Err()
		case <-time.After(10 * time.Second):
			return WriteJSON(ctx, 200, "never cancelled")
		}
	})
	r := e.do(t, "GET", "/test/slow", nil, "")
	if r.status != 503 || r.code() != CodeDeadlineExceeded || r.header.Get("Retry-After") == "" {
		t.Errorf("got %d %s (Retry-After %q), want 503 %s with Retry-After", r.status, r.body, r.header.Get("Retry-After"), CodeDeadlineExceeded)
	}
}

// TestCancelReachesRunningHandler: API.Cancel (the server's shutdown
// past its deadline) ends the context of a handler that is running;
// Running and Wait see it until it returns.
func TestCancelReachesRunningHandler(t *testing.T) {
	e := newTestEnv(t, nil)
	started := make(chan struct{})
	e.api.Handle(Route{Method: "GET", Path: "/test/blocked", Auth: Public}, func(ctx *fasthttp.RequestCtx) error {
		close(started)
		select {
		case <-Context(ctx).Done():
			return Context(ctx).Err()
		case <-time.After(10 * time.Second):
			return WriteJSON(ctx, 200, "never cancelled")
		}
	})
	done := make(chan reply, 1)
	go func() { done <- e.do(t, "GET", "/test/blocked", nil, "") }()
	<-started
	if n := e.api.Running(); n != 1 {
		t.Errorf("Running() = %d with one handler blocked, want 1", n)
	}
	short, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if err := e.api.Wait(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait under a running handler = %v, want the deadline", err)
	}
	e.api.Cancel()
	r := <-done
	if r.status != 503 || r.code() != CodeShuttingDown {
		t.Errorf("got %d %s, want 503 %s", r.status, r.body, CodeShuttingDown)
	}
	if err := e.api.Wait(t.Context()); err != nil {
		t.Errorf("Wait after the handler returned: %v", err)
	}
	if n := e.api.Running(); n != 0 {
		t.Errorf("Running() = %d after the handler returned, want 0", n)
	}
}

func mustUnmarshal(t *testing.T, body string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("%s: %v", strconv.Quote(body), err)
	}
}
