package server

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestDiskUnderMarginAnswers507: with the data directory's file system
// under the free-space margin, a sign answers 507 insufficient_storage
// before the database is touched and /ready says not ready (disk), while
// verify still answers; with space back, signing resumes.
func TestDiskUnderMarginAnswers507(t *testing.T) {
	var free atomic.Int64
	free.Store(10 << 30)
	ts := startServer(t, "", nil, func(c *Config, _ *deps) {
		c.MinFreeDisk = 256 << 20
		c.freeSpace = func(string) (int64, error) { return free.Load(), nil }
	})
	s := ts.newSigner("disk@example.com")
	pic := readTestdata(t, "water.jpg")
	r := ts.signFile(s, pic, nil)
	ts.mustStatus(r, 201, "sign with room")
	signed := r.body

	free.Store(64 << 20)
	time.Sleep(1100 * time.Millisecond) // past the cached reading
	r = ts.signFile(s, readTestdata(t, "meadow.jpg"), nil)
	if r.status != 507 || r.problemCode(t) != "insufficient_storage" || r.header.Get("Retry-After") == "" {
		t.Fatalf("sign under the margin: %d %s, want 507 insufficient_storage with Retry-After", r.status, r.body)
	}
	rd := ts.do("GET", "/ready", "", nil)
	if rd.status != 503 || !strings.Contains(string(rd.body), "disk") {
		t.Errorf("/ready under the margin: %d %s, want 503 naming disk", rd.status, rd.body)
	}
	if v := ts.verifyWire(signed); !v.Authentic {
		t.Errorf("verify under the margin: not authentic")
	}

	free.Store(10 << 30)
	time.Sleep(1100 * time.Millisecond)
	ts.mustStatus(ts.signFile(s, readTestdata(t, "meadow.jpg"), nil), 201, "sign with room again")
	if rd := ts.do("GET", "/ready", "", nil); rd.status != 200 {
		t.Errorf("/ready with room again: %d %s", rd.status, rd.body)
	}
}
