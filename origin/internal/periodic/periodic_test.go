package periodic

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

func TestEveryStopsWhenStepSaysDone(t *testing.T) {
	var calls atomic.Int32
	Every(context.Background(), time.Millisecond, func() bool { return calls.Add(1) == 3 })
	if n := calls.Load(); n != 3 {
		t.Errorf("step ran %d times, want 3", n)
	}
}

func TestEveryStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	Every(ctx, time.Millisecond, func() bool {
		if calls.Add(1) == 2 {
			cancel()
		}
		return false
	})
	if n := calls.Load(); n != 2 {
		t.Errorf("step ran %d times after the context ended at the second, want 2", n)
	}
}

func TestEveryWaitsAnIntervalFirst(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	Every(ctx, time.Hour, func() bool {
		t.Error("step ran before the first interval")
		return true
	})
}
