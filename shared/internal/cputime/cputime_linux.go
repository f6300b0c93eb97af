//go:build linux

package cputime

import (
	"syscall"
	"time"
)

// Process returns the CPU time (user + system) this process has used, or 0
// when the kernel does not say.
func Process() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
