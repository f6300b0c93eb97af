package defaults

import (
	"testing"
	"time"
)

func TestPositive(t *testing.T) {
	const def = 5 * time.Second
	for v, want := range map[time.Duration]time.Duration{0: def, -time.Nanosecond: def, time.Nanosecond: time.Nanosecond, time.Hour: time.Hour} {
		if got := Positive(v, def); got != want {
			t.Errorf("Positive(%v, %v) = %v, want %v", v, def, got, want)
		}
	}
	if got := Positive(int64(0), 32<<10); got != 32<<10 {
		t.Errorf("Positive(0, 32 KiB) = %d", got)
	}
	if got := Positive(uint64(7), 9); got != 7 {
		t.Errorf("Positive(7, 9) = %d", got)
	}
	if got := Positive(-0.5, 1.5); got != 1.5 {
		t.Errorf("Positive(-0.5, 1.5) = %v", got)
	}
}
