package video

import (
	"context"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/watermark"
)

// TestExtractGate: Extract skips the temporal mark's projection once the
// image mark decoded from the first frames, and its answer is the one
// both marks read on every frame give; an unsigned clip is read whole;
// and when the image mark decodes from the first frames but not from all
// of them, the temporal mark is read from every frame after all.
func TestExtractGate(t *testing.T) {
	e := newEngine(t)
	e.slack = 5 * time.Minute // the gate is tested here, not the budgets
	ctx := context.Background()
	dir := t.TempDir()
	src := clip(t, dir, "src.mp4", "testsrc2", "640x360", 30, 4)
	info := probe(t, e, src)
	const payload = watermark.Payload(0x6a7e_0000_1234_abcd)
	signed := filepath.Join(dir, "signed.mp4")
	if _, err := e.Embed(ctx, src, info, signed, payload, EmbedOptions{}); err != nil {
		t.Fatal(err)
	}
	si := probe(t, e, signed)
	look := gateFrames(int(si.Duration.Seconds()*ExtractRate), ExtractRate)

	for _, tc := range []struct {
		name      string
		path      string
		info      Info
		wantFound bool
		// skips: with the gate the temporal mark reads look frames,
		// else every frame.
		skips bool
	}{
		{"signed", signed, si, true, true},
		{"unsigned", src, info, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			full, ftr, err := e.extract(ctx, tc.path, tc.info, extractConfig{rate: ExtractRate})
			if err != nil {
				t.Fatal(err)
			}
			got, tr, err := e.extract(ctx, tc.path, tc.info, extractConfig{rate: ExtractRate, gate: true})
			if err != nil {
				t.Fatal(err)
			}
			if got != full {
				t.Fatalf("gated %+v, read whole %+v: the gate changed the answer", got, full)
			}
			if got.Detection.Found != tc.wantFound || (tc.wantFound && (got.Payload != payload || got.Mark != MarkFrame)) {
				t.Fatalf("found %v payload %v mark %d, want found %v payload %v from the image mark", got.Detection.Found, got.Payload, got.Mark, tc.wantFound, payload)
			}
			if ftr.frames != got.Frames {
				t.Fatalf("read whole: the temporal mark read %d of %d frames", ftr.frames, got.Frames)
			}
			want := got.Frames
			if tc.skips {
				want = look
			}
			if look >= got.Frames || tr.frames != want {
				t.Errorf("gated: the temporal mark read %d of %d frames, want %d (the gate looks after %d)", tr.frames, got.Frames, want, look)
			}
		})
	}

	t.Run("image mark lost after the look", func(t *testing.T) {
		calls := 0
		// The real extractor at the look, nothing found at the end.
		image := func(l *imagex.Luma) (watermark.Payload, watermark.Detection, error) {
			calls++
			if calls == 1 {
				return watermark.Extract(l)
			}
			return 0, watermark.Detection{}, nil
		}
		got, tr, err := e.extract(ctx, signed, si, extractConfig{rate: ExtractRate, gate: true, image: image})
		if err != nil {
			t.Fatal(err)
		}
		if calls != 2 || !got.Detection.Found || got.Payload != payload || got.Mark != MarkTemporal || tr.frames != got.Frames {
			t.Fatalf("%d image extractions; found %v payload %v from mark %d, the temporal mark read %d of %d frames: want the temporal mark's payload from every frame",
				calls, got.Detection.Found, got.Payload, got.Mark, tr.frames, got.Frames)
		}
	})
}

// cpuTime is the CPU time (user and system) this process and its waited-
// for children have used so far.
func cpuTime() (self, children time.Duration) {
	var s, c syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &s)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &c)
	tv := func(r *syscall.Rusage) time.Duration {
		return time.Duration(r.Utime.Nano() + r.Stime.Nano())
	}
	return tv(&s), tv(&c)
}

// BenchmarkExtractGate measures the CPU time of one verify's watermark
// extraction (the Go process: frame sums, the marks' extractors; the
// ffmpeg decode separately) of a signed and an unsigned 6 s 1080p clip,
// with the gate and reading both marks on every frame (as before the
// gate). The other passes of a verify (fingerprint, the middle frame)
// are unchanged by the gate.
func BenchmarkExtractGate(b *testing.B) {
	e := newEngine(b)
	e.slack = 10 * time.Minute
	ctx := context.Background()
	dir := b.TempDir()
	src := costClip(b, dir, "1920x1080", 6)
	info := probe(b, e, src)
	signed := filepath.Join(dir, "signed.mp4")
	if _, err := e.Embed(ctx, src, info, signed, 0x1234, EmbedOptions{}); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		path string
	}{{"signed", signed}, {"unsigned", src}} {
		ci := probe(b, e, c.path)
		for _, gate := range []bool{false, true} {
			b.Run(c.name+"/gate="+strconv.FormatBool(gate), func(b *testing.B) {
				var self, kids []float64
				for range b.N {
					s0, k0 := cpuTime()
					if _, _, err := e.extract(ctx, c.path, ci, extractConfig{rate: ExtractRate, gate: gate}); err != nil {
						b.Fatal(err)
					}
					s1, k1 := cpuTime()
					self = append(self, float64((s1 - s0).Milliseconds()))
					kids = append(kids, float64((k1 - k0).Milliseconds()))
				}
				b.ReportMetric(median(self), "go-cpu-ms")
				b.ReportMetric(median(kids), "ffmpeg-cpu-ms")
			})
		}
	}
}

// TestMarksOnBlackAndWhite signs a clip whose pixels are all black or
// white (a cellular automaton): the marks can only push black up and
// white down, below 16 and above 235 of the coded luminance, and the
// extractor must read that plane as coded (full-range gray clips it
// away: neither mark was found on such clips before).
func TestMarksOnBlackAndWhite(t *testing.T) {
	e := newEngine(t)
	e.slack = 5 * time.Minute
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "src.mp4")
	ffmpeg(t, "-f", "lavfi", "-i", "cellauto=size=640x360:rate=30:rule=110:seed=3,trim=duration=3",
		"-vf", "noise=alls=6:allf=t:all_seed=7,format=yuv420p", "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", src)
	info := probe(t, e, src)
	const payload = watermark.Payload(0x0b1a_c4a0_d0ff_1234)
	signed := filepath.Join(dir, "signed.mp4")
	if _, err := e.Embed(ctx, src, info, signed, payload, EmbedOptions{}); err != nil {
		t.Fatal(err)
	}
	res, tr, err := e.extract(ctx, signed, probe(t, e, signed), extractConfig{rate: ExtractRate})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Detection.Found || res.Payload != payload || !tr.found || tr.payload != uint64(payload) {
		t.Fatalf("payload %v found %v (mark %d); temporal mark %x found %v with %d/%d errors: want %v from both marks",
			res.Payload, res.Detection.Found, res.Mark, tr.payload, tr.found, tr.errors, codedBits, payload)
	}
	t.Logf("image mark z %.1f; temporal mark %d/%d errors", res.Detection.Strength, tr.errors, codedBits)
}
