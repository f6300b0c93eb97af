package video

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/watermark"
)

// newEngine returns an Engine, skipping the test when ffmpeg is missing
// (CI installs it and sets CI, where a missing ffmpeg fails instead).
func newEngine(t testing.TB) *Engine {
	t.Helper()
	e, err := New(Config{})
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("ffmpeg is required under CI: %v", err)
		}
		t.Skipf("ffmpeg not installed: %v", err)
	}
	return e
}

// ffmpeg runs the ffmpeg on PATH with args (test clip generation and edits).
func ffmpeg(t testing.TB, args ...string) {
	t.Helper()
	cmd := exec.Command("ffmpeg", append([]string{"-hide_banner", "-nostdin", "-v", "error", "-y"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg %v: %v\n%s", args, err, out)
	}
}

// clip generates a test clip: source is a lavfi source ("testsrc2",
// "mandelbrot", "life") at size and rate for secs seconds with temporal
// noise, H.264 with an AAC tone.
func clip(t testing.TB, dir, name, source, size string, rate, secs int) string {
	t.Helper()
	p := filepath.Join(dir, name)
	src := source + "=size=" + size + ":rate=" + itoa(rate) + ":duration=" + itoa(secs)
	if source == "life" {
		src = "life=size=" + size + ":rate=" + itoa(rate) + ":mold=10:r_scale=1:ratio=0.3,trim=duration=" + itoa(secs)
	}
	ffmpeg(t, "-f", "lavfi", "-i", src, "-f", "lavfi", "-i", "sine=frequency=440:duration="+itoa(secs),
		"-vf", "noise=alls=12:allf=t,format=yuv420p", "-c:v", "libx264", "-preset", "veryfast", "-crf", "18",
		"-c:a", "aac", "-shortest", p)
	return p
}

func itoa(i int) string { return strconvItoa(i) }

func probe(t testing.TB, e *Engine, p string) Info {
	t.Helper()
	info, err := e.Probe(context.Background(), p)
	if err != nil {
		t.Fatalf("probe %s: %v", filepath.Base(p), err)
	}
	return info
}

func TestEmbedExtractSurvivesEdits(t *testing.T) {
	e := newEngine(t)
	dir := t.TempDir()
	src := clip(t, dir, "src.mp4", "testsrc2", "640x360", 30, 8)
	info := probe(t, e, src)
	const payload = watermark.Payload(0x1234_5678_9abc_def0)
	signed := filepath.Join(dir, "signed.mp4")
	start := time.Now()
	st, err := e.Embed(context.Background(), src, info, signed, payload, EmbedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("embed: %+v in %v", st, time.Since(start))
	edits := map[string][]string{
		"crf28":   {"-c:v", "libx264", "-crf", "28", "-c:a", "copy"},
		"480p":    {"-vf", "scale=-2:480", "-c:v", "libx264", "-crf", "23", "-c:a", "copy"},
		"trim2s":  {"-ss", "2", "-c:v", "libx264", "-crf", "23", "-c:a", "copy"},
		"fps25":   {"-vf", "fps=25", "-c:v", "libx264", "-crf", "23", "-c:a", "copy"},
		"crop90":  {"-vf", "crop=iw*0.9:ih*0.9", "-c:v", "libx264", "-crf", "23", "-c:a", "copy"},
		"webmvp9": {"-c:v", "libvpx-vp9", "-crf", "32", "-b:v", "0", "-deadline", "realtime", "-cpu-used", "8", "-c:a", "libopus"},
	}
	files := map[string]string{"signed": signed}
	for name, args := range edits {
		ext := ".mp4"
		if name == "webmvp9" {
			ext = ".webm"
		}
		out := filepath.Join(dir, name+ext)
		ffmpeg(t, append(append([]string{"-i", signed}, args...), out)...)
		files[name] = out
	}
	for name, p := range files {
		t.Run(name, func(t *testing.T) {
			info := probe(t, e, p)
			res, err := e.Extract(context.Background(), p, info)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Detection.Found || res.Payload != payload {
				t.Fatalf("payload %v found=%v strength %.1f over %d frames, want %v", res.Payload, res.Detection.Found, res.Detection.Strength, res.Frames, payload)
			}
			t.Logf("strength %.1f, bit errors %d/%d over %d frames", res.Detection.Strength, res.Detection.BitErrors, res.Detection.CodedBits, res.Frames)
		})
	}
	t.Run("unmarked", func(t *testing.T) {
		res, err := e.Extract(context.Background(), src, info)
		if err != nil {
			t.Fatal(err)
		}
		if res.Detection.Found {
			t.Fatalf("found payload %v in an unmarked clip", res.Payload)
		}
	})
}

var _ = errors.Is
