package video

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/shared/watermark"
)

// scroll returns frame f of a picture scrolling up by step rows a frame:
// the rows of tall from f·step on.
func scroll(tall []uint8, w, h, step, f int) []uint8 {
	return append([]uint8(nil), tall[f*step*w:(f*step+h)*w]...)
}

// binaryTexture is a w×h plane of black and white pixels, each column's
// and row's share of white varying (profiles to follow).
func binaryTexture(r *rand.Rand, w, h int) []uint8 {
	pix := make([]uint8, w*h)
	for y := range h {
		py := 0.3 + 0.4*r.Float64()
		for x := range w {
			if r.Float64() < py*(0.6+0.4*math.Sin(float64(x)/7)) {
				pix[y*w+x] = 255
			}
		}
	}
	return pix
}

// studioTexture is binaryTexture scaled into the studio range (16-235),
// which leaves the watermark room to mark above and below every pixel.
func studioTexture(r *rand.Rand, w, h int) []uint8 {
	pix := binaryTexture(r, w, h)
	for i := range pix {
		pix[i] = 16 + uint8(int(pix[i])*219/255)
	}
	return pix
}

// TestMatchProfile: the shift between two profiles, to a fraction of a
// pixel, and the fit that tells a moved picture from another one.
func TestMatchProfile(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	// A smooth random profile sampled at any offset.
	const n = 400
	f := make([]float64, 64)
	for i := range f {
		f[i] = r.NormFloat64()
	}
	at := func(x float64) float64 {
		var v float64
		for i, a := range f {
			v += a * math.Sin(x*float64(i+1)/200+float64(i))
		}
		return v
	}
	sample := func(off float64) []float64 {
		p := make([]float64, n)
		for i := range p {
			p[i] = at(float64(i) + off)
		}
		center(p)
		return p
	}
	prev := sample(0)
	for _, want := range []float64{0, 5, -7, 2.5, -11.25} {
		// cur[i] = prev[i+want]
		d, fit := matchProfile(sample(want), prev, n/4)
		if math.Abs(d-want) > 0.2 || fit > 0.05 {
			t.Errorf("shift %.2f: matched %.2f with fit %.3f", want, d, fit)
		}
	}
	other := make([]float64, n)
	for i := range other {
		other[i] = r.NormFloat64()
	}
	center(other)
	if _, fit := matchProfile(other, prev, n/4); fit <= motionMaxFit {
		t.Errorf("an unrelated profile fits %.2f, want above %.2f", fit, motionMaxFit)
	}
	if d, fit := matchProfile(make([]float64, n), prev, n/4); d != 0 || fit != 0 {
		t.Errorf("a flat profile: shift %.2f fit %.2f, want none", d, fit)
	}
}

// TestMotionTracker follows a scroll, counts no motion along an axis
// with nothing to follow, and starts again at a cut.
func TestMotionTracker(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	const w, h, step = 320, 180, 3
	tall := binaryTexture(r, w, h+20*step)
	m := newMotionTracker(w, h)
	for f := range 8 {
		dx, dy := m.add(scroll(tall, w, h, step, f))
		if dx != 0 || dy != f*step {
			t.Fatalf("frame %d: displacement (%d, %d), want (0, %d)", f, dx, dy, f*step)
		}
	}
	if dx, dy := m.add(binaryTexture(r, w, h)); dx != 0 || dy != 0 || m.resets != 1 {
		t.Fatalf("a cut: displacement (%d, %d), %d resets; want a new reference", dx, dy, m.resets)
	}

	// A diagonal pan: both axes count.
	const wide = w + 20*step
	big := binaryTexture(r, wide, wide)
	m = newMotionTracker(w, h)
	for f := range 8 {
		p := make([]uint8, 0, w*h)
		for y := range h {
			p = append(p, big[(y+f*step)*wide+f*2:][:w]...)
		}
		if dx, dy := m.add(p); dx != 2*f || dy != f*step {
			t.Fatalf("pan, frame %d: displacement (%d, %d), want (%d, %d)", f, dx, dy, 2*f, f*step)
		}
	}

	// Horizontal stripes scrolling up, with fresh noise in every frame:
	// the column means are noise, and no sideways motion is read into
	// them.
	stripes := make([]uint8, w*(h+20*step))
	for y := range h + 20*step {
		v := uint8(r.IntN(200) + 28)
		for x := range w {
			stripes[y*w+x] = v
		}
	}
	m = newMotionTracker(w, h)
	for f := range 8 {
		if dx, dy := m.add(noisy(r, scroll(stripes, w, h, step, f), 3)); dx != 0 || dy != f*step {
			t.Fatalf("stripes, frame %d: displacement (%d, %d), want (0, %d)", f, dx, dy, f*step)
		}
	}
}

// TestDecodePrefersInPlace: when both sums decode, the in-place reading
// answers (the motion-compensated one is read only when it does not).
func TestDecodePrefersInPlace(t *testing.T) {
	x := &temporalExtractor{soft: make([]float64, codedBits), moved: make([]float64, codedBits), frames: 2, displaced: 1}
	for i, b := range convEncode(messageBits(0x1111)) {
		x.soft[i] = 1 - 2*float64(b)
	}
	for i, b := range convEncode(messageBits(0x2222)) {
		x.moved[i] = 1 - 2*float64(b)
	}
	if res := x.decode(); !res.found || res.payload != 0x1111 || res.moved {
		t.Fatalf("found %v payload %x moved %v, want 1111 read in place", res.found, res.payload, res.moved)
	}
}

// TestProjectAt: the displaced projection reads the pattern at (x−dx,
// y−dy), and leaves out the cells that would leave the frame.
func TestProjectAt(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	const w, h = 320, 180
	l := newLayout(w, h)
	pix := make([]uint8, w*h)
	for i := range pix {
		pix[i] = uint8(r.IntN(256))
	}
	n := l.cols * l.rows
	want, got := make([]float64, n), make([]float64, n)
	ok := make([]bool, n)
	for _, d := range [][2]int{{0, 0}, {7, -12}, {-25, 31}} {
		dx, dy := d[0], d[1]
		moved := make([]uint8, w*h) // moved(x, y) = pix(x−dx, y−dy)
		for y := range h {
			for x := range w {
				if xs, ys := x-dx, y-dy; xs >= 0 && xs < w && ys >= 0 && ys < h {
					moved[y*w+x] = pix[ys*w+xs]
				}
			}
		}
		l.project(moved, want)
		l.projectAt(pix, dx, dy, got, ok)
		left := 0
		for k := range want {
			r, c := k/l.cols, k%l.cols
			inside := true
			for y := range h {
				for x := range w {
					if int(l.rowCell[y]) == r && int(l.colCell[x]) == c && (x-dx < 0 || x-dx >= w || y-dy < 0 || y-dy >= h) {
						inside = false
					}
				}
			}
			if ok[k] != inside {
				t.Fatalf("displacement %v: cell %d ok %v, want %v", d, k, ok[k], inside)
			}
			if !inside {
				left++
				continue
			}
			if math.Abs(got[k]-want[k]) > 1e-3 {
				t.Fatalf("displacement %v: cell %d amplitude %.4f, want %.4f", d, k, got[k], want[k])
			}
		}
		if (dx != 0 || dy != 0) && left == 0 {
			t.Fatalf("displacement %v left no cell out", d)
		}
	}
}

// TestMotionCompensatedReading: frames that carry one marked frame's
// mark dragged along with a scrolling picture (what a re-encoder that
// predicts every frame from the moved previous one and drops the
// residual leaves) decode only when read along the motion; a clip whose
// every frame carries the mark in place keeps its in-place answer; an
// unmarked scroll decodes as nothing.
func TestMotionCompensatedReading(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	const w, h, step, frames = 480, 270, 4, 24
	const payload = 0x0dd5_c0ff_ee00_1234
	tall := studioTexture(r, w, h+frames*step)

	// Still frames: the motion-compensated sum is the in-place one.
	x := newTemporalExtractor(w, h)
	still := scroll(tall, w, h, step, 0)
	for range 3 {
		x.add(noisy(r, still, 3))
	}
	for i := range x.soft {
		if x.moved[i] != x.soft[i] || x.displaced != 0 {
			t.Fatalf("still frames: coded bit %d sums %.3f read along the motion, %.3f in place (%d frames displaced)", i, x.moved[i], x.soft[i], x.displaced)
		}
	}

	// The keyframe marked, then dragged: the picture is the marked tall
	// texture scrolled, so every frame carries the keyframe's mark moved.
	dragged := append([]uint8(nil), tall...)
	newTemporalEmbedder(w, h, payload).mark(dragged[:w*h])
	x = newTemporalExtractor(w, h)
	for f := range frames {
		x.add(noisy(r, scroll(dragged, w, h, step, f), 3))
	}
	if in := decodeSoft(x.soft, temporalMaxErrorRate); in.found && in.payload == payload {
		t.Fatalf("the dragged mark decoded in place (%d errors): the case tests nothing", in.errors)
	}
	res := x.decode()
	if !res.found || res.payload != payload || !res.moved || res.displaced != frames-1 {
		t.Fatalf("dragged mark: found %v payload %x moved %v (%d of %d frames displaced, %d/%d errors), want %x read along the motion",
			res.found, res.payload, res.moved, res.displaced, frames, res.errors, codedBits, uint64(payload))
	}

	// Every frame marked where it is: the in-place reading answers.
	emb := newTemporalEmbedder(w, h, payload)
	x = newTemporalExtractor(w, h)
	for f := range frames {
		p := scroll(tall, w, h, step, f)
		emb.mark(p)
		x.add(noisy(r, p, 3))
	}
	if res := x.decode(); !res.found || res.payload != payload || res.moved {
		t.Fatalf("marked in place: found %v payload %x moved %v, want %x read in place", res.found, res.payload, res.moved, uint64(payload))
	}

	x = newTemporalExtractor(w, h)
	for f := range frames {
		x.add(noisy(r, scroll(tall, w, h, step, f), 3))
	}
	if res := x.decode(); res.found || res.displaced == 0 {
		t.Fatalf("unmarked scroll: found %v (%x), %d frames displaced; want nothing, read both ways", res.found, res.payload, res.displaced)
	}
}

// TestScrollingClipSurvivesCRF35 signs a clip whose fine texture
// scrolls a row a frame (a cellular automaton) and re-encodes it at CRF
// 35 with x264's defaults (one keyframe for the whole clip): the
// re-encode drags the keyframe's mark along with the picture, and the
// mark read in place over the whole clip is lost. Read whole, the
// payload comes back from the reading along the motion; as Extract reads
// it, from the temporal mark confirmed on the first frames, where the
// keyframe's mark is still whole.
func TestScrollingClipSurvivesCRF35(t *testing.T) {
	f := automatonFixture(t, "960x540", 30, 5, 6)
	const payload = watermark.Payload(0x5c20_11ed_0000_beef)
	signed, _ := f.sign(t, "signed.mp4", payload, EmbedOptions{})
	crf35 := filepath.Join(f.dir, "crf35.mp4")
	ffmpeg(t, "-i", signed, "-c:v", "libx264", "-preset", "veryfast", "-crf", "35", crf35)
	info := probe(t, f.e, crf35)
	res, tr, err := f.e.extract(f.ctx, crf35, info, extractConfig{rate: ExtractRate})
	if err != nil {
		t.Fatal(err)
	}
	// Every frame but the first is read displaced: the in-place frames
	// and as many again in between (the motion-compensated reading takes
	// twice the sampling rate).
	if !res.Detection.Found || res.Payload != payload || res.Mark != MarkTemporal || !tr.moved || tr.displaced != 2*tr.frames-1 {
		t.Fatalf("read whole: payload %v found %v from mark %d (temporal: moved %v, %d of %d frames displaced, %d/%d errors), want %v read along the motion",
			res.Payload, res.Detection.Found, res.Mark, tr.moved, tr.displaced, tr.frames, tr.errors, codedBits, payload)
	}
	t.Logf("read whole, along the motion: %d/%d errors, z %.1f, %d frames displaced", tr.errors, codedBits, tr.z, tr.displaced)
	got, gtr, err := f.e.extract(f.ctx, crf35, info, extractConfig{rate: ExtractRate, gate: true})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Detection.Found || got.Payload != payload || got.Mark != MarkTemporal || gtr.frames > 2 {
		t.Fatalf("as Extract reads it: payload %v found %v from mark %d after %d frames read in place, want %v confirmed by the temporal mark within 2",
			got.Payload, got.Detection.Found, got.Mark, gtr.frames, payload)
	}
	t.Logf("as Extract reads it: confirmed after %d frames in place (moved %v), %d/%d errors", gtr.frames, gtr.moved, gtr.errors, codedBits)
}

// TestSquaredDistance: the interleaved sums give the sum in index order
// to the last bits, and the match built on them the shift and the fit of
// a match summed in index order, on profiles of scrolled 1080p textures
// and of unrelated ones.
func TestSquaredDistance(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	for n := range 11 {
		a, b := make([]float64, n), make([]float64, n+3)
		for i := range a {
			a[i], b[i] = r.NormFloat64()*50, r.NormFloat64()*50
		}
		var want float64
		for i := range a {
			want += (a[i] - b[i]) * (a[i] - b[i])
		}
		if got := squaredDistance(a, b); math.Abs(got-want) > 1e-12*want {
			t.Fatalf("length %d: %v, want %v", n, got, want)
		}
	}
	// serialMatch is matchProfile with its costs summed in index order.
	serialMatch := func(cur, prev []float64, m int) (float64, float64) {
		n := len(cur)
		var v float64
		for _, c := range cur {
			v += c * c
		}
		v /= float64(n)
		cost := func(s int) float64 {
			lo, hi := max(0, -s), min(n, n-s)
			var e float64
			for i := lo; i < hi; i++ {
				t := cur[i] - prev[i+s]
				e += t * t
			}
			return e / float64(hi-lo)
		}
		best, be := 0, cost(0)
		for s := -m; s <= m; s++ {
			if e := cost(s); e < be {
				best, be = s, e
			}
		}
		d := float64(best)
		if best > -m && best < m {
			a, c := cost(best-1), cost(best+1)
			if den := a - 2*be + c; den > 0 {
				d += max(-0.5, min(0.5, (a-c)/(2*den)))
			}
		}
		return d, be / v
	}
	const w, h = 1920, 1080
	tall := binaryTexture(r, w, h+64)
	row, col := make([]float64, h), make([]float64, w)
	prow, pcol := make([]float64, h), make([]float64, w)
	profiles(tall[:w*h], w, h, prow, pcol)
	other := binaryTexture(r, w, h)
	for _, f := range []struct {
		name string
		pix  []uint8
	}{{"scrolled", scroll(tall, w, h, 7, 1)}, {"unrelated", other}} {
		profiles(f.pix, w, h, row, col)
		for _, p := range [][2][]float64{{col, pcol}, {row, prow}} {
			m := len(p[0]) / 4
			d, fit := matchProfile(p[0], p[1], m)
			wd, wfit := serialMatch(p[0], p[1], m)
			if math.Abs(d-wd) > 1e-9 || math.Abs(fit-wfit) > 1e-9*max(1, wfit) {
				t.Errorf("%s, %d long: shift %v fit %v, summed in order %v %v", f.name, len(p[0]), d, fit, wd, wfit)
			}
		}
	}
}

// BenchmarkMatchProfile1080p is the profile match of one 1080p frame
// against its predecessor, both axes, a quarter of each side.
func BenchmarkMatchProfile1080p(b *testing.B) {
	r := rand.New(rand.NewPCG(63, 64))
	const w, h = 1920, 1080
	tall := binaryTexture(r, w, h+8)
	row, col := make([]float64, h), make([]float64, w)
	prow, pcol := make([]float64, h), make([]float64, w)
	profiles(tall[:w*h], w, h, prow, pcol)
	profiles(scroll(tall, w, h, 3, 1), w, h, row, col)
	cpuMetrics(b, func() {
		matchProfile(col, pcol, w/4)
		matchProfile(row, prow, h/4)
	})
}
