package main

import (
	"os"
	"slices"
	"sync"
	"testing"
)

// TestEachWithScratch: every item is worked on once, each worker's
// scratch directory exists while it works and is its own, and all of
// them are gone afterwards.
func TestEachWithScratch(t *testing.T) {
	items := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	var mu sync.Mutex
	var seen []int
	dirs := map[string]bool{}
	err := eachWithScratch(items, 3, "fanout-test-", func(tmp string, it int) {
		if st, err := os.Stat(tmp); err != nil || !st.IsDir() {
			t.Errorf("item %d: scratch %s: %v", it, tmp, err)
		}
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, it)
		dirs[tmp] = true
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(seen)
	if !slices.Equal(seen, items) {
		t.Errorf("worked on %v, want each of %v once", seen, items)
	}
	if len(dirs) == 0 || len(dirs) > 3 {
		t.Errorf("%d scratch directories for 3 workers", len(dirs))
	}
	for d := range dirs {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s left behind: %v", d, err)
		}
	}
}
