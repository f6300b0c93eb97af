package logbuf

import (
	"strings"
	"sync"
	"testing"
)

func TestConcurrentWrites(t *testing.T) {
	var b Buffer
	const writers, lines = 4, 100
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for range lines {
				if n, err := b.Write([]byte("line\n")); n != 5 || err != nil {
					t.Errorf("Write = %d, %v; want 5, nil", n, err)
				}
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if got, want := strings.Count(b.String(), "line\n"), writers*lines; got != want {
		t.Errorf("String() holds %d lines, want %d", got, want)
	}
}
