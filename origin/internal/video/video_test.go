package video

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/testtool"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/watermark"
)

// newEngine returns an Engine, skipping the test when ffmpeg is missing
// (under CI, where .ci/run installs it, a missing ffmpeg fails instead).
func newEngine(t testing.TB) *Engine {
	t.Helper()
	e, err := New(Config{})
	if err != nil {
		testtool.Missing(t, "ffmpeg not installed (apt-get install ffmpeg): %v", err)
	}
	return e
}

// ffmpeg runs the ffmpeg on PATH with args (test clips and their edits).
func ffmpeg(t testing.TB, args ...string) {
	t.Helper()
	cmd := exec.Command("ffmpeg", append([]string{"-hide_banner", "-nostdin", "-v", "error", "-y"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg %v: %v\n%s", args, err, out)
	}
}

// clip generates a test clip at dir/name: a lavfi source ("testsrc2",
// "mandelbrot", "life") of size at rate for secs seconds plus temporal
// noise, H.264 with an AAC tone. Small sizes keep the suite fast on two
// cores (x264 dominates).
func clip(t testing.TB, dir, name, source, size string, rate, secs int) string {
	t.Helper()
	p := filepath.Join(dir, name)
	r, d := strconv.Itoa(rate), strconv.Itoa(secs)
	src := source + "=size=" + size + ":rate=" + r
	switch source {
	case "life":
		src += ":mold=10:ratio=0.3,trim=duration=" + d
	case "mandelbrot":
		src += ",trim=duration=" + d
	default:
		src += ":duration=" + d
	}
	ffmpeg(t, "-f", "lavfi", "-i", src, "-f", "lavfi", "-i", "sine=frequency=440:duration="+d,
		"-vf", "noise=alls=6:allf=t:all_seed=7,format=yuv420p", "-c:v", "libx264", "-preset", "veryfast", "-crf", "20",
		"-c:a", "aac", "-shortest", p)
	return p
}

func probe(t testing.TB, e *Engine, p string) Info {
	t.Helper()
	info, err := e.Probe(context.Background(), p)
	if err != nil {
		t.Fatalf("probe %s: %v", filepath.Base(p), err)
	}
	return info
}

// edits are what platforms do to video; each is applied to the signed clip.
var edits = []struct {
	name, ext string
	args      []string
}{
	{"crf28", ".mp4", []string{"-c:v", "libx264", "-preset", "veryfast", "-crf", "28", "-c:a", "copy"}},
	{"scale270", ".mp4", []string{"-vf", "scale=-2:270", "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-c:a", "copy"}},
	{"trim2s", ".mp4", []string{"-ss", "2", "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-c:a", "copy"}},
	{"fps25", ".mp4", []string{"-vf", "fps=25", "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-c:a", "copy"}},
	{"crop90", ".mp4", []string{"-vf", "crop=trunc(iw*0.45)*2:trunc(ih*0.45)*2", "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-c:a", "copy"}},
	{"vp9", ".webm", []string{"-c:v", "libvpx-vp9", "-crf", "32", "-b:v", "0", "-deadline", "realtime", "-cpu-used", "8", "-c:a", "libopus"}},
}

// TestSignedClipSurvivesEdits embeds a payload into a 640×360 clip and
// checks, after each edit, that the payload comes back exactly and that
// the fingerprint still aligns on the signed one at the right offset;
// unrelated and unmarked clips must do neither.
func TestSignedClipSurvivesEdits(t *testing.T) {
	e := newEngine(t)
	dir := t.TempDir()
	ctx := context.Background()
	src := clip(t, dir, "src.mp4", "mandelbrot", "640x360", 30, 6)
	info := probe(t, e, src)
	const payload = watermark.Payload(0x1234_5678_9abc_def0)
	signed := filepath.Join(dir, "signed.mp4")
	st, err := e.Embed(ctx, src, info, signed, payload, EmbedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Frames != 180 || st.KeyFrames != 6 {
		t.Fatalf("embed stats %+v, want 180 frames and 6 key frames", st)
	}
	signedInfo := probe(t, e, signed)
	if signedInfo.VideoCodec != "h264" || signedInfo.AudioCodec != "aac" || signedInfo.Width != 640 || signedInfo.Height != 360 {
		t.Fatalf("signed file %+v: want H.264 640×360 with the AAC audio kept", signedInfo)
	}
	ref, err := e.Fingerprint(ctx, signed, signedInfo)
	if err != nil {
		t.Fatal(err)
	}
	if len(ref.Hashes) != 6 {
		t.Fatalf("fingerprint of a 6 s clip has %d frames, want 6", len(ref.Hashes))
	}

	files := []struct{ name, path string }{{"signed", signed}}
	for _, ed := range edits {
		out := filepath.Join(dir, ed.name+ed.ext)
		ffmpeg(t, append(append([]string{"-i", signed}, ed.args...), out)...)
		files = append(files, struct{ name, path string }{ed.name, out})
	}
	for _, f := range files {
		t.Run(f.name, func(t *testing.T) {
			info := probe(t, e, f.path)
			res, err := e.Extract(ctx, f.path, info)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Detection.Found || res.Payload != payload {
				t.Errorf("watermark: payload %v found=%v strength %.1f over %d frames, want %v",
					res.Payload, res.Detection.Found, res.Detection.Strength, res.Frames, payload)
			}
			fp, err := e.Fingerprint(ctx, f.path, info)
			if err != nil {
				t.Fatal(err)
			}
			m := MatchFingerprints(ref, fp)
			wantOffset := 0
			if f.name == "trim2s" {
				wantOffset = 2
			}
			slack := 0
			if f.name == "crop90" {
				// The mandelbrot source zooms in: a 90 % crop of second n
				// looks like second n+1, so the crop aligns within a second.
				slack = 1
			}
			if !m.Matched || m.Offset < wantOffset || m.Offset > wantOffset+slack {
				t.Errorf("fingerprint: %+v, want a match at offset %d (+%d)", m, wantOffset, slack)
			}
			t.Logf("strength %.1f, bit errors %d/%d over %d frames; fingerprint %d/%d near at %+d s, mean distance %.1f",
				res.Detection.Strength, res.Detection.BitErrors, res.Detection.CodedBits, res.Frames, m.Near, m.Frames, m.Offset, m.MeanDistance)
		})
	}
	t.Run("unrelated", func(t *testing.T) {
		other := clip(t, dir, "other.mp4", "testsrc2", "640x360", 25, 6)
		info := probe(t, e, other)
		res, err := e.Extract(ctx, other, info)
		if err != nil {
			t.Fatal(err)
		}
		if res.Detection.Found {
			t.Errorf("found payload %v in an unmarked clip", res.Payload)
		}
		fp, err := e.Fingerprint(ctx, other, info)
		if err != nil {
			t.Fatal(err)
		}
		if m := MatchFingerprints(ref, fp); m.Matched {
			t.Errorf("unrelated clip matched: %+v", m)
		}
	})
}

func TestProbeRefusesBadInput(t *testing.T) {
	e := newEngine(t)
	dir := t.TempDir()
	good := clip(t, dir, "good.mp4", "testsrc2", "320x180", 25, 2)
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A container that lies about its codec: the sample entry says HEVC
	// over H.264 data.
	lying := bytes.ReplaceAll(b, []byte("avc1"), []byte("hvc1"))
	lying = bytes.ReplaceAll(lying, []byte("avcC"), []byte("hvcC"))
	big := filepath.Join(dir, "big.mp4")
	ffmpeg(t, "-f", "lavfi", "-i", "testsrc2=size=2560x1440:rate=25:duration=1", "-c:v", "libx264", "-preset", "ultrafast", big)
	fast := filepath.Join(dir, "fast.mp4")
	ffmpeg(t, "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=120:duration=1", "-c:v", "libx264", "-preset", "ultrafast", fast)
	mjpeg := filepath.Join(dir, "mjpeg.mov")
	ffmpeg(t, "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=1", "-c:v", "mjpeg", mjpeg)
	m3u8 := write("list.mp4", []byte("#EXTM3U\n#EXTINF:1,\nfile:"+good+"\n"))

	tests := []struct {
		name string
		path string
		want error
	}{
		{"empty", write("empty.mp4", nil), ErrEmpty},
		{"not a video", write("text.mp4", []byte("hello, this is not a video file at all")), ErrUnsupported},
		{"playlist", m3u8, ErrUnsupported},
		{"truncated", write("trunc.mp4", b[:len(b)/3]), ErrCorrupt},
		{"garbage after ftyp", write("garbage.mp4", append(bytes.Clone(b[:32]), bytes.Repeat([]byte{0xAB}, 4096)...)), ErrCorrupt},
		{"too large", big, ErrLimit},
		{"frame rate", fast, ErrLimit},
		{"codec", mjpeg, ErrUnsupported},
		{"lying codec", write("lying.mp4", lying), ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info, err := e.Probe(context.Background(), tt.path)
			if err == nil {
				// Some lies only show when decoding.
				_, err = e.Fingerprint(context.Background(), tt.path, info)
				t.Logf("probe passed (%+v); decode: %v", info, err)
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
		})
	}
	t.Run("size limit", func(t *testing.T) {
		lim := DefaultLimits()
		lim.MaxBytes = int64(len(b) - 1)
		small, err := New(Config{Limits: lim})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := small.Probe(context.Background(), good); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("got %v, want ErrTooLarge", err)
		}
	})
}

func TestMissingFFmpegIsUnavailable(t *testing.T) {
	_, err := New(Config{FFmpeg: filepath.Join(t.TempDir(), "no-ffmpeg")})
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("got %v, want ErrUnavailable", err)
	}
}

func TestCancelKillsFFmpeg(t *testing.T) {
	e := newEngine(t)
	dir := t.TempDir()
	src := clip(t, dir, "src.mp4", "testsrc2", "320x180", 25, 4)
	ctx, cancel := context.WithCancel(context.Background())
	frames := 0
	_, err := e.grayFrames(ctx, src, frameSpec{num: 25, den: 1, w: 320, h: 180, dur: 4 * time.Second}, func(time.Duration, *imagex.Luma) error {
		frames++
		if frames == 2 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v after %d frames, want context.Canceled", err, frames)
	}
	if frames >= 100 {
		t.Fatalf("read all %d frames despite the cancel", frames)
	}
}

// TestConcurrencyBound: with every slot taken, a decode waits and gives
// up with its context instead of starting another ffmpeg.
func TestConcurrencyBound(t *testing.T) {
	newEngine(t) // skips (or fails under CI) without ffmpeg
	e, err := New(Config{MaxConcurrent: 1})
	if err != nil {
		t.Fatal(err)
	}
	release, err := e.turn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = e.Fingerprint(ctx, filepath.Join(t.TempDir(), "never-read.mp4"), Info{Duration: time.Second})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want the context's deadline while the only slot is taken", err)
	}
}
