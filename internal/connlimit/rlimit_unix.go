//go:build unix

package connlimit

import (
	"fmt"
	"syscall"
)

// RaiseFileLimit raises the process's soft limit on open files to its hard
// limit (the Go runtime does so too at start on most systems; this also
// covers a process whose limit was lowered later) and returns the limit
// now in force.
func RaiseFileLimit() (uint64, error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, fmt.Errorf("connlimit: read file limit: %w", err)
	}
	if r.Cur < r.Max {
		want := r
		want.Cur = r.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want); err == nil {
			r = want
		}
	}
	return uint64(r.Cur), nil
}
