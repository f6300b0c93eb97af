//go:build !linux

package cputime

import "time"

// Process returns 0: CPU time is read on Linux only.
func Process() time.Duration { return 0 }

// ProcessSplit returns zeros: CPU time is read on Linux only.
func ProcessSplit() (user, sys time.Duration) { return 0, 0 }

// Thread runs f and returns its wall time: the thread's CPU clock is read
// on Linux only.
func Thread(f func()) time.Duration {
	t := time.Now()
	f()
	return time.Since(t)
}

// ThreadNow is 0: the thread's CPU clock is read on Linux only.
func ThreadNow() time.Duration { return 0 }
