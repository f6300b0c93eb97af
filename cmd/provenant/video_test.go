package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/provenant/provenant/client"
	"github.com/provenant/provenant/internal/testtool"
	"github.com/provenant/provenant/origin/origintest"
)

// clip makes a tiny H.264 MP4 with real ffmpeg (skipped without it,
// outside CI).
func clip(t *testing.T, path string) {
	t.Helper()
	testtool.LookPath(t, "apt-get install ffmpeg", "ffmpeg")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("ffmpeg", "-hide_banner", "-nostdin", "-v", "error", "-y",
		"-f", "lavfi", "-i", "mandelbrot=size=640x360:rate=25,trim=duration=3",
		"-vf", "noise=alls=6:allf=t:all_seed=7,format=yuv420p", "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", path).CombinedOutput()
	if err != nil {
		t.Fatalf("ffmpeg: %v\n%s", err, out)
	}
}

// TestVideoCLI: sign DIR signs the videos in it with the pictures (the
// signed clip keeps its container); verify uploads a clip; verify --local
// refuses it in plain words with the stable code (exit 5) and, with
// --or-upload, hands it to the origin's verify and says so on stderr.
func TestVideoCLI(t *testing.T) {
	in := filepath.Join(t.TempDir(), "shoot")
	clip(t, filepath.Join(in, "clip.mp4"))
	photo(t, filepath.Join(in, "still.jpg"), 5)
	o := origintest.Start(t, origintest.Options{})
	c := signerCLI(t, o.URL, "clips@example.com", "Clip News")

	r := c.must(0, "", "--json", "sign", in)
	var rep struct {
		Items          []signResult `json:"items"`
		Signed, Failed int
	}
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil || rep.Signed != 2 || rep.Failed != 0 {
		t.Fatalf("sign DIR with a video and a picture: %s (%v)", r.out, err)
	}
	var video signResult
	for _, it := range rep.Items {
		if strings.HasSuffix(it.File, "clip.mp4") {
			video = it
		}
	}
	if video.Output != filepath.Join(in, "clip.signed.mp4") || video.RecordID == "" {
		t.Fatalf("the video's sign result %+v, want %s", video, filepath.Join(in, "clip.signed.mp4"))
	}
	if r := c.must(0, "", "sign", in); strings.Count(r.out, "skipped  ") != 2 {
		t.Errorf("second run does not skip the signed video and picture:\n%s", r.out)
	}

	r = c.must(0, "", "verify", video.Output)
	if !strings.Contains(r.out, ": Authentic") || !strings.Contains(r.out, video.RecordID) || !strings.Contains(r.out, "Camera video") {
		t.Errorf("verify of the signed clip:\n%s", r.out)
	}
	r = c.must(exitLocal, "", "verify", "--local", video.Output)
	if !strings.Contains(r.err, "unsupported_image_format") || !strings.Contains(r.err, "--or-upload") || strings.Contains(r.err, "imagex") {
		t.Errorf("verify --local of a clip, stderr:\n%s", r.err)
	}
	r = c.must(0, "", "verify", "--local", "--or-upload", video.Output)
	if !strings.Contains(r.err, "uploading it to the origin's verify") || !strings.Contains(r.out, video.RecordID) ||
		!strings.Contains(r.out, "computed by the origin (the file was uploaded)") {
		t.Errorf("verify --local --or-upload of a clip:\nstdout:\n%s\nstderr:\n%s", r.out, r.err)
	}
	r = c.must(0, "", "--json", "verify", "--local", "--or-upload", video.Output)
	var vr client.VerifyResponse
	if err := json.Unmarshal([]byte(r.out), &vr); err != nil || !vr.Authentic || vr.RecordID != video.RecordID {
		t.Errorf("--json verify --local --or-upload: stdout is not one verify answer: %s (%v)", r.out, err)
	}
}
