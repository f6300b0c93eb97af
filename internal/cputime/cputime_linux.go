//go:build linux

package cputime

import (
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Process returns the CPU time (user + system) this process has used, or 0
// when the kernel does not say.
func Process() time.Duration {
	user, sys := ProcessSplit()
	return user + sys
}

// ProcessSplit returns the user and the system CPU time this process has
// used, or zeros when the kernel does not say.
func ProcessSplit() (user, sys time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// Thread runs f locked to one OS thread and returns the CPU time that
// thread spent, not the wall time; if the thread's clock cannot be read
// it returns f's wall time. f must not start goroutines whose work should
// count.
func Thread(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var a unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &a) != nil {
		t := time.Now()
		f()
		return time.Since(t)
	}
	f()
	return ThreadNow() - time.Duration(a.Nano())
}

// ThreadNow is the calling thread's CPU time so far, to the nanosecond
// (CLOCK_THREAD_CPUTIME_ID; getrusage counts in scheduler ticks), or 0
// when the clock cannot be read. Only a difference taken on one locked
// thread means anything.
func ThreadNow() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
