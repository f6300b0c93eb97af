package store_test

import (
	"os"
	"testing"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/store/storetest"
)

// openBadger allows more conflict retries than the default: the suite's
// increment test has six writers on one key, more contention than any
// origin key sees.
func openBadger(dir string) (store.Store, error) {
	return store.Open(store.Config{Dir: dir, MaxRetries: 100})
}

func TestMain(m *testing.M) {
	storetest.ChildMain(openBadger)
	os.Exit(m.Run())
}

// TestConformance runs the Store conformance suite on Badger.
func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Backend{
		New:  func(t *testing.T) string { return t.TempDir() },
		Open: openBadger,
	})
}
