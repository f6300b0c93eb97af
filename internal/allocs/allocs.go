// Package allocs measures the heap bytes a piece of code allocates, for
// the tests that hold a parser or an upload path to a memory bound (a
// hostile input must not make the process allocate in proportion to what
// it claims, only to what it is).
package allocs

import "runtime"

// During runs fn and returns the bytes allocated on the heap meanwhile
// (runtime.MemStats.TotalAlloc, so freed memory still counts). Other
// goroutines' allocations count too: call it where nothing else runs.
func During(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
