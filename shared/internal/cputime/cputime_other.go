//go:build !linux

package cputime

import "time"

// Process returns 0: CPU time is not measured outside Linux (WebAssembly
// has no rusage).
func Process() time.Duration { return 0 }
