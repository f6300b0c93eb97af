package video

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// gapClip writes dir/name (".mp4" or ".mkv"): 2 s of 640×360 H.264 whose
// second second's frames are shifted 10 hours later, its headers then
// patched to say the whole file lasts 2 s, as a hostile upload does.
func gapClip(t testing.TB, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	ffmpeg(t, "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=2",
		"-vf", "setpts=PTS+gte(N\\,30)*36000/TB", "-fps_mode", "passthrough",
		"-c:v", "libx264", "-preset", "ultrafast", p)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".mp4") {
		patchMP4Duration(t, b, 2)
	} else {
		patchMKVDuration(t, b)
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// patchMP4Duration rewrites the durations of mvhd, tkhd, mdhd and elst
// (version 0 boxes, as ffmpeg writes them) to secs seconds.
func patchMP4Duration(t testing.TB, b []byte, secs uint32) {
	t.Helper()
	boxes := func(typ string, fn func(o int)) {
		for i := 0; ; {
			k := bytes.Index(b[i:], []byte(typ))
			if k < 0 {
				return
			}
			fn(i + k - 4)
			i += k + 4
		}
	}
	var movieScale uint32
	boxes("mvhd", func(o int) {
		movieScale = binary.BigEndian.Uint32(b[o+20:])
		binary.BigEndian.PutUint32(b[o+24:], secs*movieScale)
	})
	if movieScale == 0 {
		t.Fatal("no mvhd box")
	}
	boxes("tkhd", func(o int) { binary.BigEndian.PutUint32(b[o+28:], secs*movieScale) })
	boxes("mdhd", func(o int) { binary.BigEndian.PutUint32(b[o+24:], secs*binary.BigEndian.Uint32(b[o+20:])) })
	boxes("elst", func(o int) {
		for k := range int(binary.BigEndian.Uint32(b[o+12:])) {
			binary.BigEndian.PutUint32(b[o+16+12*k:], secs*movieScale)
		}
	})
}

// patchMKVDuration rewrites the segment's Duration element (an 8-byte
// float in milliseconds) to 2 s and the video track's DURATION tag.
func patchMKVDuration(t testing.TB, b []byte) {
	t.Helper()
	i := bytes.Index(b, []byte{0x44, 0x89, 0x88})
	tag := bytes.Index(b, []byte("10:00:02.0"))
	if i < 0 || tag < 0 {
		t.Fatal("no Duration element or DURATION tag")
	}
	binary.BigEndian.PutUint64(b[i+3:], math.Float64bits(2000))
	copy(b[tag:], "00")
}

// TestTimestampGapIsBounded: a clip whose frames are 10 hours apart while
// its headers say 2 s. The MP4 gives itself away in its average frame
// rate and is refused by the probe; the Matroska passes the probe (2 s,
// 30 fps) and every decode of it ends at the probed duration: the frames
// it yields are those of 3 s (the duration and a second of slack), and no
// child grows past a decoder's ordinary memory. Before the cut, the same
// decode filled the gap with repeated frames: 70 s for the Matroska,
// gigabytes for the MP4.
func TestTimestampGapIsBounded(t *testing.T) {
	e := newEngine(t)
	dir := t.TempDir()
	ctx := context.Background()

	mp4 := gapClip(t, dir, "gap.mp4")
	if _, err := e.Probe(ctx, mp4); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "frames per second") {
		t.Fatalf("probe of the MP4 gap clip: %v, want ErrLimit on its average frame rate", err)
	}

	// The MP4 again with the frame rate floor off, and the Matroska, go
	// through every decode.
	lim := DefaultLimits()
	lim.MinFPS = 0
	for _, name := range []string{"gap.mp4", "gap.mkv"} {
		t.Run(name, func(t *testing.T) {
			eng, err := New(Config{Limits: lim})
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, name)
			if name == "gap.mkv" {
				p = gapClip(t, dir, name)
			}
			info, err := eng.Probe(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if info.Duration > 2*time.Second+100*time.Millisecond {
				t.Fatalf("probe says %v: the headers were not patched to 2 s", info.Duration)
			}
			ex, err := eng.Extract(ctx, p, info)
			if err != nil {
				t.Fatalf("extract: %v", err)
			}
			if ex.Frames > 3*ExtractRate+1 {
				t.Errorf("extract summed %d frames, want at most %d (3 s at %d fps)", ex.Frames, 3*ExtractRate+1, ExtractRate)
			}
			fp, err := eng.Fingerprint(ctx, p, info)
			if err != nil {
				t.Fatalf("fingerprint: %v", err)
			}
			if len(fp.Hashes) > 4 {
				t.Errorf("fingerprint has %d frames, want at most 4", len(fp.Hashes))
			}
			info.FPSNum, info.FPSDen, info.FPS = 30, 1, 30 // as the Matroska says
			st, err := eng.Embed(ctx, p, info, filepath.Join(dir, name+".signed.mp4"), 0x1234, EmbedOptions{Preset: "ultrafast"})
			if err != nil {
				t.Fatalf("embed: %v", err)
			}
			if st.Frames > 3*30+1 {
				t.Errorf("embed encoded %d frames, want at most 91", st.Frames)
			}
			peak := eng.PeakChildRSS()
			t.Logf("extract %d frames, fingerprint %d, embed %d; peak child RSS %d MiB", ex.Frames, len(fp.Hashes), st.Frames, peak>>20)
			// x264 at 640×360 is the largest child (about 100 MiB);
			// repeated frames would take gigabytes.
			if peak > 256<<20 {
				t.Errorf("peak child RSS %d MiB, want under 256 MiB", peak>>20)
			}
		})
	}
}

// TestResolutionSwitchRefusedByDecoder: 2 s of 640×360 followed, in the
// same H.264 stream, by frames of 4096×4096 that the probe does not see.
// The decoder refuses the large frames (-max_pixels, the limits' 1920×1080)
// before allocating them: the decodes keep the small frames and no child
// needs more memory than for the plain 640×360 clip, plus a margin below
// one large frame's three planes (24 MiB).
func TestResolutionSwitchRefusedByDecoder(t *testing.T) {
	newEngine(t)
	dir := t.TempDir()
	small := filepath.Join(dir, "small.h264")
	ffmpeg(t, "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=2", "-c:v", "libx264", "-preset", "ultrafast",
		"-bsf:v", "h264_mp4toannexb", small)
	large := filepath.Join(dir, "large.h264")
	ffmpeg(t, "-f", "lavfi", "-i", "color=c=gray:size=4096x4096:rate=30:duration=0.1", "-c:v", "libx264", "-preset", "ultrafast",
		"-pix_fmt", "yuv420p", large)
	a, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(large)
	if err != nil {
		t.Fatal(err)
	}
	joined := filepath.Join(dir, "switch.h264")
	if err := os.WriteFile(joined, append(a, b...), 0o600); err != nil {
		t.Fatal(err)
	}
	sw := filepath.Join(dir, "switch.mp4")
	ffmpeg(t, "-r", "30", "-i", joined, "-c", "copy", sw)
	plain := filepath.Join(dir, "plain.mp4")
	ffmpeg(t, "-r", "30", "-i", small, "-c", "copy", plain)

	peak := func(p string) (int64, int) {
		e, err := New(Config{})
		if err != nil {
			t.Fatal(err)
		}
		info := probe(t, e, p)
		if info.Width != 640 || info.Height != 360 {
			t.Fatalf("probe sees %d×%d, want the first frames' 640×360", info.Width, info.Height)
		}
		ex, err := e.Extract(context.Background(), p, info)
		if err != nil {
			t.Fatalf("extract %s: %v", filepath.Base(p), err)
		}
		if _, err := e.Fingerprint(context.Background(), p, info); err != nil {
			t.Fatalf("fingerprint %s: %v", filepath.Base(p), err)
		}
		return e.PeakChildRSS(), ex.Frames
	}
	base, baseFrames := peak(plain)
	got, frames := peak(sw)
	t.Logf("peak child RSS: plain %d MiB (%d frames), with the switch %d MiB (%d frames)", base>>20, baseFrames, got>>20, frames)
	if got > base+16<<20 {
		t.Errorf("the switch raised the decoder's peak RSS from %d to %d MiB: large frames were decoded", base>>20, got>>20)
	}
}

// TestChildLimits: every child runs with the address-space limit of its
// kind, in a process group of its own, with nothing of the server's
// environment.
func TestChildLimits(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "limits.sh")
	// Give the parent time to set the limit, then report it.
	body := "#!/bin/sh\nsleep 0.2\n" +
		"awk '/Max address space/ {print \"limit\", $4, $5}' /proc/$$/limits\n" +
		"awk '{print \"group\", $5, \"pid\", $1}' /proc/$$/stat\nenv\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PROVENANT_SECRET_FOR_TEST", "must-not-leak")
	e := &Engine{}
	out, err := e.run(context.Background(), script, nil, DecodeMemory, 1<<16)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	want := strconv.Itoa(DecodeMemory)
	if !strings.Contains(s, "limit "+want+" "+want+"\n") {
		t.Errorf("child output:\n%s\nwant soft and hard address space limits of %s", s, want)
	}
	var group, pid string
	for _, l := range strings.Split(s, "\n") {
		if f := strings.Fields(l); len(f) == 4 && f[0] == "group" {
			group, pid = f[1], f[3]
		}
	}
	if pid == "" || group != pid {
		t.Errorf("child in group %q with pid %q: want a group of its own", group, pid)
	}
	if strings.Contains(s, "must-not-leak") || !strings.Contains(s, "MALLOC_ARENA_MAX=2") {
		t.Errorf("child environment:\n%s\nwant MALLOC_ARENA_MAX=2 and nothing of the server's", s)
	}
	if e.PeakChildRSS() <= 0 {
		t.Error("the child's peak RSS was not recorded")
	}
}

// TestCancelKillsProcessGroup: when the caller's context ends, the whole
// process group of the child dies, a process it started included.
func TestCancelKillsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "grandchild")
	script := filepath.Join(dir, "ffmpeg.sh")
	body := "#!/bin/sh\nsleep 300 &\necho $! > " + pidFile + "\nexec sleep 300\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	e := &Engine{ffmpeg: script, wall: time.Minute}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- e.stream(ctx, time.Minute, DecodeMemory, nil, nil, func(r io.Reader) error {
			_, err := io.Copy(io.Discard, r)
			return err
		})
	}()
	var grandchild int
	for deadline := time.Now().Add(10 * time.Second); grandchild == 0; {
		if b, err := os.ReadFile(pidFile); err == nil && len(bytes.TrimSpace(b)) > 0 {
			grandchild, _ = strconv.Atoi(string(bytes.TrimSpace(b)))
		}
		if time.Now().After(deadline) {
			t.Fatal("the child never started its own child")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("stream did not return after the cancel")
	}
	for deadline := time.Now().Add(5 * time.Second); alive(grandchild); {
		if time.Now().After(deadline) {
			_ = syscall.Kill(grandchild, syscall.SIGKILL)
			t.Fatalf("process %d started by the child outlived the cancel", grandchild)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive reports whether pid runs (a zombie awaiting its reaper does not).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}

// TestMemoryBudgetAdmitsRuns: a run waits for room in the memory budget
// and gives up with its context; Embed needs a decoder's and an encoder's
// share together.
func TestMemoryBudgetAdmitsRuns(t *testing.T) {
	newEngine(t)
	e, err := New(Config{Memory: DecodeMemory + EncodeMemory, MaxConcurrent: 4})
	if err != nil {
		t.Fatal(err)
	}
	release, err := e.mem.Acquire(context.Background(), EncodeMemory)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = e.Embed(ctx, filepath.Join(t.TempDir(), "never-read.mp4"), Info{Width: 640, Height: 360, FPS: 30, FPSNum: 30, FPSDen: 1, Duration: time.Second},
		filepath.Join(t.TempDir(), "out.mp4"), 1, EmbedOptions{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("embed with %d MiB of %d free: %v, want to wait for room until the deadline", (DecodeMemory)>>20, e.mem.Capacity()>>20, err)
	}
	release()
	if got := e.mem.InUse(); got != 0 {
		t.Fatalf("%d bytes still reserved after the runs ended", got)
	}
	if _, err := New(Config{Memory: EncodeMemory}); err == nil {
		t.Fatal("a budget smaller than one signing run was accepted")
	}
}
