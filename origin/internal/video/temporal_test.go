package video

import (
	"image"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/shared/watermark"
)

// texture fills a w×h plane with a smooth picture moved by shift pixels,
// plus noise.
func texture(r *rand.Rand, w, h int, shift float64) []uint8 {
	pix := make([]uint8, w*h)
	for y := range h {
		for x := range w {
			fx, fy := float64(x)+shift, float64(y)
			v := 128 + 60*math.Sin(fx/37+fy/53) + 30*math.Sin(fx*fy/9000) + 20*math.Cos(fx/11-fy/17) + r.NormFloat64()*6
			pix[y*w+x] = uint8(min(max(v, 0), 255))
		}
	}
	return pix
}

// noisy returns pix plus Gaussian noise of deviation sigma.
func noisy(r *rand.Rand, pix []uint8, sigma float64) []uint8 {
	out := make([]uint8, len(pix))
	for i, v := range pix {
		out[i] = uint8(min(max(float64(v)+r.NormFloat64()*sigma+0.5, 0), 255))
	}
	return out
}

// halve box-averages a w×h plane to (w/2)×(h/2).
func halve(pix []uint8, w, h int) []uint8 {
	out := make([]uint8, (w/2)*(h/2))
	for y := range h / 2 {
		for x := range w / 2 {
			s := int(pix[2*y*w+2*x]) + int(pix[2*y*w+2*x+1]) + int(pix[(2*y+1)*w+2*x]) + int(pix[(2*y+1)*w+2*x+1])
			out[y*(w/2)+x] = uint8((s + 2) / 4)
		}
	}
	return out
}

func TestConvCodeRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		p := r.Uint64()
		cw := convEncode(messageBits(p))
		if len(cw) != codedBits {
			t.Fatalf("codeword of %d bits, want %d", len(cw), codedBits)
		}
		soft := make([]float64, len(cw))
		for i, b := range cw {
			soft[i] = 1 - 2*float64(b) + r.NormFloat64()*0.6
		}
		got, ok := parseMessage(viterbi(soft))
		if !ok || got != p {
			t.Fatalf("decoded %x (crc %v), want %x", got, ok, p)
		}
	}
}

// TestTemporalRoundTrip marks moving frames, adds noise (and, for the
// rescaled case, halves them), and reads the payload back from the sum
// of every frame's evidence; portrait frames too.
func TestTemporalRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name   string
		w, h   int
		sigma  float64
		rescal bool
	}{
		{"landscape", 480, 270, 5, false},
		{"portrait", 270, 480, 5, false},
		{"halved", 640, 360, 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, 4))
			const payload = 0x0123_4567_89ab_cdef
			emb := newTemporalEmbedder(tc.w, tc.h, payload)
			xw, xh := tc.w, tc.h
			if tc.rescal {
				xw, xh = tc.w/2, tc.h/2
			}
			x := newTemporalExtractor(xw, xh)
			var se float64
			for f := range 12 {
				pix := texture(r, tc.w, tc.h, 3*float64(f))
				orig := append([]uint8(nil), pix...)
				emb.mark(pix)
				for i := range pix {
					d := float64(pix[i]) - float64(orig[i])
					se += d * d
				}
				pix = noisy(r, pix, tc.sigma)
				if tc.rescal {
					pix = halve(pix, tc.w, tc.h)
				}
				x.add(pix)
			}
			res := x.decode()
			if !res.found || res.payload != payload {
				t.Fatalf("decoded %x (found %v, %d/%d errors), want %x", res.payload, res.found, res.errors, codedBits, uint64(payload))
			}
			psnr := 10 * math.Log10(255*255/(se/float64(12*tc.w*tc.h)))
			if psnr < 40 {
				t.Errorf("temporal mark alone at %.1f dB, want at least 40", psnr)
			}
			t.Logf("%d/%d errors, agreement %.2f, z %.1f, mark alone %.1f dB", res.errors, codedBits, res.agreement, res.z, psnr)
		})
	}
}

// TestTemporalStillShotIsStill: on a still picture whose only change is
// sensor noise the mark does not move from frame to frame (hysteresis),
// so it cannot flicker.
func TestTemporalStillShotIsStill(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const w, h = 480, 270
	base := texture(r, w, h, 0)
	emb := newTemporalEmbedder(w, h, 42)
	var prev []float64
	for f := range 10 {
		emb.mark(noisy(r, base, 2))
		if f > 0 {
			for k := range emb.delta {
				if emb.point[k] != prev[k] {
					t.Fatalf("frame %d: cell %d's lattice point moved under sensor noise", f, k)
				}
			}
		}
		prev = append(prev[:0], emb.point...)
	}
}

// TestTemporalFalsePayload: unmarked frames and random evidence never
// decode as a payload.
func TestTemporalFalsePayload(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 10 {
		x := newTemporalExtractor(320, 180)
		for f := range 4 {
			x.add(texture(r, 320, 180, float64(i*100+f*7)))
		}
		if res := x.decode(); res.found {
			t.Fatalf("unmarked frames %d decoded as %x", i, res.payload)
		}
	}
	for i := range 500 {
		x := &temporalExtractor{soft: make([]float64, codedBits), frames: 1}
		for j := range x.soft {
			x.soft[j] = r.NormFloat64()
		}
		if res := x.decode(); res.found {
			t.Fatalf("random evidence %d decoded as %x", i, res.payload)
		}
	}
}

// TestTemporalErrorRateThreshold: a codeword whose CRC matches is
// refused when too many of the summed soft values disagree with it: more
// than 12 % read in place, more than 20 % read along the clip's motion.
func TestTemporalErrorRateThreshold(t *testing.T) {
	const payload = 0xfeed_face_cafe_beef
	cw := convEncode(messageBits(payload))
	for _, tc := range []struct {
		flipped        int
		inPlace, moved bool
	}{
		{0, true, true},
		{codedBits * 8 / 100, true, true},
		{codedBits * 16 / 100, false, true},
		{codedBits * 22 / 100, false, false},
	} {
		for _, moved := range []bool{false, true} {
			x := &temporalExtractor{soft: make([]float64, codedBits), moved: make([]float64, codedBits), frames: 1}
			soft := x.soft
			if moved {
				// Nothing in place: the motion-compensated sum answers.
				soft, x.displaced = x.moved, 1
			}
			for i, b := range cw {
				soft[i] = 1 - 2*float64(b)
			}
			// Weak disagreements spread over the codeword: the decoder
			// still finds it (its CRC matches), the error rate decides.
			for j := range tc.flipped {
				i := j * codedBits / tc.flipped
				soft[i] = -0.05 * soft[i]
			}
			if _, ok := parseMessage(viterbi(soft)); !ok {
				t.Fatalf("%d weak flips: the decoder lost the codeword; the case tests nothing", tc.flipped)
			}
			want := tc.inPlace
			if moved {
				want = tc.moved
			}
			res := x.decode()
			// (A refused motion-compensated decode reports the in-place one.)
			if res.found != want || ((res.found || !moved) && res.errors != tc.flipped) || (res.found && res.moved != moved) {
				t.Errorf("%d of %d coded bits disagreeing, read moved %v: found %v (moved %v) with %d errors, want found %v",
					tc.flipped, codedBits, moved, res.found, res.moved, res.errors, want)
			}
		}
	}
}

// TestChooseDispatch: the image mark answers when it decoded (old and new
// videos carry it), the temporal mark otherwise, with the identity
// alignment; nothing when neither decoded.
func TestChooseDispatch(t *testing.T) {
	core := watermark.Detection{Found: true, Strength: 9, Scale: 0.9, OffsetX: 3, Period: 7}
	tr := temporalResult{payload: 0xabc, found: true, errors: 4, z: 15}
	for _, tc := range []struct {
		name    string
		det     watermark.Detection
		tr      temporalResult
		payload watermark.Payload
		mark    int
	}{
		{"image mark", core, tr, 0x123, MarkFrame},
		{"image mark only", core, temporalResult{}, 0x123, MarkFrame},
		{"temporal mark", watermark.Detection{Strength: 6}, tr, 0xabc, MarkTemporal},
		{"neither", watermark.Detection{Strength: 4}, temporalResult{errors: 80}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := choose(0x123, tc.det, tc.tr, 960, 540, 36)
			if got.Mark != tc.mark || got.Payload != tc.payload || got.Detection.Found != (tc.mark != 0) || got.Frames != 36 {
				t.Fatalf("got %+v, want mark %d payload %v", got, tc.mark, tc.payload)
			}
			switch tc.mark {
			case MarkFrame:
				if got.Detection != tc.det {
					t.Errorf("the image mark's detection was changed: %+v", got.Detection)
				}
			case MarkTemporal:
				d := got.Detection
				if d.Scale != 1 || d.Angle != 0 || d.OffsetX != 0 || d.OffsetY != 0 || d.Period != 1 || d.WorkWidth == 0 ||
					d.Region != image.Rect(0, 0, 960, 540) || d.BitErrors != 4 || d.CodedBits != codedBits || d.Strength != 15 {
					t.Errorf("temporal detection %+v: want the identity alignment over the whole frame", d)
				}
			}
		})
	}
}

// TestTemporalMarkSurvivesCRF35 signs a short clip with each mark
// version through ffmpeg: the current version's payload comes back from
// the temporal mark after an H.264 CRF 35 re-encode, a first-version
// clip still decodes (from its image mark, without a temporal mark), and
// the unmarked source decodes as neither. The full measurement is
// TestRobustnessTable.
func TestTemporalMarkSurvivesCRF35(t *testing.T) {
	// The table's size: at 360p the cells are 20 px and a 3 s clip kept
	// too few of them through CRF 35 (47 of 306 coded bits wrong).
	f := newMarkFixture(t, func(dir string) string { return clip(t, dir, "src.mp4", "mandelbrot", "960x540", 30, 4) })
	e, ctx, dir, src, info := f.e, f.ctx, f.dir, f.src, f.info
	if _, err := e.Embed(ctx, src, info, filepath.Join(dir, "x.mp4"), 1, EmbedOptions{Mark: 3}); err == nil {
		t.Error("Embed accepted an unknown mark version")
	}
	const payload = watermark.Payload(0x5eed_0123_4567_89ab)
	check := func(name, path string, wantTemporal bool, wantMark int) {
		t.Helper()
		res, tr, err := e.extract(ctx, path, probe(t, e, path), extractConfig{rate: ExtractRate})
		if err != nil {
			t.Fatal(err)
		}
		if got := tr.found && tr.payload == uint64(payload); got != wantTemporal || tr.found != wantTemporal {
			t.Errorf("%s: temporal mark found %v (%x, %d/%d errors), want %v", name, tr.found, tr.payload, tr.errors, codedBits, wantTemporal)
		}
		if wantMark > 0 && (!res.Detection.Found || res.Payload != payload || res.Mark != wantMark) {
			t.Errorf("%s: payload %v found %v from mark %d, want %v from mark %d", name, res.Payload, res.Detection.Found, res.Mark, payload, wantMark)
		}
		if wantMark < 0 && (!res.Detection.Found || res.Payload != payload) {
			t.Errorf("%s: payload %v found %v, want %v", name, res.Payload, res.Detection.Found, payload)
		}
		if wantMark == 0 && res.Detection.Found {
			t.Errorf("%s: decoded %v from an unmarked clip", name, res.Payload)
		}
		t.Logf("%s: mark %d, z %.1f; temporal %d/%d errors, agreement %.2f", name, res.Mark, res.Detection.Strength, tr.errors, codedBits, tr.agreement)
	}
	check("unmarked", src, false, 0)

	v2, _ := f.sign(t, "v2.mp4", payload, EmbedOptions{})
	crf35 := filepath.Join(dir, "v2-crf35.mp4")
	ffmpeg(t, "-i", v2, "-c:v", "libx264", "-preset", "veryfast", "-crf", "35", "-c:a", "copy", crf35)
	check("version 2, CRF 35", crf35, true, -1)

	v1, _ := f.sign(t, "v1.mp4", payload, EmbedOptions{Mark: MarkFrame})
	check("version 1", v1, false, MarkFrame)
}

// BenchmarkTemporal1080p is the temporal mark's CPU time per 1080p frame
// when signing (mark: projection and write) and per sampled frame when
// verifying (extract).
func BenchmarkTemporal1080p(b *testing.B) {
	pix := texture(rand.New(rand.NewPCG(1, 2)), 1920, 1080, 0)
	e := newTemporalEmbedder(1920, 1080, 42)
	x := newTemporalExtractor(1920, 1080)
	for _, c := range []struct {
		name string
		run  func()
	}{{"mark", func() { e.mark(pix) }}, {"extract", func() { x.add(pix) }}} {
		b.Run(c.name, func(b *testing.B) { cpuMetrics(b, c.run) })
	}
}

// TestTemporalSaturatedPicture: on a picture of black and white only
// (every pixel clipped one way) the mark still reaches its lattice
// points through the pixels that can move.
func TestTemporalSaturatedPicture(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	const w, h, payload = 480, 270, 0x1111_2222_3333_4444
	emb := newTemporalEmbedder(w, h, payload)
	x := newTemporalExtractor(w, h)
	for range 6 {
		pix := make([]uint8, w*h)
		for i := range pix {
			if r.IntN(3) == 0 {
				pix[i] = 255
			}
		}
		emb.mark(pix)
		x.add(noisy(r, pix, 6))
	}
	if res := x.decode(); !res.found || res.payload != payload || res.errors > codedBits/50 {
		t.Fatalf("decoded %x (found %v, %d/%d errors), want %x with at most %d errors", res.payload, res.found, res.errors, codedBits, uint64(payload), codedBits/50)
	}
}

// TestProjectMatchesPattern: the projection (one multiply-add a pixel,
// the pattern factored by rows and columns) is the plain sum of the
// pattern's value times the pixel, over each cell, over its energy.
func TestProjectMatchesPattern(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, sz := range [][2]int{{320, 180}, {180, 320}, {333, 201}} {
		w, h := sz[0], sz[1]
		l := newLayout(w, h)
		pix := make([]uint8, w*h)
		for i := range pix {
			pix[i] = uint8(r.IntN(256))
		}
		want := make([]float64, l.cols*l.rows)
		for y := range h {
			for x := range w {
				want[int(l.rowCell[y])*l.cols+int(l.colCell[x])] += float64(l.weight(x, y)) * float64(pix[y*w+x])
			}
		}
		got := make([]float64, len(want))
		l.project(pix, got)
		for k := range want {
			if d := math.Abs(got[k] - want[k]/l.norm[k]); d > 1e-3 {
				t.Fatalf("%d×%d cell %d: projection %.4f, want %.4f", w, h, k, got[k], want[k]/l.norm[k])
			}
		}
	}
}
