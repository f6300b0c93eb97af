package server

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/allocs"
	"github.com/provenant/provenant/internal/testtool"
	"github.com/provenant/provenant/origin/internal/video/videotest"
)

// ffmpegChildren returns the pids of this process's ffmpeg and ffprobe
// children (the origin runs in the test process).
func ffmpegChildren(t *testing.T) []int {
	t.Helper()
	self := strconv.Itoa(os.Getpid())
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		open, close := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if open < 0 || close < open {
			continue
		}
		comm := string(b[open+1 : close])
		f := strings.Fields(string(b[close+1:]))
		if len(f) > 1 && f[1] == self && f[0] != "Z" && (comm == "ffmpeg" || comm == "ffprobe") {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestVideoAbandonedRequestStopsFFmpeg: a client that goes away while its
// video is verified or signed stops the work: its ffmpeg processes are
// killed within a second and no further step starts.
func TestVideoAbandonedRequestStopsFFmpeg(t *testing.T) {
	clip := videoClip(t, "testsrc2", "60")
	ts := startServer(t, "", nil)
	s := ts.newSigner("abandon@example.com")
	for _, path := range []string{"/api/v1/verify", "/api/v1/sign?signing_key_id=" + s.keyID} {
		t.Run(strings.Split(path, "?")[0], func(t *testing.T) {
			body, ct := multipartBody("clip.mp4", clip)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "POST", ts.base+path, body)
			req.Header.Set("Content-Type", ct)
			req.Header.Set("Authorization", "Bearer "+s.apiKey)
			done := make(chan error, 1)
			go func() {
				resp, err := http.DefaultClient.Do(req)
				if err == nil {
					resp.Body.Close()
				}
				done <- err
			}()
			// Wait for a decode (not the probe) to run, then hang up.
			deadline := time.Now().Add(30 * time.Second)
			for len(ffmpegChildren(t)) == 0 {
				if time.Now().After(deadline) {
					t.Fatal("no ffmpeg started")
				}
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(500 * time.Millisecond)
			cancel()
			<-done
			gone := time.Now()
			for len(ffmpegChildren(t)) > 0 {
				if time.Since(gone) > 3*time.Second {
					t.Fatalf("ffmpeg still running %v after the client left: %v", time.Since(gone), ffmpegChildren(t))
				}
				time.Sleep(20 * time.Millisecond)
			}
			t.Logf("no ffmpeg left %v after the client closed the connection", time.Since(gone).Round(time.Millisecond))
			// No later step of the abandoned request starts another.
			for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
				if p := ffmpegChildren(t); len(p) > 0 {
					t.Fatalf("ffmpeg %v started after the client left", p)
				}
			}
		})
	}
}

// childrenPeakRSS polls the resident peak (VmHWM) of this process's
// ffmpeg and ffprobe children while fn runs and returns the largest seen.
func childrenPeakRSS(t *testing.T, fn func()) int64 {
	t.Helper()
	stop := make(chan struct{})
	peak := make(chan int64, 1)
	go func() {
		var max int64
		for {
			for _, pid := range ffmpegChildren(t) {
				b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
				if err != nil {
					continue
				}
				for _, l := range strings.Split(string(b), "\n") {
					if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
						if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil && kb<<10 > max {
							max = kb << 10
						}
					}
				}
			}
			select {
			case <-stop:
				peak <- max
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	fn()
	close(stop)
	return <-peak
}

// TestVideoHostileClipsBounded: the hostile clips through the real origin.
// A 480 KB MP4 whose frames are 10 hours apart while its header says 2 s
// (it drove ffmpeg to 22.9 GB) is refused by the probe, 422
// video_out_of_limits; the same gap in Matroska (which held the video
// slots for minutes) and a stream that switches from 640×360 to 4096×4096
// frames the probe does not see are verified; each answer comes with the
// ffmpeg children under 256 MiB resident and the origin allocating little.
func TestVideoHostileClipsBounded(t *testing.T) {
	testtool.LookPath(t, "apt-get install ffmpeg", "ffmpeg")
	dir := t.TempDir()
	gapMP4 := videotest.GapClip(t, dir, "gap.mp4")
	gapMKV := videotest.GapClip(t, dir, "gap.mkv")
	sw, _ := videotest.SwitchClip(t, dir, "switch.mp4", 4096)
	ts := startServer(t, "", nil)
	for _, c := range []struct {
		name, path string
		status     int
		code       string
	}{
		{"gap mp4", gapMP4, 422, "video_out_of_limits"},
		{"gap mkv", gapMKV, 200, ""},
		{"resolution switch", sw, 200, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := os.ReadFile(c.path)
			if err != nil {
				t.Fatal(err)
			}
			var r response
			var alloc uint64
			peak := childrenPeakRSS(t, func() {
				alloc = allocs.During(func() {
					r = ts.upload("/api/v1/verify", "", []namedFile{{"file", filepath.Base(c.path), b}}, nil)
				})
			})
			t.Logf("%s: %d, children peak %d MiB, origin allocated %d MiB", c.name, r.status, peak>>20, alloc>>20)
			if r.status != c.status || (c.code != "" && r.problemCode(t) != c.code) {
				t.Fatalf("verify: %d %s, want %d %s", r.status, r.body, c.status, c.code)
			}
			if peak > 256<<20 {
				t.Errorf("ffmpeg children peaked at %d MiB resident, want under 256 MiB", peak>>20)
			}
			if alloc > 128<<20 {
				t.Errorf("the origin allocated %d MiB for a %d KB clip", alloc>>20, len(b)>>10)
			}
		})
	}
}
