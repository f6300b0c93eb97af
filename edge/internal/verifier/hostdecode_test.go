package verifier

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/imagex/jpegtest"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/watermark"
)

// markedJPEG is src cropped to w×h (when smaller), carrying a watermark,
// encoded at quality 88.
func markedJPEG(t testing.TB, src []byte, w, h int) []byte {
	t.Helper()
	img, err := imagex.Decode(src, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	m := img.Image
	if b := m.Bounds(); w < b.Dx() || h < b.Dy() {
		m = m.(interface {
			SubImage(image.Rectangle) image.Image
		}).SubImage(image.Rect(b.Min.X, b.Min.Y, b.Min.X+min(w, b.Dx()), b.Min.Y+min(h, b.Dy())))
	}
	marked, err := watermark.Embed(m, 0x1122334455667788)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, marked, &jpeg.Options{Quality: 88}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// hostDecodeCorpus is the files the host-decode tests run: the
// cross-check corpus (shared/testdata/images, every format), watermarked
// photographs cropped to sizes no reduction divides, under every EXIF
// orientation, a grey JPEG, noise, the smoke image, and the first
// photographs of bench/images when present.
func hostDecodeCorpus(t testing.TB) map[string][]byte {
	t.Helper()
	files := map[string][]byte{"noise": noise(t, 641, 479), "smoke image": SmokeImage()}
	read := func(pattern string, n int) {
		names, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for i, name := range names {
			if i == n {
				break
			}
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			files[filepath.Base(name)] = b
		}
	}
	read("../../../shared/testdata/images/*", -1)
	read("../../../bench/images/*.jpg", 3)
	meadow, err := os.ReadFile("../../../shared/watermark/testdata/meadow.jpg")
	if err != nil {
		t.Fatal(err)
	}
	marked := markedJPEG(t, meadow, 1021, 763)
	for o := byte(1); o <= 8; o++ {
		files["marked, orientation "+string('0'+o)] = jpegtest.WithOrientation(marked, uint16(o), false)
	}
	files["marked, small"] = markedJPEG(t, meadow, 517, 389)
	return files
}

// TestHostDecodeGivesModuleFacts: for every file of the corpus, the
// module's answer to analyze_decoded with the edge's native decode is
// byte for byte its answer to analyze_hashed, which decodes in the
// sandbox (facts, probe, c2pa_manifest and refusals); every JPEG that
// decodes is decoded on the host, no other file is. The files carrying a
// watermark (whose probe holds the chroma) and the turned ones are
// counted, so that the corpus cannot lose them unnoticed.
func TestHostDecodeGivesModuleFacts(t *testing.T) {
	if raceEnabled {
		t.Skip("no concurrency to check under -race; run without it")
	}
	ctx := context.Background()
	w := newWasm(t, WasmConfig{Instances: 1})
	g := w.cur.Load()
	if !g.decoded || !g.hashed {
		t.Fatal("the module does not export analyze_decoded and analyze_hashed")
	}
	var decoded, marked, turned int
	for name, file := range hostDecodeCorpus(t) {
		sum := sha256.Sum256(file)
		want, err := g.call(ctx, "analyze_hashed", sum[:], file)
		if err != nil {
			t.Fatalf("%s: analyze_hashed: %v", name, err)
		}
		parts, ok := hostDecode(file, sum, w.cfg.MemoryBytes)
		info, cerr := imagex.DecodeConfig(file, limits.Default())
		isJPEG := cerr == nil && info.Format == imagex.JPEG
		if ok != (isJPEG && bytes.HasPrefix(want, []byte(`{"ok":true`))) {
			t.Errorf("%s: decoded on the host %v; JPEG %v, module answer %.80s", name, ok, isJPEG, want)
		}
		if !ok {
			continue
		}
		decoded++
		got, err := g.call(ctx, "analyze_decoded", parts...)
		if err != nil {
			t.Fatalf("%s: analyze_decoded: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: analyze_decoded answered\n%.600s\nanalyze_hashed\n%.600s", name, got, want)
		}
		if bytes.Contains(want, []byte(`"local":{`)) {
			marked++
		}
		if info.Orientation > 1 {
			turned++
		}
	}
	if decoded < 10 || marked < 8 || turned < 7 {
		t.Errorf("decoded on the host %d files, %d with a watermark probe, %d turned by EXIF; want ≥ 10, 8, 7", decoded, marked, turned)
	}
}

// TestEnginesAgreeWithHostDecode: the edge's Analyze and Decide with the
// host decode give what they give with the module decoding every file
// (ModuleDecode), and what the compiled-in core gives, for the whole
// corpus, refusals included.
func TestEnginesAgreeWithHostDecode(t *testing.T) {
	if raceEnabled {
		t.Skip("no concurrency to check under -race; run without it")
	}
	ctx := context.Background()
	host := newWasm(t, WasmConfig{Instances: 1})
	sandbox := newWasm(t, WasmConfig{Instances: 1, ModuleDecode: true})
	nat := Native{Limits: limits.Default()}
	corpus := hostDecodeCorpus(t)
	corpus["truncated"] = noise(t, 640, 480)[:900]
	corpus["not an image"] = []byte("%PDF-1.7 hello")
	lookup := []byte(`{"candidates":[]}`)
	for name, file := range corpus {
		var as [3]Analysis
		var errs [3]error
		for i, e := range []Engine{host, sandbox, nat} {
			as[i], errs[i] = e.Analyze(ctx, file)
		}
		var ae *AnalyzeError
		if errors.As(errs[1], &ae) {
			for i, err := range errs {
				var e *AnalyzeError
				if !errors.As(err, &e) || e.Code != ae.Code {
					t.Errorf("%s: engine %d refused with %v, the sandbox with %v", name, i, err, errs[1])
				}
			}
			continue
		}
		if errs[0] != nil || errs[1] != nil || errs[2] != nil {
			t.Fatalf("%s: %v", name, errs)
		}
		if !reflect.DeepEqual(as[0], as[1]) || !reflect.DeepEqual(as[0], as[2]) {
			t.Errorf("%s: facts differ:\nhost decode %+v\nsandbox     %+v\nnative      %+v", name, as[0], as[1], as[2])
			continue
		}
		hv, err1 := host.Decide(ctx, as[0], lookup)
		sv, err2 := sandbox.Decide(ctx, as[1], lookup)
		if err1 != nil || err2 != nil || !reflect.DeepEqual(hv, sv) {
			t.Errorf("%s: verdicts differ: %+v (%v), %+v (%v)", name, hv, err1, sv, err2)
		}
	}
}

// TestHostDecodeKeepsModuleLimits: the native decode takes no file the
// module's limits would refuse (a header over the pixel limit, a decode
// over the instance's memory limit, a truncated file) and no format but
// JPEG: those go to the module, which answers them itself.
func TestHostDecodeKeepsModuleLimits(t *testing.T) {
	photo, err := os.ReadFile("../../../shared/testdata/images/photo.jpg")
	if err != nil {
		t.Fatal(err)
	}
	bomb, err := os.ReadFile("../../../shared/testdata/bombs/jpeg-60000x60000.jpg")
	if err != nil {
		t.Fatal(err)
	}
	png, err := os.ReadFile("../../../shared/testdata/images/photo.png")
	if err != nil {
		t.Fatal(err)
	}
	info, err := imagex.DecodeConfig(photo, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	need := uint64(info.DecodeBytes) + uint64(len(photo))
	for _, tt := range []struct {
		name   string
		file   []byte
		memory uint64
		want   bool
	}{
		{"jpeg within the memory limit", photo, need, true},
		{"jpeg over the memory limit", photo, need - 1, false},
		{"jpeg over the pixel limit", bomb, 4 << 30, false},
		{"truncated jpeg", photo[:len(photo)/3], 4 << 30, false},
		{"png", png, 4 << 30, false},
		{"not an image", []byte(strings.Repeat("x", 100)), 4 << 30, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, ok := hostDecode(tt.file, sha256.Sum256(tt.file), tt.memory); ok != tt.want {
				t.Fatalf("decoded on the host: %v, want %v", ok, tt.want)
			}
		})
	}
}
