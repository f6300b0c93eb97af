//go:build !linux

package watermark

import "time"

// threadCPU returns the wall time of f where the thread's CPU time is not
// available.
func threadCPU(f func()) time.Duration {
	t := time.Now()
	f()
	return time.Since(t)
}
