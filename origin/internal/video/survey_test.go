package video

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/watermark"
)

// surveySources are the clips of TestMotionGateSurvey beyond the
// robustness table's: scrolling automata of other rules and seeds,
// texture panned sideways and diagonally, and camera pans over photos
// (the photo is scaled to twice the frame and the frame window moves
// over it).
func surveySources(photos []string) []string {
	var s []string
	for _, rs := range [][2]int{{110, 3}, {30, 5}, {90, 1}, {150, 2}, {45, 4}, {105, 6}, {22, 8}, {126, 9}, {30, 11}, {110, 12}} {
		s = append(s, fmt.Sprintf("lavfi:cellauto=size=960x540:rate=30:rule=%d:seed=%d,trim=duration=6", rs[0], rs[1]))
	}
	s = append(s,
		"lavfi:cellauto=size=960x540:rate=30:rule=30:seed=21,trim=duration=6,transpose=1,scale=960:540",
		"lavfi:life=size=960x540:rate=30:mold=10:ratio=0.3:seed=3,trim=duration=6",
		"lavfi:testsrc2=size=960x540:rate=30:duration=6,scroll=horizontal=0.003",
		"lavfi:testsrc=size=960x540:rate=30:duration=6,scroll=horizontal=-0.002:vertical=0.002",
		"lavfi:smptehdbars=size=960x540:rate=30:duration=6,scroll=vertical=0.004",
	)
	for i, p := range photos {
		s = append(s, fmt.Sprintf("pan%d:%s", i, p))
	}
	return s
}

// TestMotionGateSurvey measures the motion reading's early exits over
// generated clips: each is signed and re-encoded at H.264 CRF 35, CRF 28
// and 2 Mb/s 1080p, and every edited copy, the unmarked source and its
// CRF 35 re-encode are read twice, every frame both ways (as without the
// exits) and as Extract reads them. It fails when Extract loses a payload
// the full reading recovers or decodes a payload from an unmarked clip,
// and logs, per clip, the motion sum's coded bit errors after
// movedLookFrames frames (the no-mark test's statistic) and the frame at
// which it first decoded. Minutes of CPU: runs only with
// PROVENANT_VIDEO_SURVEY=1; PROVENANT_VIDEO_SURVEY_PHOTOS names photos
// (comma-separated paths) to pan over.
func TestMotionGateSurvey(t *testing.T) {
	if os.Getenv("PROVENANT_VIDEO_SURVEY") == "" {
		t.Skip("set PROVENANT_VIDEO_SURVEY=1 to survey the motion reading's early exits")
	}
	var photos []string
	if v := os.Getenv("PROVENANT_VIDEO_SURVEY_PHOTOS"); v != "" {
		photos = strings.Split(v, ",")
	}
	e := newEngine(t)
	e.slack = 10 * time.Minute
	ctx := t.Context()
	dir := t.TempDir()
	edits := []struct{ name, args string }{
		{"crf35", "-c:v libx264 -preset veryfast -crf 35"},
		{"crf28", "-c:v libx264 -preset veryfast -crf 28"},
		{"2mbps", "-vf scale=-2:1080 -c:v libx264 -preset veryfast -b:v 2M -maxrate 2M -bufsize 4M"},
	}
	var lost, falsePay, movedFull, rejected, unmarkedRead int
	maxMarked, minUnmarked := -1, codedBits+1
	for ci, src := range surveySources(photos) {
		if only := os.Getenv("PROVENANT_VIDEO_SURVEY_CLIPS"); only != "" && !strings.Contains(","+only+",", ","+strconv.Itoa(ci)+",") {
			continue
		}
		in := filepath.Join(dir, fmt.Sprintf("src%d.mp4", ci))
		kind, spec, _ := strings.Cut(src, ":")
		if kind == "lavfi" {
			ffmpeg(t, "-f", "lavfi", "-i", spec, "-vf", "noise=alls=6:allf=t:all_seed=7,format=yuv420p",
				"-c:v", "libx264", "-preset", "veryfast", "-crf", "20", in)
		} else {
			ffmpeg(t, "-loop", "1", "-framerate", "30", "-t", "6", "-i", spec,
				"-vf", "scale=1920:1080:force_original_aspect_ratio=increase,crop=1920:1080,crop=960:540:x='t*60':y='t*30',noise=alls=4:allf=t:all_seed=7,format=yuv420p",
				"-c:v", "libx264", "-preset", "veryfast", "-crf", "20", in)
		}
		info := probe(t, e, in)
		payload := watermark.Payload(0x9e3779b97f4a7c15 * uint64(ci+101))
		signed := filepath.Join(dir, fmt.Sprintf("signed%d.mp4", ci))
		if _, err := e.Embed(ctx, in, info, signed, payload, EmbedOptions{}); err != nil {
			t.Fatal(err)
		}
		files := []struct {
			name, path string
			marked     bool
		}{{"unmarked", in, false}}
		crf35 := filepath.Join(dir, fmt.Sprintf("src%d-crf35.mp4", ci))
		ffmpeg(t, "-i", in, "-c:v", "libx264", "-preset", "veryfast", "-crf", "35", crf35)
		files = append(files, struct {
			name, path string
			marked     bool
		}{"unmarked crf35", crf35, false})
		for _, ed := range edits {
			out := filepath.Join(dir, fmt.Sprintf("signed%d-%s.mp4", ci, ed.name))
			ffmpeg(t, append(append([]string{"-i", signed}, strings.Fields(ed.args)...), out)...)
			files = append(files, struct {
				name, path string
				marked     bool
			}{ed.name, out, true})
		}
		for _, f := range files {
			fi := probe(t, e, f.path)
			full, tr, look, first := traceMotion(t, e, f.path, fi)
			got, gtr, err := e.extract(ctx, f.path, fi, extractConfig{rate: ExtractRate, gate: true})
			if err != nil {
				t.Fatal(err)
			}
			fullOK := full.Detection.Found && full.Payload == payload
			gotOK := got.Detection.Found && got.Payload == payload
			if f.marked && fullOK && !gotOK {
				lost++
				t.Errorf("clip %d %s: the full reading recovers the payload, Extract does not", ci, f.name)
			}
			if !f.marked && got.Detection.Found {
				falsePay++
				t.Errorf("clip %d %s: Extract decoded %v from an unmarked clip", ci, f.name, got.Payload)
			}
			if f.marked && fullOK && full.Mark == MarkTemporal && tr.moved {
				movedFull++
				maxMarked = max(maxMarked, look)
			}
			if !f.marked && tr.displaced > 0 {
				unmarkedRead++
				minUnmarked = min(minUnmarked, look)
			}
			if gtr.rejected {
				rejected++
			}
			t.Logf("clip %2d %-14s full %-5v (mark %d, moved %-5v) gated %-5v (mark %d, moved %-5v rejected %-5v, %3d frames) motion sum at frame %d: %3d/%d errors; first decoded at %3d; displaced %d",
				ci, f.name, fullOK, full.Mark, tr.moved, gotOK, got.Mark, gtr.moved, gtr.rejected, gtr.frames, movedLookFrames, look, codedBits, first, tr.displaced)
		}
	}
	t.Logf("payloads lost by the early exits: %d; false payloads: %d; rejected by the no-mark test: %d", lost, falsePay, rejected)
	t.Logf("clips recovered only along the motion: %d, their motion sum at frame %d at most %d errors; unmarked clips read displaced: %d, at least %d errors (the test rejects above %d)",
		movedFull, movedLookFrames, maxMarked, unmarkedRead, minUnmarked, movedNoMarkErrors)
}

// traceMotion reads path as extract does without the early exits and
// returns its answer, the temporal result, the motion sum's coded bit
// errors after movedLookFrames frames and the first frame (of the motion
// reading's count) at which that sum decoded (0: never).
func traceMotion(t *testing.T, e *Engine, path string, info Info) (ExtractResult, temporalResult, int, int) {
	t.Helper()
	spec := frameSpec{num: 2 * ExtractRate, den: 1, w: info.Width, h: info.Height, dur: info.Duration, luma: true}
	tx := newTemporalExtractor(spec.w, spec.h)
	sum := newFrameSum(spec.w * spec.h)
	look, first, k, n := -1, 0, 0, 0
	if _, err := e.grayFrames(t.Context(), path, spec, func(_ time.Duration, l *imagex.Luma) error {
		k++
		sum.add(l.Pix)
		if k%2 == 0 {
			tx.follow(l.Pix, false)
		} else {
			tx.add(l.Pix)
			n++
		}
		m := decodeSoft(tx.moved, temporalMovedMaxErrorRate)
		if tx.followed == movedLookFrames {
			look = m.errors
		}
		if first == 0 && m.found && tx.displaced > 0 {
			first = tx.followed
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	mean := &imagex.Luma{Width: spec.w, Height: spec.h, Stride: spec.w, Pix: make([]uint8, spec.w*spec.h)}
	sum.mean(mean.Pix)
	pl, det, err := watermark.Extract(mean)
	if err != nil {
		t.Fatal(err)
	}
	tr := tx.decode()
	return choose(pl, det, tr, spec.w, spec.h, n), tr, look, first
}
