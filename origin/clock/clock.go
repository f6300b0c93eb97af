// Package clock provides the time source injected into every origin domain
// package, so that expiry, rate limits and schedules are testable without
// sleeping. Domain code never calls time.Now directly.
package clock

import (
	"sync"
	"time"
)

// Clock reports the current time. Implementations must be safe for
// concurrent use.
type Clock interface {
	Now() time.Time
}

// System is the wall clock. Its zero value is ready to use.
type System struct{}

// Now returns time.Now().
func (System) Now() time.Time { return time.Now() }

// Fake is a manually advanced clock for tests. It only moves when Set or
// Advance is called. It is safe for concurrent use.
type Fake struct {
	mu  sync.Mutex
	now time.Time
}

// NewFake returns a Fake clock reading t.
func NewFake(t time.Time) *Fake { return &Fake{now: t} }

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Advance moves the fake time forward by d (backwards if d is negative).
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
}

// Set sets the fake time to t.
func (f *Fake) Set(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = t
}
