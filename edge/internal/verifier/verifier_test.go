package verifier

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/wasm/wasmtest"
)

// module builds verifier.wasm from this checkout once per test binary.
var module = sync.OnceValues(wasmtest.BuildFromCheckout)

// sharedCacheDir is where the tests keep wazero's compiled code for
// module when they name no cache of their own: the directory the edge's
// server tests use, so the module is compiled once per machine and
// version, not once per test (minutes each under the race detector).
// Other builds' directories unused for a day are removed.
func sharedCacheDir(t testing.TB, module []byte) string {
	t.Helper()
	dir, err := wasmtest.CacheDir(filepath.Join(os.TempDir(), "provenant-edge-test-wazero"), module)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func newWasm(t testing.TB, cfg WasmConfig) *Wasm {
	t.Helper()
	b, err := module()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Module = b
	if cfg.CacheDir == "" {
		cfg.CacheDir = sharedCacheDir(t, b)
	}
	if cfg.Instances == 0 {
		cfg.Instances = 2
	}
	if cfg.MemoryBytes == 0 {
		cfg.MemoryBytes = 1 << 30
	}
	w, err := NewWasm(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close(context.Background()) })
	return w
}

// noise returns a w×h JPEG of textured noise (big decoded, small encoded
// it is not: the point is the pixel count).
func noise(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := uint8((x*7 ^ y*13) & 0xff)
			img.Set(x, y, color.RGBA{v, v / 2, 255 - v, 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestEnginesAgree: the module in wazero and the compiled-in core give the
// same facts, probe, refusal code and verdict for the same inputs.
func TestEnginesAgree(t *testing.T) {
	if raceEnabled {
		// It compares outputs on one goroutine, so the race detector has
		// nothing to watch, and it compiles the module into a fresh cache
		// (minutes under -race). Swap and the instance pool stay covered.
		t.Skip("no concurrency to check under -race; run without it")
	}
	ctx := context.Background()
	w := newWasm(t, WasmConfig{CacheDir: t.TempDir()})
	n := Native{Limits: limits.Default()}
	for _, tt := range []struct {
		name string
		file []byte
		code string
	}{
		{"jpeg", noise(t, 640, 480), ""},
		{"smoke image", SmokeImage(), ""},
		{"not an image", []byte("%PDF-1.7 hello"), CodeUnsupported},
		{"truncated jpeg", noise(t, 640, 480)[:900], CodeInvalidImage},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wa, werr := w.Analyze(ctx, tt.file)
			na, nerr := n.Analyze(ctx, tt.file)
			if tt.code != "" {
				var we, ne *AnalyzeError
				if !errors.As(werr, &we) || !errors.As(nerr, &ne) || we.Code != tt.code || ne.Code != tt.code {
					t.Fatalf("refusals: wasm %v, native %v; want code %s from both", werr, nerr, tt.code)
				}
				return
			}
			if werr != nil || nerr != nil {
				t.Fatalf("wasm %v, native %v", werr, nerr)
			}
			if !reflect.DeepEqual(wa, na) {
				t.Fatalf("facts differ:\nwasm   %+v\nnative %+v", wa, na)
			}
			lookup := []byte(`{"candidates":[]}`)
			wv, werr := w.Decide(ctx, wa, lookup)
			nv, nerr := n.Decide(ctx, na, lookup)
			if werr != nil || nerr != nil {
				t.Fatalf("decide: wasm %v, native %v", werr, nerr)
			}
			if !reflect.DeepEqual(wv, nv) || wv.Authentic {
				t.Fatalf("verdicts differ or authentic:\nwasm   %+v\nnative %+v", wv, nv)
			}
		})
	}
}

// bigPNG is a w×h PNG of a smooth pattern (small on the wire, w×h×4 bytes
// decoded).
func bigPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x / 16), uint8(y / 12), 128, 255})
		}
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestOutOfMemoryDiscardsInstance: a file that needs more memory than an
// instance may have fails with ErrOutOfMemory; the instance is discarded
// and the next call, on a fresh one, succeeds.
func TestOutOfMemoryDiscardsInstance(t *testing.T) {
	ctx := context.Background()
	w := newWasm(t, WasmConfig{Instances: 1, MemoryBytes: 24 << 20})
	// A PNG: verification decodes a JPEG's luminance at reduced size, so
	// a JPEG this size no longer needs the memory; a PNG is decoded whole.
	big := bigPNG(t, 4000, 3000)
	_, err := w.Analyze(ctx, big)
	if !errors.Is(err, ErrOutOfMemory) || !errors.Is(err, ErrEngine) {
		t.Fatalf("12 MP under a 24 MiB limit: err = %v, want ErrOutOfMemory", err)
	}
	for i := 0; i < 2; i++ {
		if _, err := w.Analyze(ctx, SmokeImage()); err != nil {
			t.Fatalf("call %d after the failure: %v", i, err)
		}
	}
}

// TestSwap: a swap to a module that fails its smoke test keeps the
// current one; a good module is swapped in and calls keep working.
func TestSwap(t *testing.T) {
	ctx := context.Background()
	w := newWasm(t, WasmConfig{})
	before := w.Name()
	if _, err := w.Swap(ctx, []byte("\x00asm\x01\x00\x00\x00")); err == nil {
		t.Fatal("swap to an empty module succeeded")
	}
	if w.Name() != before {
		t.Fatalf("name %s after a failed swap, want %s", w.Name(), before)
	}
	b, _ := module()
	if _, err := w.Swap(ctx, b); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Analyze(ctx, SmokeImage()); err != nil {
		t.Fatal(err)
	}
}

// TestAnalyzeWithoutNewerExport: a module built before analyze_hashed
// (an edge started against an older origin) is asked with analyze, which
// hashes in the sandbox, and one built before analyze_decoded with
// analyze_hashed; each answers exactly as the newer call does.
func TestAnalyzeWithoutNewerExport(t *testing.T) {
	for _, tt := range []struct {
		export string
		cfg    WasmConfig
		drop   func(*generation)
	}{
		{"analyze_hashed", WasmConfig{}, func(g *generation) { g.hashed = false }},
		{"analyze_decoded", WasmConfig{Instances: 1}, func(g *generation) { g.decoded = false }},
	} {
		t.Run(tt.export, func(t *testing.T) {
			w := newWasm(t, tt.cfg)
			file := noise(t, 640, 480)
			want, err := w.Analyze(context.Background(), file)
			if err != nil {
				t.Fatal(err)
			}
			tt.drop(w.cur.Load())
			got, err := w.Analyze(context.Background(), file)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("without %s: %+v (%v), want %+v", tt.export, got, err, want)
			}
		})
	}
}

// TestAnalyzeHashesOnTheHost: the module of this checkout exports
// analyze_hashed, so the edge hashes files natively, and the facts carry
// the file's own SHA-256 (TestEnginesAgree compares all the facts).
func TestAnalyzeHashesOnTheHost(t *testing.T) {
	w := newWasm(t, WasmConfig{})
	if !w.cur.Load().hashed {
		t.Fatal("the module does not export analyze_hashed: files are hashed in the sandbox")
	}
	file := noise(t, 640, 480)
	a, err := w.Analyze(context.Background(), file)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(file); a.Facts.SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("facts sha256 %s, want the file's %x", a.Facts.SHA256, sum)
	}
}
