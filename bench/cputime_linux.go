package main

import (
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU runs f locked to one OS thread and returns the CPU time that
// thread spent (RUSAGE_THREAD), not the wall time: on a machine shared
// with other jobs the wall time measures the neighbours as much as f,
// while the thread's CPU time does not. f must not start goroutines whose
// work should count (decode and extract run on the calling goroutine).
func threadCPU(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const rusageThread = 1
	var a, b syscall.Rusage
	if syscall.Getrusage(rusageThread, &a) != nil {
		t := time.Now()
		f()
		return time.Since(t)
	}
	f()
	if syscall.Getrusage(rusageThread, &b) != nil {
		return 0
	}
	cpu := func(r *syscall.Rusage) time.Duration {
		return time.Duration(r.Utime.Nano() + r.Stime.Nano())
	}
	return cpu(&b) - cpu(&a)
}

// threadCPUNow is the calling thread's CPU time so far, to the nanosecond
// (CLOCK_THREAD_CPUTIME_ID; getrusage counts in scheduler ticks).
func threadCPUNow() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
