package server

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/clock"
)

// fillTo writes a file under dir until the file system has about left
// bytes free, and returns its path.
func fillTo(t *testing.T, dir string, left int64) string {
	t.Helper()
	free, err := store.FreeSpace(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 1<<20)
	for n := free - left; n > 0; n -= int64(len(chunk)) {
		if _, err := f.Write(chunk[:min(int64(len(chunk)), n)]); err != nil {
			t.Fatalf("fill: %v", err)
		}
	}
	return path
}

// TestReadOnlyStartOnFullDisk runs the origin on a real small file system
// (a 160 MiB tmpfs mounted by the test; it needs root and skips without).
// With a record signed, the origin is stopped and the file system filled
// to under the free-space margin: the origin still starts, read-only.
// Verify, the record, its public certificate and the dashboard answer;
// a sign answers 507 insufficient_storage with nothing stored; /ready
// answers 503 with the "writable" and "disk" checks failing. Once the filler is
// deleted the origin goes read-write by itself (no restart) and signs.
func TestReadOnlyStartOnFullDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("mounts a file system")
	}
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=160m"); err != nil {
		t.Skipf("mount tmpfs: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(mnt, syscall.MNT_DETACH) })
	dir := filepath.Join(mnt, "data")
	const margin = 24 << 20
	opt := func(c *Config, _ *deps) { c.MinFreeDisk = margin }

	ts := startServer(t, dir, clock.NewFake(time.Now()), opt)
	s := ts.newSigner("readonly@example.com")
	r := ts.signFile(s, readTestdata(t, "water.jpg"), nil)
	ts.mustStatus(r, 201, "sign with room")
	signed, id := r.body, r.header.Get("X-Record-Id")
	ts.stop()

	filler := fillTo(t, mnt, margin/2)
	ts = startServer(t, dir, clock.NewFake(time.Now()), opt)
	if v := ts.verifyWire(signed); !v.Authentic {
		t.Errorf("verify while read-only: not authentic")
	}
	ts.mustStatus(ts.do("GET", "/api/v1/content-records/"+id, s.apiKey, nil), 200, "record while read-only")
	ts.mustStatus(ts.do("GET", "/api/v1/content-records/"+id+"/certificate", "", nil), 200, "certificate while read-only")
	ts.mustStatus(ts.do("GET", "/api/v1/dashboard/stats", s.token, nil), 200, "dashboard while read-only")
	before := ts.recordCount(s)
	r = ts.signFile(s, readTestdata(t, "meadow.jpg"), nil)
	if r.status != 507 || r.problemCode(t) != "insufficient_storage" {
		t.Fatalf("sign while read-only: %d %s, want 507 insufficient_storage", r.status, r.body)
	}
	if n := ts.recordCount(s); n != before {
		t.Errorf("%d records after a refused sign, want %d", n, before)
	}
	rd := ts.do("GET", "/ready", "", nil)
	if rd.status != 503 || !strings.Contains(string(rd.body), `"writable":"fail"`) || !strings.Contains(string(rd.body), `"disk":"fail"`) {
		t.Errorf("/ready while read-only: %d %s, want 503 with writable and disk failing", rd.status, rd.body)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		rd = ts.do("GET", "/ready", "", nil)
		if rd.status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/ready 30 s after the space came back: %d %s", rd.status, rd.body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	ts.mustStatus(ts.signFile(s, readTestdata(t, "meadow.jpg"), nil), 201, "sign once read-write again")
	if v := ts.verifyWire(signed); !v.Authentic {
		t.Errorf("verify once read-write again: not authentic")
	}
}
