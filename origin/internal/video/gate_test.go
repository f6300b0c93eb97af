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
					self = append(self, float64((s1-s0).Milliseconds()))
					kids = append(kids, float64((k1-k0).Milliseconds()))
				}
				b.ReportMetric(median(self), "go-cpu-ms")
				b.ReportMetric(median(kids), "ffmpeg-cpu-ms")
			})
		}
	}
}
