package imagex

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/provenant/provenant/shared/imagex/jpegtest"
	"github.com/provenant/provenant/shared/limits"
)

// lumaCorpus returns the committed JPEGs of testdata/luma (made with
// libjpeg-turbo's cjpeg and ImageMagick, see testdata/luma/README.md)
// plus the shared test images, by name.
func lumaCorpus(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	paths, _ := filepath.Glob(filepath.Join("testdata", "luma", "*.jpg"))
	more, _ := filepath.Glob(filepath.Join("..", "testdata", "images", "*.jpg"))
	for _, p := range append(paths, more...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = b
	}
	if len(out) < 30 {
		t.Fatalf("luma corpus has %d files", len(out))
	}
	return out
}

// generatedJPEGs are image/jpeg encodings (baseline 4:2:0, or grey) of a
// textured picture across qualities and odd sizes.
func generatedJPEGs(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, sz := range [][2]int{{1, 1}, {7, 13}, {16, 16}, {33, 17}, {129, 65}, {250, 11}} {
		for _, q := range []int{10, 50, 90, 100} {
			rgba := image.NewRGBA(image.Rect(0, 0, sz[0], sz[1]))
			for i := range rgba.Pix {
				x, y := (i/4)%sz[0], (i/4)/sz[0]
				rgba.Pix[i] = uint8(x*7 + y*13 + (x*y)%29 + (i%4)*60)
			}
			var buf bytes.Buffer
			if err := jpeg.Encode(&buf, rgba, &jpeg.Options{Quality: q}); err != nil {
				t.Fatal(err)
			}
			out[fmt.Sprintf("gen-%dx%d-q%d", sz[0], sz[1], q)] = bytes.Clone(buf.Bytes())
			g := image.NewGray(rgba.Rect)
			for i := range g.Pix {
				g.Pix[i] = rgba.Pix[4*i+1]
			}
			buf.Reset()
			if err := jpeg.Encode(&buf, g, &jpeg.Options{Quality: q}); err != nil {
				t.Fatal(err)
			}
			out[fmt.Sprintf("gen-gray-%dx%d-q%d", sz[0], sz[1], q)] = bytes.Clone(buf.Bytes())
		}
	}
	return out
}

func sortedNames(m map[string][]byte) []string {
	var names []string
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// lumaDiff returns the largest and mean absolute difference of two planes
// of the same size, over the top-left w×h pixels.
func lumaDiff(a, b *Luma, w, h int) (maxd int, mean float64) {
	sum := 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			d := int(a.At(x, y)) - int(b.At(x, y))
			if d < 0 {
				d = -d
			}
			sum += d
			maxd = max(maxd, d)
		}
	}
	if w*h > 0 {
		mean = float64(sum) / float64(w*h)
	}
	return maxd, mean
}

// groupMean is the area average of ref over s×s groups aligned with the
// 8×8 blocks, for the groups wholly inside ref (the reduced decode's last
// row and column also cover the encoder's padding).
func groupMean(ref *Luma, s int) *Luma {
	w, h := ref.Width/s, ref.Height/s
	out := &Luma{Width: w, Height: h, Stride: w, Pix: make([]uint8, w*h)}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			sum := 0
			for j := 0; j < s; j++ {
				for i := 0; i < s; i++ {
					sum += int(ref.At(x*s+i, y*s+j))
				}
			}
			out.Pix[y*w+x] = uint8((sum + s*s/2) / (s * s))
		}
	}
	return out
}

// Tolerances of the reduced decode against the area average of image/jpeg's
// full decode over the same pixels (groupMean). The reduced transforms
// average the unclipped block exactly (TestIDCTMatchesDefinition), so the
// differences are rounding and, where the full decode clips ringing past
// 0 or 255 (hard edges, saturated synthetic textures), the clipped part.
// Worst over this corpus: mean 1.53 / 1.28 / 0.68 levels at 1/2, 1/4, 1/8,
// PSNR at least 35 dB; photographs are far below (mean ≤ 0.2).
var scaledTolerance = map[int]struct{ mean, psnr float64 }{
	2: {mean: 2, psnr: 33},
	4: {mean: 2, psnr: 35},
	8: {mean: 1, psnr: 35},
}

func psnr(a, b *Luma) float64 {
	var ss float64
	for y := 0; y < a.Height; y++ {
		for x := 0; x < a.Width; x++ {
			d := float64(a.At(x, y)) - float64(b.At(x, y))
			ss += d * d
		}
	}
	if ss == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255*float64(a.Width*a.Height)/ss)
}

// imageJPEGRefuses are valid files (libjpeg-turbo writes and reads them)
// that image/jpeg refuses: progressive scans with restart intervals.
// DecodeLuma accepts them; Decode does not.
var imageJPEGRefuses = map[string]bool{"big-prog-422-rst.jpg": true, "mid-prog-rst-420.jpg": true}

// TestLumaDecodeMatchesImageJPEG is the differential test: every corpus
// JPEG the luminance decoder handles decodes at full size to image/jpeg's
// Y plane within one level, and at 1/2, 1/4 and 1/8 to the area average of
// that plane within scaledTolerance; the ones it does not handle are
// refused as unsupported, never decoded wrongly.
func TestLumaDecodeMatchesImageJPEG(t *testing.T) {
	files := lumaCorpus(t)
	for n, b := range generatedJPEGs(t) {
		files[n] = b
	}
	unsupported := map[string]bool{"mid-arith.jpg": true, "mid-cmyk.jpg": true, "mid-rgb.jpg": true}
	for _, name := range sortedNames(files) {
		b := files[name]
		t.Run(name, func(t *testing.T) {
			m, refErr := jpeg.Decode(bytes.NewReader(b))
			if twin, ok := files[strings.TrimSuffix(name, ".jpg")+"-transcoded.jpg"]; ok && imageJPEGRefuses[name] {
				// image/jpeg refuses this valid file; its twin (jpegtran,
				// same coefficients, no restart intervals) is the reference.
				if refErr == nil {
					t.Fatal("image/jpeg now decodes it: drop it from imageJPEGRefuses")
				}
				m, refErr = jpeg.Decode(bytes.NewReader(twin))
			}
			got, err := decodeJPEGLuma(b, 1, 1<<28)
			if unsupported[name] {
				if !errors.Is(err, errLumaUnsupported) {
					t.Fatalf("want errLumaUnsupported, got %v", err)
				}
				return
			}
			if refErr != nil {
				t.Fatalf("image/jpeg: %v", refErr)
			}
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			ref := ToLuma(m)
			if got.Width != ref.Width || got.Height != ref.Height {
				t.Fatalf("size %d×%d, image/jpeg %d×%d", got.Width, got.Height, ref.Width, ref.Height)
			}
			if d, _ := lumaDiff(ref, got, ref.Width, ref.Height); d > 1 {
				t.Fatalf("full size differs from image/jpeg by %d levels", d)
			}
			for _, s := range []int{2, 4, 8} {
				red, err := decodeJPEGLuma(b, s, 1<<28)
				if err != nil {
					t.Fatalf("1/%d: %v", s, err)
				}
				if red.Width != (ref.Width+s-1)/s || red.Height != (ref.Height+s-1)/s {
					t.Fatalf("1/%d: size %d×%d for %d×%d", s, red.Width, red.Height, ref.Width, ref.Height)
				}
				want := groupMean(ref, s)
				if want.Width == 0 || want.Height == 0 {
					continue
				}
				_, mean := lumaDiff(want, red, want.Width, want.Height)
				p := psnr(want, &Luma{Width: want.Width, Height: want.Height, Stride: red.Stride, Pix: red.Pix})
				tol := scaledTolerance[s]
				if mean > tol.mean || p < tol.psnr {
					t.Errorf("1/%d: mean difference %.2f levels, PSNR %.1f dB (tolerance %.1f, %.0f dB)", s, mean, p, tol.mean, tol.psnr)
				}
			}
		})
	}
}

// TestDecodeLumaErrorsAsDecode: DecodeLuma refuses exactly what Decode
// refuses, with the same sentinel, and for what it accepts gives the
// luminance at the announced scale with the header's dimensions.
func TestDecodeLumaErrorsAsDecode(t *testing.T) {
	files := map[string][]byte{}
	for _, dir := range []string{"images", "bombs"} {
		paths, _ := filepath.Glob(filepath.Join("..", "testdata", dir, "*"))
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			files[dir+"/"+filepath.Base(p)] = b
		}
	}
	for n, b := range lumaCorpus(t) {
		files[n] = b
		files[n+"/truncated"] = b[:len(b)*2/3]
		files[n+"/no-eoi"] = b[:len(b)-2]
		if len(b) > 400 {
			c := bytes.Clone(b)
			c[len(c)/2] ^= 0x5A
			files[n+"/flipped"] = c
		}
	}
	files["empty"] = nil
	tight := limits.Default()
	tight.MaxPixels = 20_000
	sentinels := []error{ErrEmpty, ErrTooLarge, ErrUnsupportedFormat, ErrTooManyPixels, ErrCorrupt}
	for _, name := range sortedNames(files) {
		lims := []limits.Limits{limits.Default(), tight}
		if strings.Contains(name, ".jpg/") {
			lims = lims[:1] // damaged copies: the default limits suffice
		}
		for _, lim := range lims {
			b := files[name]
			full, fullErr := Decode(b, lim)
			got, err := DecodeLuma(b, lim, 64)
			if (err == nil) != (fullErr == nil) {
				// The luminance decoder accepts a few damaged files that
				// image/jpeg refuses (it decodes what is there); never the
				// other way round.
				base, _, _ := strings.Cut(name, "/")
				if err == nil && (imageJPEGRefuses[base] || strings.Contains(name, "/") && !strings.HasPrefix(name, "images/") && !strings.HasPrefix(name, "bombs/")) {
					continue
				}
				t.Fatalf("%s: DecodeLuma error %v, Decode error %v", name, err, fullErr)
			}
			if err != nil {
				for _, s := range sentinels {
					if errors.Is(fullErr, s) != errors.Is(err, s) {
						t.Fatalf("%s: DecodeLuma error %v, Decode error %v", name, err, fullErr)
					}
				}
				continue
			}
			w, h := full.OrientedSize()
			if gw, gh := got.OrientedSize(); gw != w || gh != h {
				t.Fatalf("%s: Info size %d×%d, Decode %d×%d", name, gw, gh, w, h)
			}
			if got.Luma.Width != (w+got.Scale-1)/got.Scale || got.Luma.Height != (h+got.Scale-1)/got.Scale {
				t.Fatalf("%s: plane %d×%d at 1/%d of %d×%d", name, got.Luma.Width, got.Luma.Height, got.Scale, w, h)
			}
			if got.Scale == 1 {
				if d, _ := lumaDiff(ToLuma(full.Image), got.Luma, w, h); d > 1 {
					t.Fatalf("%s: differs from Decode by %d levels", name, d)
				}
			}
		}
	}
}

func TestLumaScale(t *testing.T) {
	for _, tt := range []struct{ w, h, min, want int }{
		{4000, 3000, 512, 4}, {4000, 3000, 256, 8}, {2560, 1600, 512, 2}, {1155, 866, 512, 1},
		{1024, 1024, 512, 2}, {1022, 4000, 512, 1}, {1023, 4000, 512, 2}, {1025, 4000, 512, 2}, {100, 100, 512, 1},
		{8000, 4096, 512, 8}, {1, 1, 1, 8}, {3, 5, 2, 2}, {16, 16, 2, 8},
	} {
		if got := LumaScale(tt.w, tt.h, tt.min); got != tt.want {
			t.Errorf("LumaScale(%d, %d, %d) = %d, want %d", tt.w, tt.h, tt.min, got, tt.want)
		}
	}
}

// TestDecodeLumaOrientation: the plane is turned as Decode turns the
// image, at every scale.
func TestDecodeLumaOrientation(t *testing.T) {
	raw := lumaCorpus(t)["big-q75-420.jpg"]
	lim := limits.Default()
	for o := uint16(1); o <= 8; o++ {
		b := jpegtest.WithOrientation(raw, o, o%2 == 0)
		full, err := Decode(b, lim)
		if err != nil {
			t.Fatal(err)
		}
		ref := ToLuma(full.Image)
		for _, minShort := range []int{1000, 150, 75, 37} {
			got, err := DecodeLuma(b, lim, minShort)
			if err != nil {
				t.Fatal(err)
			}
			s := got.Scale
			if s != LumaScale(full.Width, full.Height, minShort) {
				t.Fatalf("orientation %d: scale %d", o, s)
			}
			if s == 1 {
				if d, _ := lumaDiff(ref, got.Luma, ref.Width, ref.Height); d > 1 {
					t.Fatalf("orientation %d: differs from Decode by %d", o, d)
				}
				continue
			}
			// Reduced: the same as the unturned reduced plane, turned.
			flat, err := decodeJPEGLuma(raw, s, 1<<28)
			if err != nil {
				t.Fatal(err)
			}
			want := orientLuma(flat, int(o))
			if d, _ := lumaDiff(want, got.Luma, want.Width, want.Height); d != 0 || want.Width != got.Luma.Width {
				t.Fatalf("orientation %d at 1/%d: differs", o, s)
			}
			// And close to the area average of the turned full decode.
			g := groupMean(ref, s)
			if _, mean := lumaDiff(g, got.Luma, g.Width, g.Height); (o == 1 || o == 5) && mean > scaledTolerance[s].mean {
				t.Fatalf("orientation %d at 1/%d: mean difference %.2f", o, s, mean)
			}
		}
	}
}

// TestLumaGolden pins the decoder's output bytes (SHA-256 of the plane at
// every scale, and the chroma means), so that native and WebAssembly builds, and later changes,
// give the same planes. UPDATE_LUMA_GOLDEN=1 rewrites the file.
func TestLumaGolden(t *testing.T) {
	files := lumaCorpus(t)
	for name, b := range generatedJPEGs(t) {
		files[name] = b
	}
	plane := func(l *Luma) string {
		if l == nil {
			return "-"
		}
		h := sha256.New()
		for y := 0; y < l.Height; y++ {
			h.Write(l.Pix[y*l.Stride : y*l.Stride+l.Width])
		}
		return fmt.Sprintf("%dx%d %s", l.Width, l.Height, hex.EncodeToString(h.Sum(nil))[:16])
	}
	var lines []string
	for _, name := range sortedNames(files) {
		for _, s := range []int{1, 2, 4, 8} {
			l, cb, cr, err := decodeJPEGLumaChroma(files[name], s, 1<<28)
			if err != nil {
				continue
			}
			lines = append(lines, fmt.Sprintf("%s 1/%d %s", name, s, plane(l)))
			if s == 8 {
				// The chroma means do not depend on the scale.
				lines = append(lines, fmt.Sprintf("%s chroma %s %s", name, plane(cb), plane(cr)))
			}
		}
	}
	got := strings.Join(lines, "\n") + "\n"
	path := filepath.Join("testdata", "luma", "golden.txt")
	if os.Getenv("UPDATE_LUMA_GOLDEN") != "" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("golden line %d: got %q, want %q", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("golden: %d lines, want %d", len(gl), len(wl))
	}
}

// TestIDCTMatchesDefinition checks the integer transforms against the
// floating-point definition of T.81 A.3.3: the full-size block, and the
// mean of the unclipped block over each group of pixels.
func TestIDCTMatchesDefinition(t *testing.T) {
	for k, c := range []int32{0, cos1, cos2, cos3, cos4, cos5, cos6, cos7} {
		if k > 0 && c != int32(math.Round(math.Cos(float64(k)*math.Pi/16)*(1<<idctBits))) {
			t.Fatalf("cos%d constant %d", k, c)
		}
	}
	for u, c := range map[int]int32{1: quad1, 3: quad3, 5: quad5, 7: quad7} {
		var w float64
		for x := 0; x < 4; x++ {
			w += math.Cos(float64(2*x+1) * float64(u) * math.Pi / 16)
		}
		if c != int32(math.Round(w/4*(1<<idctBits))) {
			t.Fatalf("quad%d constant %d, want %.1f", u, c, w/4*(1<<idctBits))
		}
	}
	seed := uint32(1)
	rnd := func(n int32) int32 {
		seed = seed*1664525 + 1013904223
		return int32(seed>>8)%(2*n+1) - n
	}
	worst := map[int]float64{}
	for trial := 0; trial < 500; trial++ {
		var blk [64]int32
		nz := 1 + trial%64
		for i := 0; i < nz; i++ {
			blk[rnd(31)+32] = rnd(300)
		}
		blk[0] = rnd(1000)
		var full [8][8]float64
		for y := 0; y < 8; y++ {
			for x := 0; x < 8; x++ {
				var v float64
				for fv := 0; fv < 8; fv++ {
					for fu := 0; fu < 8; fu++ {
						cu, cv := 1.0, 1.0
						if fu == 0 {
							cu = math.Sqrt2 / 2
						}
						if fv == 0 {
							cv = math.Sqrt2 / 2
						}
						v += cu * cv * float64(blk[fv*8+fu]) *
							math.Cos(float64(2*x+1)*float64(fu)*math.Pi/16) *
							math.Cos(float64(2*y+1)*float64(fv)*math.Pi/16)
					}
				}
				full[y][x] = v/4 + 128
			}
		}
		for _, n := range []int{8, 4, 2, 1} {
			var out [64]uint8
			switch n {
			case 8:
				idct8(&blk, out[:], 8, 8)
			case 4:
				idct4(&blk, out[:], 8, 8)
			case 2:
				idct2(&blk, out[:], 8)
			default:
				out[0] = idct1(blk[0])
			}
			g := 8 / n
			for y := 0; y < n; y++ {
				for x := 0; x < n; x++ {
					var v float64
					for j := 0; j < g; j++ {
						for i := 0; i < g; i++ {
							v += full[y*g+j][x*g+i]
						}
					}
					v /= float64(g * g)
					want := math.Min(255, math.Max(0, v))
					d := math.Abs(float64(out[y*8+x]) - want)
					worst[n] = max(worst[n], d)
					if d > 0.75 {
						t.Fatalf("n=%d trial %d (%d,%d): got %d, want %.2f", n, trial, x, y, out[y*8+x], want)
					}
				}
			}
		}
	}
	t.Logf("largest error against the exact value, per output size: %v", worst)
}

// FuzzDecodeLuma: any bytes give a plane of the announced size within the
// limits or an error wrapping one of the sentinels, never a panic; the
// luminance decoder itself (without DecodeLuma's recover) never panics,
// never allocates past its bound, and accepts everything image/jpeg
// accepts that it handles.
func FuzzDecodeLuma(f *testing.F) {
	addFileSeeds(f, filepath.Join("testdata", "luma"), "tiny-q75-420.jpg", "tiny-prog-444.jpg", "odd-prog-422.jpg", "one-q75-420.jpg",
		"strip-prog-420.jpg", "mid-custom-prog-444.jpg")
	lim := fuzzLimits(4 << 20)
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, s := range []int{1, 2, 8} {
			l, err := decodeJPEGLuma(b, s, lim.MaxDecodeBytes)
			if err != nil {
				continue
			}
			if len(l.Pix) > int(lim.MaxDecodeBytes) || l.Stride < l.Width || len(l.Pix) < (l.Height-1)*l.Stride+l.Width {
				t.Fatalf("1/%d: plane %d×%d stride %d, %d bytes", s, l.Width, l.Height, l.Stride, len(l.Pix))
			}
		}
		img, err := DecodeLuma(b, lim, 8)
		if err != nil {
			for _, s := range []error{ErrEmpty, ErrTooLarge, ErrUnsupportedFormat, ErrTooManyPixels, ErrCorrupt} {
				if errors.Is(err, s) {
					return
				}
			}
			t.Fatalf("DecodeLuma error %v wraps no sentinel", err)
		}
		w, h := img.OrientedSize()
		if int64(w)*int64(h) > lim.MaxPixels || img.Luma.Width != (w+img.Scale-1)/img.Scale || img.Luma.Height != (h+img.Scale-1)/img.Scale {
			t.Fatalf("plane %d×%d at 1/%d for %d×%d", img.Luma.Width, img.Luma.Height, img.Scale, w, h)
		}
	})
}

// TestDownscaleAs: the area average computed from a reduced plane matches
// Downscale of the full decode (exactly for a plane uniform within each
// group; within rounding and in-group detail for a photo), for every
// orientation.
func TestDownscaleAs(t *testing.T) {
	// Exact case: a 37×23 full plane uniform over 4×4 groups counted from
	// the stored origin, reduced by 4, turned by every orientation.
	const W, H, s = 37, 23, 4
	full := &Luma{Width: W, Height: H, Stride: W, Pix: make([]uint8, W*H)}
	red := &Luma{Width: (W + s - 1) / s, Height: (H + s - 1) / s, Stride: (W + s - 1) / s}
	red.Pix = make([]uint8, red.Width*red.Height)
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			v := uint8((x/s)*29 + (y/s)*53)
			full.Pix[y*W+x] = v
			red.Pix[(y/s)*red.Stride+x/s] = v
		}
	}
	for o := 1; o <= 8; o++ {
		fo := orientLuma(full, o)
		img := &LumaImage{Info: Info{Width: W, Height: H, Orientation: o}, Luma: orientLuma(red, o), Scale: s}
		for _, sz := range [][2]int{{16, 16}, {5, 7}, {37, 23}} {
			w, h := sz[0], sz[1]
			if o >= 5 {
				w, h = h, w
			}
			want, got := Downscale(fo, w, h), img.DownscaleAs(w, h)
			if d, _ := lumaDiff(want, got, w, h); d != 0 {
				t.Fatalf("orientation %d, %d×%d: differs by %d", o, w, h, d)
			}
		}
	}
	// A photo: close to the full decode's average.
	raw := lumaCorpus(t)["big-q75-420.jpg"]
	for o := uint16(1); o <= 8; o++ {
		b := jpegtest.WithOrientation(raw, o, false)
		fullImg, err := Decode(b, limits.Default())
		if err != nil {
			t.Fatal(err)
		}
		// Blocks of about 15×10 pixels, at least two groups of 4 wide, as
		// the 256×256 hash blocks are over a plane of short side ≥ 512.
		want := Downscale(ToLuma(fullImg.Image), 32, 32)
		for _, minShort := range []int{150, 75} {
			img, err := DecodeLuma(b, limits.Default(), minShort)
			if err != nil {
				t.Fatal(err)
			}
			_, plain := lumaDiff(want, Downscale(img.Luma, 32, 32), 32, 32)
			_, mean := lumaDiff(want, img.DownscaleAs(32, 32), 32, 32)
			t.Logf("orientation %d at 1/%d: mean difference %.2f (Downscale of the reduced plane: %.2f)", o, img.Scale, mean, plain)
			if mean > 0.75 || mean > plain {
				t.Errorf("orientation %d at 1/%d: mean difference %.2f", o, img.Scale, mean)
			}
		}
	}
}

// TestDecodeLumaInfoIsDecodeLuma: handing DecodeLuma's own header read in
// gives the same image, and a header of another file gives an error or a
// plane, never a panic.
func TestDecodeLumaInfoIsDecodeLuma(t *testing.T) {
	lim := limits.Default()
	files := lumaCorpus(t)
	names := sortedNames(files)
	other, err := DecodeConfig(files[names[0]], lim)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		b := files[name]
		want, werr := DecodeLuma(b, lim, 64)
		info, err := DecodeConfig(b, lim)
		if err != nil {
			if werr == nil {
				t.Fatalf("%s: DecodeConfig fails (%v) where DecodeLuma does not", name, err)
			}
			continue
		}
		got, gerr := DecodeLumaInfo(b, info, lim, 64)
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("%s: error %v, DecodeLuma's %v", name, gerr, werr)
		}
		if gerr == nil && (!reflect.DeepEqual(got.Info, want.Info) || got.Scale != want.Scale ||
			!bytes.Equal(got.Luma.Pix, want.Luma.Pix) || !chromaEqual(got, want)) {
			t.Fatalf("%s: DecodeLumaInfo differs from DecodeLuma", name)
		}
		_, _ = DecodeLumaInfo(b, other, lim, 64)
		// The chroma made on demand is the decoder's, oriented.
		if _, cb, cr, err := decodeJPEGLumaChroma(b, want.Scale, lim.MaxDecodeBytes); werr == nil && err == nil && cb != nil {
			gcb, gcr := want.Chroma()
			if !reflect.DeepEqual(gcb, orientLuma(cb, info.Orientation)) || !reflect.DeepEqual(gcr, orientLuma(cr, info.Orientation)) {
				t.Fatalf("%s: Chroma is not the decoder's chroma", name)
			}
		}
	}
}

// TestIDCTSkipsZeroColumns: a block whose last coded coefficient is at
// position k gives the same bytes with its first pass limited to
// zigzagCols[k] columns as with all eight, at full size and at 1/2.
func TestIDCTSkipsZeroColumns(t *testing.T) {
	for k := range 64 {
		for trial := range 200 {
			var blk [64]int32
			for j := 0; j <= k; j++ {
				// Deterministic spread of magnitudes, extreme ones included.
				v := int32((j*7919+trial*104729+k*31)%4001 - 2000)
				if trial%17 == 0 {
					v *= 1 << 10
				}
				blk[zigzag[j]] = v
			}
			cols := int(zigzagCols[k])
			for c := cols; c < 8; c++ {
				for y := range 8 {
					if blk[8*y+c] != 0 {
						t.Fatalf("k=%d: column %d is not zero", k, c)
					}
				}
			}
			var a, b [64]uint8
			idct8(&blk, a[:], 8, 8)
			idct8(&blk, b[:], 8, cols)
			if a != b {
				t.Fatalf("idct8, last position %d: %d columns differ from 8", k, cols)
			}
			a, b = [64]uint8{}, [64]uint8{}
			idct4(&blk, a[:], 8, 8)
			idct4(&blk, b[:], 8, cols)
			if a != b {
				t.Fatalf("idct4, last position %d: %d columns differ from 8", k, cols)
			}
		}
	}
}

// chromaEqual reports whether a and b have the same chroma planes.
func chromaEqual(a, b *LumaImage) bool {
	acb, acr := a.Chroma()
	bcb, bcr := b.Chroma()
	return reflect.DeepEqual(acb, bcb) && reflect.DeepEqual(acr, bcr)
}

// FuzzIDCTColumns: for any coefficients (two bytes each, little-endian,
// scaled by the third byte as a quantiser would) up to any last coded
// position, the inverse DCTs limited to zigzagCols columns give the bytes
// of the full ones.
func FuzzIDCTColumns(f *testing.F) {
	f.Add(uint8(0), uint8(1), []byte{0x10, 0x00, 0xF0, 0xFF})
	f.Add(uint8(27), uint8(255), bytes.Repeat([]byte{0xFF, 0x7F, 0x00, 0x80}, 32))
	f.Add(uint8(63), uint8(3), []byte("the quick brown fox jumps over the lazy dog, twice over the lazy dog"))
	f.Fuzz(func(t *testing.T, last, q uint8, raw []byte) {
		k := int(last & 63)
		var blk [64]int32
		for j := 0; j <= k && 2*j+1 < len(raw); j++ {
			blk[zigzag[j]] = int32(int16(uint16(raw[2*j])|uint16(raw[2*j+1])<<8)) * int32(q)
		}
		cols := int(zigzagCols[k])
		var a, b [64]uint8
		idct8(&blk, a[:], 8, 8)
		idct8(&blk, b[:], 8, cols)
		if a != b {
			t.Fatalf("idct8 with %d columns differs", cols)
		}
		a, b = [64]uint8{}, [64]uint8{}
		idct4(&blk, a[:], 8, 8)
		idct4(&blk, b[:], 8, cols)
		if a != b {
			t.Fatalf("idct4 with %d columns differs", cols)
		}
	})
}
