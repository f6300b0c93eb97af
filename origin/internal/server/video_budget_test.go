package server

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
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
			var body bytes.Buffer
			mw := multipart.NewWriter(&body)
			w, _ := mw.CreateFormFile("file", "clip.mp4")
			_, _ = w.Write(clip)
			_ = mw.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "POST", ts.base+path, &body)
			req.Header.Set("Content-Type", mw.FormDataContentType())
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
