//go:build linux

package cputime

import (
	"testing"
	"time"
)

// spin burns CPU on the calling goroutine until its thread has used d.
func spin(d time.Duration) {
	start := ThreadNow()
	for x := 0; ThreadNow()-start < d; x++ {
		_ = x * x
	}
}

func TestThreadCountsTheWorkNotTheSleep(t *testing.T) {
	busy := Thread(func() { spin(20 * time.Millisecond) })
	if busy < 20*time.Millisecond {
		t.Errorf("Thread of 20 ms of spinning = %v", busy)
	}
	idle := Thread(func() { time.Sleep(50 * time.Millisecond) })
	if idle >= 20*time.Millisecond {
		t.Errorf("Thread of a 50 ms sleep = %v, want (nearly) no CPU", idle)
	}
}

func TestProcessGrowsWithWork(t *testing.T) {
	u0, s0 := ProcessSplit()
	p0 := Process()
	spin(30 * time.Millisecond)
	u1, s1 := ProcessSplit()
	if p1 := Process(); p1-p0 < 20*time.Millisecond {
		t.Errorf("Process grew by %v over 30 ms of spinning", p1-p0)
	}
	// The kernel splits user and system time by sampling: only their sum
	// is held to the work done.
	if u1 < u0 || s1 < s0 || (u1+s1)-(u0+s0) < 20*time.Millisecond {
		t.Errorf("ProcessSplit went from %v/%v to %v/%v over 30 ms of spinning", u0, s0, u1, s1)
	}
}
