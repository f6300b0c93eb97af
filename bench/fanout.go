package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

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

// eachWithScratch calls work once for every item, on max(1, workers)
// goroutines, each handing work its own scratch directory (under a
// temporary directory named after prefix, removed at the end): the
// attacks write their intermediate files there.
func eachWithScratch[T any](items []T, workers int, prefix string, work func(tmp string, item T)) error {
	return inTempDir(prefix, func(root string) error {
		n := max(1, workers)
		for w := range n {
			if err := os.Mkdir(filepath.Join(root, fmt.Sprint(w)), 0o755); err != nil {
				return err
			}
		}
		ch := make(chan T)
		go func() {
			defer close(ch)
			for _, it := range items {
				ch <- it
			}
		}()
		fanOut(n, func(w int) {
			tmp := filepath.Join(root, fmt.Sprint(w))
			for it := range ch {
				work(tmp, it)
			}
		})
		return nil
	})
}

// inTempDir runs fn with a fresh temporary directory (its name starting
// with prefix) and removes the directory afterwards.
func inTempDir(prefix string, fn func(tmp string) error) error {
	tmp, err := os.MkdirTemp("", prefix)
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	return fn(tmp)
}
