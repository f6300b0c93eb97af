package server

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestVideoVerifyGoesToOrigin: the edge's verifier reads images only; a
// video uploaded to the edge's verify is handed to the origin's own verify
// (which decodes it with ffmpeg) and its answer relayed: a signed clip,
// re-encoded, is authentic on its record, with the origin's video details.
func TestVideoVerifyGoesToOrigin(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("ffmpeg is required under CI: %v", err)
		}
		t.Skip("ffmpeg not installed")
	}
	dir := t.TempDir()
	ff := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ffmpeg", append([]string{"-hide_banner", "-nostdin", "-v", "error", "-y"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("ffmpeg: %v\n%s", err, out)
		}
	}
	src := filepath.Join(dir, "clip.mp4")
	ff("-f", "lavfi", "-i", "mandelbrot=size=640x360:rate=30,trim=duration=8", "-vf", "noise=alls=6:allf=t,format=yuv420p",
		"-c:v", "libx264", "-preset", "veryfast", "-crf", "20", src)
	clip, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	origin, _ := startOrigin(t, "--trusted-proxies", "127.0.0.1/32")
	edge, _ := startEdge(t, origin, edgeOpts{engine: "native"})
	s := newSigner(t, origin, "video@edge.example")
	signed, id := s.sign(t, origin, clip)
	in, out := filepath.Join(dir, "signed.mp4"), filepath.Join(dir, "reencoded.mp4")
	if err := os.WriteFile(in, signed, 0o600); err != nil {
		t.Fatal(err)
	}
	ff("-i", in, "-c:v", "libx264", "-preset", "veryfast", "-crf", "26", out)
	reenc, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for name, file := range map[string][]byte{"signed": signed, "re-encoded": reenc} {
		r := upload(t, edge+"/api/v1/verify", nextClient(), "", file, nil)
		mustStatus(t, r, 200, "verify "+name+" video at the edge")
		res := r.json(t)
		if res["authentic"] != true || res["record_id"] != id {
			t.Fatalf("%s: %s", name, r.body)
		}
		if _, ok := res["video"]; !ok || r.header.Get("X-Verified-By") != "" {
			t.Fatalf("%s: answered by %q without the origin's video details: %s", name, r.header.Get("X-Verified-By"), r.body)
		}
	}
}
