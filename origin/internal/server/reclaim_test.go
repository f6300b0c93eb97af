package server

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestReclaimMemoryDelaysReturns checks the rate limit of reclaimMemory:
// small releases and releases that leave decodes in flight return nothing;
// the first idle release returns at once; an idle release inside the
// interval is delayed to its end, not dropped (a burst's last release used
// to be, leaving its memory resident); and releases while one is pending
// join it.
func TestReclaimMemoryDelaysReturns(t *testing.T) {
	const every = 500 * time.Millisecond
	var n atomic.Int32
	returned := make(chan time.Time, 8)
	hook := reclaimMemory(every, func() {
		n.Add(1)
		returned <- time.Now()
	})
	wait := func(what string) time.Time {
		t.Helper()
		select {
		case at := <-returned:
			return at
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no memory returned", what)
			return time.Time{}
		}
	}
	quiet := func(what string, d time.Duration) {
		t.Helper()
		select {
		case <-returned:
			t.Fatalf("%s: memory returned, want nothing", what)
		case <-time.After(d):
		}
	}

	hook(reclaimAbove-1, 0)
	hook(reclaimAbove, 1)
	quiet("small release, or decodes still in flight", 2*every)

	start := time.Now()
	hook(reclaimAbove, 0)
	first := wait("first idle release")
	if d := first.Sub(start); d >= every {
		t.Errorf("first return after %v, want at once", d)
	}

	// The burst's last release, inside the interval: delayed, not dropped.
	hook(reclaimAbove, 0)
	hook(reclaimAbove, 0) // joins the pending one
	second := wait("idle release inside the interval")
	if d := second.Sub(first); d < every*9/10 {
		t.Errorf("second return %v after the first, want at least the interval %v", d, every)
	}
	quiet("releases joining a pending return", 2*every)
	if got := n.Load(); got != 2 {
		t.Errorf("%d returns, want 2", got)
	}
}

// TestReclaimMemoryReleaseDuringAReturn: a release that goes idle while a
// return is running gets a return of its own after it (the running one
// may have collected before that release's memory was garbage).
func TestReclaimMemoryReleaseDuringAReturn(t *testing.T) {
	const every = 200 * time.Millisecond
	started := make(chan struct{}, 4)
	unblock := make(chan struct{})
	hook := reclaimMemory(every, func() {
		started <- struct{}{}
		<-unblock
	})
	wait := func(what string) {
		t.Helper()
		select {
		case <-started:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no memory returned", what)
		}
	}
	hook(reclaimAbove, 0)
	wait("first idle release")
	hook(reclaimAbove, 0) // while the first return runs
	close(unblock)
	wait("idle release during a return")
}
