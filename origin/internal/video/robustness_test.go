package video

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/watermark"
)

// tableEdits are the edits of the robustness table (docs/video.md).
var tableEdits = []struct {
	name, ext string
	offset    int
	args      []string
}{
	{"H.264 CRF 28", ".mp4", 0, []string{"-c:v", "libx264", "-preset", "veryfast", "-crf", "28", "-c:a", "copy"}},
	{"H.264 CRF 35", ".mp4", 0, []string{"-c:v", "libx264", "-preset", "veryfast", "-crf", "35", "-c:a", "copy"}},
	{"scale to 480p", ".mp4", 0, []string{"-vf", "scale=-2:480", "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-c:a", "copy"}},
	{"scale to 360p", ".mp4", 0, []string{"-vf", "scale=-2:360", "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-c:a", "copy"}},
	{"WebM VP9 CRF 32", ".webm", 0, []string{"-c:v", "libvpx-vp9", "-crf", "32", "-b:v", "0", "-deadline", "realtime", "-cpu-used", "8", "-c:a", "libopus"}},
	{"trim first 2 s", ".mp4", 2, []string{"-ss", "2", "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-c:a", "copy"}},
	{"30 → 25 fps", ".mp4", 0, []string{"-vf", "fps=25", "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-c:a", "copy"}},
	{"90 % centre crop", ".mp4", 0, []string{"-vf", "crop=trunc(iw*0.45)*2:trunc(ih*0.45)*2", "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-c:a", "copy"}},
	// What a platform does to an upload: 1080p at a fixed 2 Mb/s.
	{"2 Mbps H.264 1080p", ".mp4", 0, []string{"-vf", "scale=-2:1080", "-c:v", "libx264", "-preset", "veryfast", "-b:v", "2M", "-maxrate", "2M", "-bufsize", "4M", "-c:a", "copy"}},
}

// tableSources are ten generated clips: different lavfi sources and
// parameters, each with temporal noise.
var tableSources = []string{
	"mandelbrot=size=960x540:rate=30,trim=duration=6",
	"mandelbrot=size=960x540:rate=30:start_x=-0.743643887037151:start_y=0.131825904205330,trim=duration=6",
	"mandelbrot=size=960x540:rate=30:start_scale=1.5:end_scale=0.1,trim=duration=6",
	"life=size=960x540:rate=30:mold=10:ratio=0.3:seed=1,trim=duration=6",
	"life=size=960x540:rate=30:mold=25:ratio=0.5:seed=7,trim=duration=6",
	"cellauto=size=960x540:rate=30:rule=110:seed=3,trim=duration=6",
	"cellauto=size=960x540:rate=30:rule=30:seed=5,trim=duration=6",
	"testsrc2=size=960x540:rate=30:duration=6",
	"testsrc=size=960x540:rate=30:duration=6",
	"smptehdbars=size=960x540:rate=30:duration=6,hue=H=2*PI*t/6",
}

// TestRobustnessTable measures the table of docs/video.md: for each
// generated clip, sign (embed), apply every edit, and count exact payload
// recoveries (as Extract reads the clip, and read whole, both marks on
// every frame, without its early exits) and fingerprint matches at the
// right offset. Minutes of CPU:
// it runs only with PROVENANT_VIDEO_TABLE=1 and prints the table.
func TestRobustnessTable(t *testing.T) {
	if os.Getenv("PROVENANT_VIDEO_TABLE") == "" {
		t.Skip("set PROVENANT_VIDEO_TABLE=1 to measure the robustness table")
	}
	e := newEngine(t)
	e.slack = 10 * time.Minute // a measurement, not a budget check
	ctx := context.Background()
	dir := t.TempDir()
	wmOK := make([]int, len(tableEdits))
	fpOK := make([]int, len(tableEdits))
	fullOK := make([]int, len(tableEdits))
	falsePos, clips := 0, 0
	psnrSum, minPSNR := 0.0, math.Inf(1)
	only := func(env string, i int) bool {
		v := os.Getenv(env)
		return v == "" || strings.Contains(","+v+",", ","+strconv.Itoa(i)+",")
	}
	for ci, src := range tableSources {
		if !only("PROVENANT_VIDEO_TABLE_CLIPS", ci) {
			continue
		}
		in := filepath.Join(dir, "src"+strconv.Itoa(ci)+".mp4")
		ffmpeg(t, "-f", "lavfi", "-i", src, "-f", "lavfi", "-i", "sine=frequency=440:duration=6",
			"-vf", "noise=alls=6:allf=t:all_seed=7,format=yuv420p", "-c:v", "libx264", "-preset", "veryfast", "-crf", "20",
			"-c:a", "aac", "-shortest", in)
		info := probe(t, e, in)
		if res, tr, err := e.extract(ctx, in, info, extractConfig{rate: ExtractRate}); err != nil {
			t.Fatal(err)
		} else {
			got, gtr, err := e.extract(ctx, in, info, extractConfig{rate: ExtractRate, gate: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Detection.Found || got.Detection.Found {
				falsePos++
			}
			t.Logf("clip %d unmarked: found %v, as Extract reads it %v (z %.1f; temporal %d/%d errors, agreement %.2f; Extract's motion reading rejected %v)", ci, res.Detection.Found,
				got.Detection.Found, res.Detection.Strength, tr.errors, codedBits, tr.agreement, gtr.rejected)
		}
		payload := watermark.Payload(0x9e3779b97f4a7c15 * uint64(ci+1))
		signed := filepath.Join(dir, "signed"+strconv.Itoa(ci)+".mp4")
		mark, _ := strconv.Atoi(os.Getenv("PROVENANT_VIDEO_TABLE_MARK"))
		if _, err := e.Embed(ctx, in, info, signed, payload, EmbedOptions{Mark: mark}); err != nil {
			t.Fatal(err)
		}
		if keep := os.Getenv("PROVENANT_VIDEO_TABLE_KEEP"); keep != "" {
			ffmpeg(t, "-i", in, "-c", "copy", filepath.Join(keep, "src"+strconv.Itoa(ci)+".mp4"))
			ffmpeg(t, "-i", signed, "-c", "copy", filepath.Join(keep, "signed"+strconv.Itoa(ci)+".mp4"))
		}
		psnr := measurePSNR(t, e, in, signed, info, true)
		psnrSum += psnr
		minPSNR = min(minPSNR, psnr)
		t.Logf("clip %d signed: luminance PSNR %.1f dB (full-range gray %.1f dB)", ci, psnr, measurePSNR(t, e, in, signed, info, false))
		ref, err := e.Fingerprint(ctx, signed, probe(t, e, signed))
		if err != nil {
			t.Fatal(err)
		}
		clips++
		for ei, ed := range tableEdits {
			if !only("PROVENANT_VIDEO_TABLE_EDITS", ei) {
				continue
			}
			out := filepath.Join(dir, "edit"+strconv.Itoa(ei)+ed.ext)
			ffmpeg(t, append(append([]string{"-i", signed}, ed.args...), out)...)
			oi := probe(t, e, out)
			res, tr, err := e.extract(ctx, out, oi, extractConfig{rate: ExtractRate})
			if err != nil {
				t.Fatal(err)
			}
			got, gtr, err := e.extract(ctx, out, oi, extractConfig{rate: ExtractRate, gate: true})
			if err != nil {
				t.Fatal(err)
			}
			if got.Detection.Found && got.Payload == payload {
				wmOK[ei]++
			}
			if res.Detection.Found && res.Payload == payload {
				fullOK[ei]++
			}
			fp, err := e.Fingerprint(ctx, out, oi)
			if err != nil {
				t.Fatal(err)
			}
			m := MatchFingerprints(ref, fp)
			if m.Matched && m.Offset >= ed.offset && m.Offset <= ed.offset+1 {
				fpOK[ei]++
			}
			t.Logf("clip %d %-18s payload %v (mark %d, z %.1f; temporal %v, %d/%d errors, agreement %.2f) as Extract reads it %v (mark %d; temporal moved %v, rejected %v, %d frames) fingerprint %v at %+d (%d/%d near)", ci, ed.name,
				res.Detection.Found && res.Payload == payload, res.Mark, res.Detection.Strength, tr.found && tr.payload == uint64(payload), tr.errors, codedBits, tr.agreement,
				got.Detection.Found && got.Payload == payload, got.Mark, gtr.moved, gtr.rejected, gtr.frames,
				m.Matched, m.Offset, m.Near, m.Frames)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n| edit | exact payload | read whole, without the early exits | fingerprint match |\n|---|---|---|---|\n")
	for ei, ed := range tableEdits {
		fmt.Fprintf(&b, "| %s | %d/%d | %d/%d | %d/%d |\n", ed.name, wmOK[ei], clips, fullOK[ei], clips, fpOK[ei], clips)
	}
	fmt.Fprintf(&b, "| unmarked source (false payload) | %d/%d | | |\n", falsePos, clips)
	fmt.Fprintf(&b, "\nluminance PSNR of the signed clips against their sources: mean %.1f dB, lowest %.1f dB\n", psnrSum/float64(clips), minPSNR)
	t.Log(b.String())
}

// measurePSNR is the luminance PSNR of b against a over frames sampled at
// 2 fps (the signed file against its source: the mark and the encode),
// on the coded luminance (luma) or on full-range gray, which stretches it
// by 255/219 (1.3 dB lower) and clips it below 16 and above 235.
func measurePSNR(t *testing.T, e *Engine, a, b string, info Info, luma bool) float64 {
	t.Helper()
	var se float64
	var n int
	var fa [][]uint8
	_, err := e.grayFrames(context.Background(), a, frameSpec{num: 2, den: 1, w: info.Width &^ 1, h: info.Height &^ 1, dur: info.Duration, luma: luma}, func(_ time.Duration, l *imagex.Luma) error {
		fa = append(fa, append([]uint8(nil), l.Pix...))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	_, err = e.grayFrames(context.Background(), b, frameSpec{num: 2, den: 1, w: info.Width &^ 1, h: info.Height &^ 1, dur: info.Duration, luma: luma}, func(_ time.Duration, l *imagex.Luma) error {
		if i < len(fa) {
			for k, v := range l.Pix {
				d := float64(v) - float64(fa[i][k])
				se += d * d
			}
			n += len(l.Pix)
		}
		i++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return 10 * math.Log10(255*255/(se/float64(n)))
}
