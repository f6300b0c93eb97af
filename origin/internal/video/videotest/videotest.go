// Package videotest builds the hostile video files the budget tests feed
// the engine and the origin, with the system's ffmpeg. It is imported by
// tests only.
package videotest

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// FFmpeg runs the ffmpeg on PATH with args, failing t on error.
func FFmpeg(t testing.TB, args ...string) {
	t.Helper()
	cmd := exec.Command("ffmpeg", append([]string{"-hide_banner", "-nostdin", "-v", "error", "-y"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg %v: %v\n%s", args, err, out)
	}
}

// GapClip writes dir/name (".mp4" or ".mkv"): 2 s of 640×360 H.264 whose
// second second's frames are shifted 10 hours later (480 KB), its headers
// then patched to say the whole file lasts 2 s, as a hostile upload does.
func GapClip(t testing.TB, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	FFmpeg(t, "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=2",
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

// SwitchClip writes dir/name: 2 s of 640×360 H.264 followed, in the same
// stream, by three frames of side×side that ffprobe does not see; plain
// is the same clip without the large frames.
func SwitchClip(t testing.TB, dir, name string, side int) (sw, plain string) {
	t.Helper()
	small := filepath.Join(dir, name+".small.h264")
	FFmpeg(t, "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=2", "-c:v", "libx264", "-preset", "ultrafast",
		"-bsf:v", "h264_mp4toannexb", small)
	large := filepath.Join(dir, name+".large.h264")
	size := itoa(side) + "x" + itoa(side)
	FFmpeg(t, "-f", "lavfi", "-i", "color=c=gray:size="+size+":rate=30:duration=0.1", "-c:v", "libx264", "-preset", "ultrafast",
		"-pix_fmt", "yuv420p", large)
	a, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(large)
	if err != nil {
		t.Fatal(err)
	}
	joined := filepath.Join(dir, name+".h264")
	if err := os.WriteFile(joined, append(a, b...), 0o600); err != nil {
		t.Fatal(err)
	}
	sw = filepath.Join(dir, name)
	FFmpeg(t, "-r", "30", "-i", joined, "-c", "copy", sw)
	plain = filepath.Join(dir, "plain-"+name)
	FFmpeg(t, "-r", "30", "-i", small, "-c", "copy", plain)
	return sw, plain
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		if n /= 10; n == 0 {
			return string(b[i:])
		}
	}
}
