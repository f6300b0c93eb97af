package watermark

import (
	"runtime"
	"syscall"
	"time"
)

// threadCPU runs f locked to one OS thread and returns the CPU time that
// thread spent (RUSAGE_THREAD): on a machine shared with other jobs the
// wall time measures the neighbours as much as f.
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
	cpu := func(r *syscall.Rusage) time.Duration { return time.Duration(r.Utime.Nano() + r.Stime.Nano()) }
	return cpu(&b) - cpu(&a)
}
