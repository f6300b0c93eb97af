package imagex

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/limits"
)

func newBudget(t *testing.T, capacity int64, wait time.Duration, released func(n, inUse int64)) *Budget {
	t.Helper()
	b, err := NewBudget(BudgetConfig{Capacity: capacity, Wait: wait, Released: released})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBudgetAcquire(t *testing.T) {
	tests := []struct {
		name    string
		held    int64 // reserved before the call
		n       int64
		wantErr error
	}{
		{"fits", 0, 60, nil},
		{"fits exactly", 40, 60, nil},
		{"busy", 50, 60, ErrBusy},
		{"larger than the budget", 0, 101, ErrTooManyPixels},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBudget(t, 100, 0, nil)
			if tt.held > 0 {
				if _, err := b.Acquire(context.Background(), tt.held); err != nil {
					t.Fatal(err)
				}
			}
			rel, err := b.Acquire(context.Background(), tt.n)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("Acquire(%d) with %d held: error %v, want %v", tt.n, tt.held, err, tt.wantErr)
			}
			want := tt.held
			if err == nil {
				want += tt.n
			}
			if got := b.InUse(); got != want {
				t.Errorf("InUse = %d, want %d", got, want)
			}
			if rel != nil {
				rel()
				rel() // a second call does nothing
				if got := b.InUse(); got != tt.held {
					t.Errorf("InUse after release = %d, want %d", got, tt.held)
				}
			}
		})
	}
}

// TestBudgetWaitsForRoom: a reservation that does not fit waits and is
// granted when room is released; a small one passes a large one that is
// still waiting.
func TestBudgetWaitsForRoom(t *testing.T) {
	b := newBudget(t, 100, time.Minute, nil)
	relA, err := b.Acquire(context.Background(), 70)
	if err != nil {
		t.Fatal(err)
	}
	big := make(chan error, 1)
	go func() {
		rel, err := b.Acquire(context.Background(), 90)
		if err == nil {
			defer rel()
		}
		big <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b.mu.Lock()
		queued := len(b.waiters)
		b.mu.Unlock()
		if queued == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the large Acquire never queued")
		}
		time.Sleep(time.Millisecond)
	}
	// The small one fits next to A although the big one queued first.
	relS, err := b.Acquire(context.Background(), 30)
	if err != nil {
		t.Fatalf("small Acquire while a large one waits: %v", err)
	}
	select {
	case err := <-big:
		t.Fatalf("large Acquire returned %v before room was released", err)
	default:
	}
	relA()
	relS()
	select {
	case err := <-big:
		if err != nil {
			t.Fatalf("large Acquire after release: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("large Acquire not granted after release")
	}
}

func TestBudgetWaitBounded(t *testing.T) {
	t.Run("wait elapses", func(t *testing.T) {
		b := newBudget(t, 100, 50*time.Millisecond, nil)
		if _, err := b.Acquire(context.Background(), 100); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if _, err := b.Acquire(context.Background(), 1); !errors.Is(err, ErrBusy) {
			t.Fatalf("Acquire on a full budget: %v, want ErrBusy", err)
		}
		if d := time.Since(start); d < 50*time.Millisecond {
			t.Errorf("returned after %v, before the 50ms wait", d)
		}
	})
	t.Run("context done", func(t *testing.T) {
		b := newBudget(t, 100, time.Hour, nil)
		if _, err := b.Acquire(context.Background(), 100); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := b.Acquire(ctx, 1)
		if !errors.Is(err, ErrBusy) || !errors.Is(err, context.Canceled) {
			t.Fatalf("Acquire with a cancelled context: %v, want ErrBusy and context.Canceled", err)
		}
		if got := b.InUse(); got != 100 {
			t.Errorf("InUse = %d, want 100 (the abandoned wait reserved nothing)", got)
		}
	})
}

// TestBudgetReleased: the hook sees every release with what is still
// reserved, before a waiting reservation is granted the room.
func TestBudgetReleased(t *testing.T) {
	type call struct{ n, inUse int64 }
	var (
		mu    sync.Mutex
		calls []call
	)
	granted, done := make(chan struct{}), make(chan struct{})
	b := newBudget(t, 100, time.Minute, func(n, inUse int64) {
		mu.Lock()
		defer mu.Unlock()
		if len(calls) < 2 {
			select {
			case <-granted:
				t.Errorf("Released(%d, %d) ran after the waiter was granted", n, inUse)
			default:
			}
		}
		calls = append(calls, call{n, inUse})
	})
	r1, _ := b.Acquire(context.Background(), 30)
	r2, _ := b.Acquire(context.Background(), 70)
	go func() {
		defer close(done)
		rel, err := b.Acquire(context.Background(), 50)
		if err == nil {
			close(granted)
			rel()
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b.mu.Lock()
		queued := len(b.waiters)
		b.mu.Unlock()
		if queued == 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	r1()
	r2()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter was not granted")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) < 2 || calls[0] != (call{30, 70}) || calls[1] != (call{70, 0}) {
		t.Errorf("Released calls = %v, want [{30 70} {70 0} ...]", calls)
	}
}

// TestBudgetReserve: Reserve reports header errors as DecodeConfig does,
// reserves the image's cost, and refuses an image costlier than the whole
// budget as too many pixels, naming it.
func TestBudgetReserve(t *testing.T) {
	file := readFile(t, "images/photo.jpg") // 480×300
	info, err := DecodeConfig(file, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	cost := info.Cost(UseVerify)
	b := newBudget(t, cost, 0, nil)
	rel, err := b.Reserve(context.Background(), file, limits.Default(), UseVerify)
	if err != nil {
		t.Fatalf("Reserve: %v", err)
	}
	if got := b.InUse(); got != cost {
		t.Errorf("InUse = %d, want the image's cost %d", got, cost)
	}
	rel()
	_, err = b.Reserve(context.Background(), file, limits.Default(), UseMark)
	var de *DimensionError
	if !errors.As(err, &de) || de.Format != JPEG || de.Width != 480 || de.NeedBytes != info.Cost(UseMark) || de.MaxBytes != cost {
		t.Errorf("Reserve for marking over the budget: %v, want a JPEG 480×300 *DimensionError needing %d of %d", err, info.Cost(UseMark), cost)
	}
	var nilBudget *Budget
	if _, err := nilBudget.Reserve(context.Background(), []byte("GIF89a"), limits.Default(), UseVerify); !errors.Is(err, ErrCorrupt) {
		t.Errorf("nil budget Reserve of a truncated GIF: %v, want ErrCorrupt", err)
	}
}

// BenchmarkReserve is what a decode pays for its budget: the header read
// (DecodeConfig with the memory estimate), Cost and an uncontended
// Acquire/release. Compare with BenchmarkCore/Decode in package shared.
func BenchmarkReserve(b *testing.B) {
	file := readFile(b, "images/photo.jpg")
	budget, err := NewBudget(BudgetConfig{Capacity: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	lim := limits.Default()
	b.ReportAllocs()
	for b.Loop() {
		rel, err := budget.Reserve(context.Background(), file, lim, UseVerify)
		if err != nil {
			b.Fatal(err)
		}
		rel()
	}
}
