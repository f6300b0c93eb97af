package clock

import (
	"testing"
	"time"
)

func TestFake(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	var c Clock = NewFake(t0)
	if got := c.Now(); !got.Equal(t0) {
		t.Fatalf("Now() = %v, want %v", got, t0)
	}
	f := c.(*Fake)
	if got, want := f.Advance(time.Minute), t0.Add(time.Minute); !got.Equal(want) {
		t.Fatalf("Advance(1m) = %v, want %v", got, want)
	}
	if got, want := c.Now(), t0.Add(time.Minute); !got.Equal(want) {
		t.Errorf("Now() after Advance = %v, want %v", got, want)
	}
}
