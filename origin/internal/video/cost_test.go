package video

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// costClip generates a size clip of secs seconds at 30 fps (testsrc2
// with noise: cheap to render at 1080p, unlike mandelbrot) for the cost
// measurements.
func costClip(tb testing.TB, dir, size string, secs int) string {
	tb.Helper()
	p := filepath.Join(dir, size+"-"+strconv.Itoa(secs)+".mp4")
	d := strconv.Itoa(secs)
	ffmpeg(tb, "-f", "lavfi", "-i", "testsrc2=size="+size+":rate=30:duration="+d,
		"-f", "lavfi", "-i", "sine=frequency=440:duration="+d,
		"-vf", "noise=alls=6:allf=t:all_seed=7,format=yuv420p", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "20",
		"-c:a", "aac", "-shortest", p)
	return p
}

// BenchmarkVideoCost measures signing (embed and re-encode) and verifying
// (frame sum, fingerprint and one full frame) a 10 s clip as ratios to
// ffmpeg's plain decode of the same clip in the same iteration (the
// floor), reported as medians over the iterations.
func BenchmarkVideoCost(b *testing.B) {
	e := newEngine(b)
	ctx := context.Background()
	for _, size := range []string{"1280x720", "1920x1080"} {
		b.Run(size, func(b *testing.B) {
			dir := b.TempDir()
			in := costClip(b, dir, size, 10)
			info := probe(b, e, in)
			var signR, verifyR, decodeMS []float64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if out, err := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-threads", "2", "-i", in, "-f", "null", "-").CombinedOutput(); err != nil {
					b.Fatalf("%v %s", err, out)
				}
				dec := time.Since(t0)
				out := filepath.Join(dir, "signed.mp4")
				t1 := time.Now()
				if _, err := e.Embed(ctx, in, info, out, 0x1234, EmbedOptions{}); err != nil {
					b.Fatal(err)
				}
				sign := time.Since(t1)
				t2 := time.Now()
				oi := probe(b, e, out)
				if _, err := e.Extract(ctx, out, oi); err != nil {
					b.Fatal(err)
				}
				fp, err := e.Fingerprint(ctx, out, oi)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := e.FrameAt(ctx, out, oi, len(fp.Hashes)/2); err != nil {
					b.Fatal(err)
				}
				ver := time.Since(t2)
				signR = append(signR, sign.Seconds()/dec.Seconds())
				verifyR = append(verifyR, ver.Seconds()/dec.Seconds())
				decodeMS = append(decodeMS, dec.Seconds()*1000/info.Duration.Seconds())
			}
			b.ReportMetric(median(signR), "sign/decode")
			b.ReportMetric(median(verifyR), "verify/decode")
			b.ReportMetric(median(decodeMS), "decode-ms/s")
		})
	}
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestPeakRSSFlat measures the peak resident memory of this process and
// of its largest ffmpeg child while signing and verifying 1080p clips of
// 10 s and then 60 s: with frames streamed, the second must not need more
// than the first plus a margin. Minutes of CPU: runs only with
// PROVENANT_VIDEO_RSS=1 and logs the figures.
func TestPeakRSSFlat(t *testing.T) {
	if os.Getenv("PROVENANT_VIDEO_RSS") == "" {
		t.Skip("set PROVENANT_VIDEO_RSS=1 to measure peak RSS for 10 s and 60 s 1080p clips")
	}
	e := newEngine(t)
	ctx := context.Background()
	dir := t.TempDir()
	// Room for an uncompressed-looking test clip; the limit is not what is
	// measured.
	lim := DefaultLimits()
	lim.MaxBytes = 4 << 30
	e, err := New(Config{Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	peaks := map[int][2]int64{}
	for _, secs := range []int{10, 60} {
		// testsrc2 is cheap to render at 1080p (mandelbrot takes minutes).
		in := filepath.Join(dir, "rss"+strconv.Itoa(secs)+".mp4")
		d := strconv.Itoa(secs)
		ffmpeg(t, "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration="+d, "-f", "lavfi", "-i", "sine=duration="+d,
			"-c:v", "libx264", "-preset", "ultrafast", "-crf", "23", "-c:a", "aac", "-shortest", in)
		info := probe(t, e, in)
		out := filepath.Join(dir, "signed.mp4")
		if _, err := e.Embed(ctx, in, info, out, 0x1234, EmbedOptions{}); err != nil {
			t.Fatal(err)
		}
		oi := probe(t, e, out)
		if _, err := e.Extract(ctx, out, oi); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Fingerprint(ctx, out, oi); err != nil {
			t.Fatal(err)
		}
		// Peak resident memory, not CPU time: the engine keeps its
		// children's, getrusage this process's.
		var self syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
		peaks[secs] = [2]int64{self.Maxrss / 1024, e.PeakChildRSS() >> 20}
		t.Logf("after %d s of 1080p: peak RSS of this process %d MiB, of the largest ffmpeg child %d MiB", secs, peaks[secs][0], peaks[secs][1])
	}
	// Maxrss only grows: the 60 s run raising the process's peak by more
	// than a frame sum and a few frames would mean memory follows length.
	if grow := peaks[60][0] - peaks[10][0]; grow > 64 {
		t.Errorf("peak RSS grew by %d MiB from 10 s to 60 s", grow)
	}
}
