//go:build !linux

package main

import "time"

// threadCPU runs f and returns its wall time (thread CPU time is read on
// Linux only).
func threadCPU(f func()) time.Duration {
	t := time.Now()
	f()
	return time.Since(t)
}

// threadCPUNow is 0 where the thread's CPU clock is not read.
func threadCPUNow() time.Duration { return 0 }
