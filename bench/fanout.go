package main

import "sync"

// fanOut runs work(0), …, work(n-1), each on its own goroutine, and returns
// once every one has returned: the shape of the load and study loops here,
// written once so that none of them can forget a Done or start a worker
// after the Wait.
func fanOut(n int, work func(w int)) {
	var wg sync.WaitGroup
	for w := range n {
		wg.Go(func() { work(w) })
	}
	wg.Wait()
}
