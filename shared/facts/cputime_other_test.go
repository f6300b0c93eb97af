//go:build !linux

package facts

import "time"

// processCPU is not measured outside Linux (WebAssembly has no rusage).
func processCPU() time.Duration { return 0 }
