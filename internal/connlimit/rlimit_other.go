//go:build !unix

package connlimit

// RaiseFileLimit reports no limit where the system has no RLIMIT_NOFILE.
func RaiseFileLimit() (uint64, error) { return 0, nil }
