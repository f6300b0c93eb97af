//go:build turbo && cgo

package content

import (
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"math"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"golang.org/x/image/draw"

	"github.com/provenant/provenant/internal/cputime"
	"github.com/provenant/provenant/internal/turbojpeg"
	"github.com/provenant/provenant/origin/internal/accounts"
	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/origin/internal/testkit"
	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/localsig"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/watermark"
)

// Tolerances between a pure-Go and a TurboJPEG sign of the same upload
// with the same payload (docs/testing.md, "The turbo build"): the
// payload extracted from either output is the record's; their perceptual
// hashes differ by at most codecHashBits of 256 and codecHash64Bits of
// 64 bits (the near-match threshold is phash.NearDistance256); the
// outputs are within codecMinPSNR of each other.
const (
	codecHashBits   = 8
	codecHash64Bits = 2
	codecMinPSNR    = 42.0
)

// codecSigner signs through one Service per codec, each over its own
// store and with the same deterministic random stream, so that both draw
// the same payloads.
type codecSigner struct {
	owners map[string]owner
	svcs   map[string]*Service
}

func newCodecSigner(tb testing.TB, seed uint64) *codecSigner {
	tb.Helper()
	cs := &codecSigner{owners: map[string]owner{}, svcs: map[string]*Service{}}
	var s [32]byte
	binary.LittleEndian.PutUint64(s[:], seed)
	for _, c := range []imagex.JPEGCodec{imagex.StdJPEG{}, turbojpeg.Codec{}} {
		st, clk, acc, ks := newDeps(tb)
		ctx := context.Background()
		u, err := acc.Register(ctx, accounts.RegisterInput{Email: "codec@example.com", Password: "correct horse battery", OrgName: "Codec News", OrgType: "news_org"})
		if err != nil {
			tb.Fatal(err)
		}
		k, err := ks.CreateSigningKey(ctx, u.ID, keys.CreateSigningKeyInput{Name: "Camera", OriginType: "camera_image"})
		if err != nil {
			tb.Fatal(err)
		}
		svc, err := New(Config{Store: st, Keys: ks, Accounts: acc, Clock: clk, Rand: mrand.NewChaCha8(s),
			Chain: ChainConfig{Queue: anchor.NewQueue(clk), Proofs: pendingProofs{anchor.NewProver(st)}}, Media: MediaConfig{JPEG: c}})
		if err != nil {
			tb.Fatal(err)
		}
		cs.owners[c.Name()], cs.svcs[c.Name()] = owner{id: u.ID, keyID: k.ID, key: k}, svc
	}
	return cs
}

func (cs *codecSigner) sign(tb testing.TB, codec string, file []byte) *SignResult {
	tb.Helper()
	o := cs.owners[codec]
	res, err := cs.svcs[codec].Sign(context.Background(), SignInput{Owner: o.id, SigningKeyID: o.keyID, File: file, Filename: "photo.jpg"})
	if err != nil {
		tb.Fatalf("sign with %s: %v", codec, err)
	}
	return res
}

// codecPSNR is the PSNR in dB between two pictures' luminance (where
// the watermark lives) and, separately, their chroma.
func codecPSNR(tb testing.TB, a, b []byte) (luma, chroma float64) {
	tb.Helper()
	da, db := testkit.Decode(tb, a), testkit.Decode(tb, b)
	if da.Image.Bounds() != db.Image.Bounds() {
		tb.Fatalf("bounds %v and %v", da.Image.Bounds(), db.Image.Bounds())
	}
	r := da.Image.Bounds()
	var sy, sc float64
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			p, q := ycc(da.Image, x, y), ycc(db.Image, x, y)
			sy += sq(float64(p[0]) - float64(q[0]))
			sc += sq(float64(p[1])-float64(q[1])) + sq(float64(p[2])-float64(q[2]))
		}
	}
	n := float64(r.Dx() * r.Dy())
	return psnrOf(sy / n), psnrOf(sc / (2 * n))
}

func ycc(m image.Image, x, y int) [3]uint8 {
	switch t := m.(type) {
	case *image.YCbCr:
		c := t.YCbCrAt(x, y)
		return [3]uint8{c.Y, c.Cb, c.Cr}
	case *image.Gray:
		v := t.GrayAt(x, y).Y
		return [3]uint8{v, 128, 128}
	}
	panic(fmt.Sprintf("decoded JPEG as %T", m))
}

func sq(v float64) float64 { return v * v }

func psnrOf(mse float64) float64 {
	if mse == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/mse)
}

// codecImages are the sign-comparison uploads: the watermark test photos,
// the luminance corpus' 4:4:4, 4:2:2, 4:1:1, progressive and grey files,
// a synthetic photo, and, when CODEC_IMAGES names a directory (the bench
// corpus, bench/images), its JPEGs too.
func codecImages(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	add := func(pattern string) {
		files, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out[filepath.Base(filepath.Dir(f))+"/"+filepath.Base(f)] = b
		}
	}
	add("../../../shared/watermark/testdata/*.jpg")
	for _, n := range []string{"big-q95-444", "big-q90-422", "big-q80-411", "big-prog-420", "big-gray", "big-q20-420"} {
		add("../../../shared/imagex/testdata/luma/" + n + ".jpg")
	}
	out["synthetic"] = photo(t, 5, 1200, 800)
	if dir := os.Getenv("CODEC_IMAGES"); dir != "" {
		add(filepath.Join(dir, "*.jpg"))
	}
	if len(out) < 11 {
		t.Fatalf("%d images", len(out))
	}
	return out
}

// TestSignCodecsAgree signs every upload with both codecs and the same
// payload: both outputs carry the record's payload as verification
// extracts it, have the same quality and size, perceptual hashes within
// the tolerance, and are within codecMinPSNR of each other.
func TestSignCodecsAgree(t *testing.T) {
	imgs := codecImages(t)
	names := make([]string, 0, len(imgs))
	for n := range imgs {
		names = append(names, n)
	}
	sort.Strings(names)
	var worstPSNR = math.Inf(1)
	worstBits, found := 0, 0
	for i, name := range names {
		t.Run(name, func(t *testing.T) {
			cs := newCodecSigner(t, uint64(i)+1)
			g := cs.sign(t, "go", imgs[name])
			tj := cs.sign(t, "turbojpeg", imgs[name])
			if g.Record.WatermarkPayloadHex == "" || g.Record.WatermarkPayloadHex != tj.Record.WatermarkPayloadHex {
				t.Fatalf("payloads %q and %q: the two signers should draw the same", g.Record.WatermarkPayloadHex, tj.Record.WatermarkPayloadHex)
			}
			if g.Record.JPEGQuality != tj.Record.JPEGQuality || g.ContentType != tj.ContentType || g.Record.Width != tj.Record.Width || g.Record.Height != tj.Record.Height {
				t.Fatalf("go q%d %s %dx%d, turbo q%d %s %dx%d", g.Record.JPEGQuality, g.ContentType, g.Record.Width, g.Record.Height,
					tj.Record.JPEGQuality, tj.ContentType, tj.Record.Width, tj.Record.Height)
			}
			if q, ok := EstimateJPEGQuality(tj.File); !ok || q != tj.Record.JPEGQuality {
				t.Errorf("turbo output estimates as q%d (%v), signed at q%d", q, ok, tj.Record.JPEGQuality)
			}
			// Verification's extraction finds the same payload in both
			// outputs, the record's; where it misses the pure-Go output
			// (a heavily quantised small upload), the turbo one may miss too.
			var fs [2]facts.Facts
			for k, res := range []*SignResult{g, tj} {
				f, err := facts.Analyze(res.File, limits.Default(), time.Now())
				if err != nil {
					t.Fatal(err)
				}
				if f.Watermark.Found && fmt.Sprintf("%x", f.Watermark.Payload) != res.Record.WatermarkPayloadHex {
					t.Fatalf("%s output: payload %x, record %s", []string{"go", "turbo"}[k], f.Watermark.Payload, res.Record.WatermarkPayloadHex)
				}
				fs[k] = f
			}
			if fs[0].Watermark.Found && !fs[1].Watermark.Found {
				t.Fatalf("watermark found in the pure-Go output, not in the turbo one (%+v)", fs[1].Watermark)
			}
			if fs[0].Watermark.Found {
				found++
			} else {
				t.Logf("no watermark found in either output (pure Go: %+v; turbo: %+v)", fs[0].Watermark, fs[1].Watermark)
			}
			gh, err := phash.Parse(g.Record.PerceptualHash)
			if err != nil {
				t.Fatal(err)
			}
			th, err := phash.Parse(tj.Record.PerceptualHash)
			if err != nil {
				t.Fatal(err)
			}
			d256, d64 := phash.Distance256(gh.P256, th.P256), phash.Distance64(gh.P64, th.P64)
			v256 := phash.Distance256(fs[0].PHash.P256, fs[1].PHash.P256)
			ly, lc := codecPSNR(t, g.File, tj.File)
			t.Logf("q%d: record hash distance %d/256 %d/64, verify-side %d/256; PSNR luma %.1f dB chroma %.1f dB; bytes go %d turbo %d; bit errors go %d turbo %d",
				g.Record.JPEGQuality, d256, d64, v256, ly, lc, len(g.File), len(tj.File), fs[0].Watermark.BitErrors, fs[1].Watermark.BitErrors)
			if d256 > codecHashBits || d64 > codecHash64Bits || v256 > codecHashBits {
				t.Errorf("hash distance %d/256 %d/64 (verify %d/256), tolerance %d and %d", d256, d64, v256, codecHashBits, codecHash64Bits)
			}
			if ly < codecMinPSNR || lc < codecMinPSNR {
				t.Errorf("PSNR between the outputs: luma %.1f dB, chroma %.1f dB, want ≥ %.0f", ly, lc, codecMinPSNR)
			}
			worstPSNR = min(worstPSNR, ly, lc)
			worstBits = max(worstBits, d256)
		})
	}
	t.Logf("%d images, watermark found in %d: worst PSNR %.1f dB, worst hash distance %d/256", len(names), found, worstPSNR, worstBits)
	if found < len(names)-1 {
		t.Errorf("watermark found in %d outputs of %d", found, len(names))
	}
}

// benchJPEG returns a JPEG of about mp megapixels at quality 90: a photo
// of the bench corpus (CODEC_IMAGES) scaled to that size, or the synthetic
// photo when none is given.
func benchJPEG(b *testing.B, mp float64) []byte {
	b.Helper()
	var src image.Image
	if dir := os.Getenv("CODEC_IMAGES"); dir != "" {
		files, _ := filepath.Glob(filepath.Join(dir, "plasma*.jpg"))
		best, bestFile := 0, []byte(nil)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			info, err := imagex.DecodeConfig(data, limits.Default())
			if err == nil && info.Width*info.Height > best {
				best, bestFile = info.Width*info.Height, data
			}
		}
		if bestFile != nil {
			src = testkit.Decode(b, bestFile).Image
		}
	}
	if src == nil {
		src = testkit.DecodeJPEG(b, testkit.ReadFile(b, "../../../shared/watermark/testdata/meadow.jpg"))
	}
	r := src.Bounds()
	scale := math.Sqrt(mp * 1e6 / float64(r.Dx()*r.Dy()))
	dst := image.NewRGBA(image.Rect(0, 0, int(float64(r.Dx())*scale+0.5), int(float64(r.Dy())*scale+0.5)))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, r, draw.Src, nil)
	return testkit.EncodeJPEG(b, dst, 90)
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkSignCodecs signs the same upload alternately with the pure-Go
// and the TurboJPEG codec and reports each one's median sign latency
// (Service.Sign, store commit included), wall and process CPU time, and
// their ratios, so that the floor (pure Go) is measured in the same run. Use -benchtime Nx with N
// even; CODEC_IMAGES=bench/images scales a corpus photo instead of a test
// photo.
//
//	go test -tags turbo ./origin/internal/content -run '^$' -bench SignCodecs -benchtime 16x
func BenchmarkSignCodecs(b *testing.B) {
	for _, mp := range []float64{4, 12} {
		b.Run(fmt.Sprintf("%gMP", mp), func(b *testing.B) {
			file := benchJPEG(b, mp)
			cs := newCodecSigner(b, 1)
			cs.sign(b, "go", file) // warm up both paths
			cs.sign(b, "turbojpeg", file)
			wall := map[string][]time.Duration{}
			cpu := map[string][]time.Duration{}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				codec := []string{"go", "turbojpeg"}[i%2]
				start, c0 := time.Now(), cputime.Process()
				cs.sign(b, codec, file)
				wall[codec] = append(wall[codec], time.Since(start))
				cpu[codec] = append(cpu[codec], cputime.Process()-c0)
			}
			if len(wall["go"]) == 0 || len(wall["turbojpeg"]) == 0 {
				return
			}
			g, t := median(wall["go"]), median(wall["turbojpeg"])
			gc, tc := median(cpu["go"]), median(cpu["turbojpeg"])
			b.ReportMetric(ms(g), "go-p50-ms")
			b.ReportMetric(ms(t), "turbo-p50-ms")
			b.ReportMetric(float64(g)/float64(t), "speedup")
			b.ReportMetric(ms(gc), "go-cpu-p50-ms")
			b.ReportMetric(ms(tc), "turbo-cpu-p50-ms")
			b.ReportMetric(float64(gc)/float64(tc), "cpu-speedup")
		})
	}
}

// BenchmarkSignStages breaks a sign down into its image stages, each a
// median of process CPU time in the same run for both codecs: the decode, the look-before-
// marking facts (perceptual hash and watermark search on the upload), the
// embed, the encode, and the hash and local signatures of the output.
//
//	go test -tags turbo ./origin/internal/content -run '^$' -bench SignStages -benchtime 8x
func BenchmarkSignStages(b *testing.B) {
	for _, mp := range []float64{4, 12} {
		b.Run(fmt.Sprintf("%gMP", mp), func(b *testing.B) {
			file := benchJPEG(b, mp)
			stages := map[string][]time.Duration{}
			lap := func(name string, start time.Duration) time.Duration {
				now := cputime.Process()
				stages[name] = append(stages[name], now-start)
				return now
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for _, c := range []imagex.JPEGCodec{imagex.StdJPEG{}, turbojpeg.Codec{}} {
					t := cputime.Process()
					img, err := imagex.DecodeWith(file, limits.Default(), c)
					if err != nil {
						b.Fatal(err)
					}
					t = lap(c.Name()+"/decode", t)
					if _, err := facts.FromImage(img, [32]byte{}); err != nil {
						b.Fatal(err)
					}
					t = lap(c.Name()+"/facts", t)
					marked, err := watermark.Embed(img.Image, watermark.Payload(0x1234567890abcdef))
					if err != nil {
						b.Fatal(err)
					}
					t = lap(c.Name()+"/embed", t)
					if _, _, _, err := encodeOutput(c, marked, imagex.JPEG, file); err != nil {
						b.Fatal(err)
					}
					t = lap(c.Name()+"/encode", t)
					l := imagex.ToLuma(marked)
					if _, err := phash.Compute(l); err != nil {
						b.Fatal(err)
					}
					if _, err := localsig.Compute(l).Encode(); err != nil {
						b.Fatal(err)
					}
					lap(c.Name()+"/hash", t)
				}
			}
			for name, d := range stages {
				b.ReportMetric(ms(median(d)), name+"-ms")
			}
		})
	}
}
