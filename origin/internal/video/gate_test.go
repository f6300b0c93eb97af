package video

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/cputime"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/watermark"
)

// TestExtractGate: Extract stops reading the temporal mark once either
// mark has given the payload, and its answer is the one both marks read
// on every frame give. A signed clip's temporal mark confirms the payload
// on the first frame, so the image mark's look is not even needed; a
// clip signed with the first mark version (the image mark only) stops at
// the look; an unsigned clip is read whole in place. When the image mark
// decodes at the look but not from all the frames, the temporal mark is
// read from every frame after all; when the temporal mark confirmed the
// payload, it answers without a look or a second decode.
func TestExtractGate(t *testing.T) {
	f := newMarkFixture(t, func(dir string) string { return clip(t, dir, "src.mp4", "testsrc2", "640x360", 30, 4) })
	e, ctx, src, info := f.e, f.ctx, f.src, f.info
	const payload = watermark.Payload(0x6a7e_0000_1234_abcd)
	signed, si := f.sign(t, "signed.mp4", payload, EmbedOptions{})
	v1, v1i := f.sign(t, "v1.mp4", payload, EmbedOptions{Mark: MarkFrame})
	look := gateFrames(int(si.Duration.Seconds()*ExtractRate), ExtractRate)

	for _, tc := range []struct {
		name      string
		path      string
		info      Info
		wantFound bool
		// read is how many frames the temporal mark reads in place with
		// the exits (0: every one).
		read int
	}{
		{"signed", signed, si, true, 1},
		{"signed, first version", v1, v1i, true, look},
		{"unsigned", src, info, false, 0},
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
			want := tc.read
			if want == 0 {
				want = got.Frames
			}
			if look >= got.Frames || tr.frames != want {
				t.Errorf("gated: the temporal mark read %d of %d frames, want %d (the gate looks after %d)", tr.frames, got.Frames, want, look)
			}
		})
	}

	// image is the real extractor at its first call, then finds nothing.
	image := func(calls *int) func(*imagex.Luma) (watermark.Payload, watermark.Detection, error) {
		return func(l *imagex.Luma) (watermark.Payload, watermark.Detection, error) {
			if *calls++; *calls == 1 {
				return watermark.Extract(l)
			}
			return 0, watermark.Detection{}, nil
		}
	}
	t.Run("image mark lost after the look", func(t *testing.T) {
		calls := 0
		got, tr, err := e.extract(ctx, v1, v1i, extractConfig{rate: ExtractRate, gate: true, image: image(&calls)})
		if err != nil {
			t.Fatal(err)
		}
		// The first version has no temporal mark: nothing is found, after
		// the temporal mark was read from every frame in a second decode.
		if calls != 2 || got.Detection.Found || tr.frames != got.Frames {
			t.Fatalf("%d image extractions; found %v, the temporal mark read %d of %d frames: want it read from every frame after the look",
				calls, got.Detection.Found, tr.frames, got.Frames)
		}
	})
	t.Run("temporal mark confirmed", func(t *testing.T) {
		// The image mark is never found here: the temporal mark's early
		// answer stands, with no look and no second decode.
		calls := 0
		never := func(*imagex.Luma) (watermark.Payload, watermark.Detection, error) {
			calls++
			return 0, watermark.Detection{}, nil
		}
		got, tr, err := e.extract(ctx, signed, si, extractConfig{rate: ExtractRate, gate: true, image: never})
		if err != nil {
			t.Fatal(err)
		}
		if calls != 1 || !got.Detection.Found || got.Payload != payload || got.Mark != MarkTemporal || tr.frames != 1 {
			t.Fatalf("%d image extractions; found %v payload %v from mark %d, the temporal mark read %d frames: want the temporal mark's payload from its first frame, one image extraction",
				calls, got.Detection.Found, got.Payload, got.Mark, tr.frames)
		}
	})
}

// markFixture is the set-up of the tests that sign a generated clip and
// read its marks: an engine whose runs are not held to the service's
// deadlines (the marks are measured here, not the budgets), the clip and
// its probe.
type markFixture struct {
	e    *Engine
	ctx  context.Context
	dir  string
	src  string
	info Info
}

// newMarkFixture makes the clip with gen in a temporary directory.
func newMarkFixture(tb testing.TB, gen func(dir string) string) *markFixture {
	tb.Helper()
	e := newEngine(tb)
	e.slack = 10 * time.Minute
	dir := tb.TempDir()
	src := gen(dir)
	return &markFixture{e: e, ctx: context.Background(), dir: dir, src: src, info: probe(tb, e, src)}
}

// sign embeds p into the clip as name with opt and returns the signed
// file and its probe.
func (f *markFixture) sign(tb testing.TB, name string, p watermark.Payload, opt EmbedOptions) (string, Info) {
	tb.Helper()
	out := filepath.Join(f.dir, name)
	if _, err := f.e.Embed(f.ctx, f.src, f.info, out, p, opt); err != nil {
		tb.Fatal(err)
	}
	return out, probe(tb, f.e, out)
}

// automatonFixture is a mark fixture whose clip is a cellular automaton
// (black and white pixels, a fine texture scrolling a row a frame) with
// temporal noise, as the robustness table's cellauto clips.
func automatonFixture(tb testing.TB, size string, rule, seed, secs int) *markFixture {
	tb.Helper()
	return newMarkFixture(tb, func(dir string) string {
		src := filepath.Join(dir, "src.mp4")
		ffmpeg(tb, "-f", "lavfi", "-i", fmt.Sprintf("cellauto=size=%s:rate=30:rule=%d:seed=%d,trim=duration=%d", size, rule, seed, secs),
			"-vf", "noise=alls=6:allf=t:all_seed=7,format=yuv420p", "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", src)
		return src
	})
}

// cpuMetrics reports the CPU time of this process that run took per
// call over b.N calls, as cpu-ms/op.
func cpuMetrics(b *testing.B, run func()) {
	b.Helper()
	b.ResetTimer()
	c0 := cputime.Process()
	for range b.N {
		run()
	}
	b.ReportMetric(float64(cputime.Process()-c0)/1e6/float64(b.N), "cpu-ms/op")
}

// BenchmarkExtractGate measures the CPU time of one verify's watermark
// extraction of a signed and an unsigned 6 s 1080p clip, as Extract reads
// it (gated) and as the plain reading before the motion reading did (6
// frames a second, both marks in place, the image mark's gate: plain),
// the two alternated in every iteration so that both see the same load.
// It reports each one's median CPU time of the Go process (go-cpu-ms)
// and of the ffmpeg decode (ffmpeg-cpu-ms), and the medians of the
// iterations' ratios gated/plain, of the Go process alone (go-ratio) and
// with the decode (total-ratio). The other passes of a verify
// (fingerprint, the middle frame) do not change.
func BenchmarkExtractGate(b *testing.B) {
	f := newMarkFixture(b, func(dir string) string { return costClip(b, dir, "1920x1080", 6) })
	e, ctx, src := f.e, f.ctx, f.src
	signed, _ := f.sign(b, "signed.mp4", 0x1234, EmbedOptions{})
	for _, c := range []struct {
		name string
		path string
	}{{"signed", signed}, {"unsigned", src}} {
		ci := probe(b, e, c.path)
		b.Run(c.name, func(b *testing.B) {
			cfgs := []extractConfig{{rate: ExtractRate, gate: true, plain: true}, {rate: ExtractRate, gate: true}}
			var goMS, kidMS [2][]float64
			var goR, totR []float64
			for range b.N {
				var g, k [2]float64
				for i, cfg := range cfgs {
					s0, k0 := cputime.Process(), e.childCPU.Load()
					res, tr, err := e.extract(ctx, c.path, ci, cfg)
					if err != nil {
						b.Fatal(err)
					}
					if i == 1 && len(goR) == 0 {
						b.Logf("%s, as Extract reads it: payload found %v (mark %d); the temporal reading took %d frames in place, confirmed %v, its motion reading rejected %v",
							c.name, res.Detection.Found, res.Mark, tr.frames, tr.found, tr.rejected)
					}
					g[i] = float64((cputime.Process() - s0).Microseconds()) / 1e3
					k[i] = float64(time.Duration(e.childCPU.Load()-k0).Microseconds()) / 1e3
					goMS[i] = append(goMS[i], g[i])
					kidMS[i] = append(kidMS[i], k[i])
				}
				goR = append(goR, g[1]/g[0])
				totR = append(totR, (g[1]+k[1])/(g[0]+k[0]))
			}
			for i, name := range []string{"plain", "gated"} {
				b.ReportMetric(median(goMS[i]), name+"-go-cpu-ms")
				b.ReportMetric(median(kidMS[i]), name+"-ffmpeg-cpu-ms")
			}
			b.ReportMetric(median(goR), "go-ratio")
			b.ReportMetric(median(totR), "total-ratio")
		})
	}
}

// TestMarksOnBlackAndWhite signs a clip whose pixels are all black or
// white (a cellular automaton): the marks can only push black up and
// white down, below 16 and above 235 of the coded luminance, and the
// extractor must read that plane as coded (full-range gray clips it
// away: neither mark was found on such clips before).
func TestMarksOnBlackAndWhite(t *testing.T) {
	f := automatonFixture(t, "640x360", 110, 3, 3)
	const payload = watermark.Payload(0x0b1a_c4a0_d0ff_1234)
	signed, si := f.sign(t, "signed.mp4", payload, EmbedOptions{})
	res, tr, err := f.e.extract(f.ctx, signed, si, extractConfig{rate: ExtractRate})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Detection.Found || res.Payload != payload || !tr.found || tr.payload != uint64(payload) {
		t.Fatalf("payload %v found %v (mark %d); temporal mark %x found %v with %d/%d errors: want %v from both marks",
			res.Payload, res.Detection.Found, res.Mark, tr.payload, tr.found, tr.errors, codedBits, payload)
	}
	t.Logf("image mark z %.1f; temporal mark %d/%d errors", res.Detection.Strength, tr.errors, codedBits)
}
