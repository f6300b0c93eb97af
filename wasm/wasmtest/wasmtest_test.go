package wasmtest_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/image/draw"

	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/merkle"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/wire"
	"github.com/provenant/provenant/wasm/internal/abi"
	"github.com/provenant/provenant/wasm/internal/testphoto"
	"github.com/provenant/provenant/wasm/wasmtest"
)

var module []byte

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	root, err := wasmtest.RepoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "verifier-wasm")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if module, err = wasmtest.Build(root, dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// load instantiates the module built for this test binary, closed when
// the test or benchmark ends.
func load(t testing.TB) *wasmtest.Module {
	t.Helper()
	ctx := context.Background()
	m, err := wasmtest.Load(ctx, module)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(ctx) })
	return m
}

// shimImports is what the browser's WASI shim (widget/worker.js,
// wasiShim; docs/widget.md, "Imports") provides: the union of the two
// modules' imports (the C2PA module also opens files: path_open and
// path_filestat_get, answered EBADF).
var shimImports = []string{"args_get", "args_sizes_get", "clock_time_get", "environ_get", "environ_sizes_get",
	"fd_close", "fd_fdstat_get", "fd_fdstat_set_flags", "fd_prestat_dir_name", "fd_prestat_get", "fd_read",
	"fd_write", "path_filestat_get", "path_open", "poll_oneoff", "proc_exit", "random_get", "sched_yield"}

// TestShimProvidesImports: the worker's WASI shim defines every import
// of shimImports.
func TestShimProvidesImports(t *testing.T) {
	root, err := wasmtest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	js, err := os.ReadFile(filepath.Join(root, "widget", "worker.js"))
	if err != nil {
		t.Fatal(err)
	}
	shim := string(js)
	if i := strings.Index(shim, "function wasiShim("); i >= 0 {
		shim = shim[i:]
	}
	if i := strings.Index(shim, "\n}\n"); i >= 0 {
		shim = shim[:i]
	}
	for _, name := range shimImports {
		if !strings.Contains(shim, "\n    "+name+":") && !strings.Contains(shim, "\n    "+name+"(") {
			t.Errorf("widget/worker.js's wasiShim does not define %s", name)
		}
	}
}

func TestExportsAndImports(t *testing.T) {
	m := load(t)
	got := m.Exports()
	for _, want := range []string{"_initialize", "alloc", "free", "analyze", "analyze_hashed", "analyze_decoded", "inspect", "sha256", "analyze_pixels", "decide", "verify_proof", "verify_signature", "present"} {
		if !slices.Contains(got, want) {
			t.Errorf("exports %v lack %q", got, want)
		}
	}
	imports, err := wasmtest.Imports(context.Background(), module)
	if err != nil {
		t.Fatal(err)
	}
	// The verifier module imports exactly these, all of them in the
	// browser's WASI shim (shimImports); a new one must be added there
	// first.
	want := []string{"args_get", "args_sizes_get", "clock_time_get", "environ_get", "environ_sizes_get",
		"fd_close", "fd_fdstat_get", "fd_fdstat_set_flags", "fd_prestat_dir_name", "fd_prestat_get", "fd_read",
		"fd_write", "poll_oneoff", "proc_exit", "random_get", "sched_yield"}
	for _, name := range want {
		if !slices.Contains(shimImports, name) {
			t.Errorf("the verifier module imports %s, which the shim does not provide", name)
		}
	}
	var names []string
	for _, imp := range imports {
		mod, name, _ := strings.Cut(imp, ".")
		if mod != "wasi_snapshot_preview1" {
			t.Errorf("import %s: want only wasi_snapshot_preview1", imp)
		}
		names = append(names, name)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if !slices.Equal(names, want) {
		t.Errorf("imports = %v, want %v", names, want)
	}
}

// fixture is a watermarked JPEG signed by a test key, and its record
// anchored as leaf 1 of a 3-leaf batch.
type fixture struct {
	file      []byte
	facts     facts.Facts
	signed    record.Signed
	rec       *record.Record
	candidate wire.LookupCandidate
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	file := testphoto.JPEG(t, testphoto.Marked(t, testphoto.Image(t)), 92, 0)
	f, err := facts.Analyze(file, limits.Default(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if !f.Watermark.Found {
		t.Fatal("fixture: the watermark of the marked JPEG was not found")
	}
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, 32))
	id, _ := record.ParseID("0190f3a1-7b2c-7d4e-8f00-123456789abc")
	rec := &record.Record{ID: id, SHA256: f.SHA256, PerceptualHash: f.PHash, SignerPublicKey: priv.Public().(ed25519.PublicKey),
		Timestamp: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC), OriginType: "camera_image", Org: "Example News",
		WatermarkPayload: binary.BigEndian.AppendUint64(nil, 0x0123456789abcdef)}
	sg, err := record.Sign(priv, rec)
	if err != nil {
		t.Fatal(err)
	}
	tree := merkle.Build([]merkle.Hash{merkle.LeafHash([]byte("a")), sg.LeafHash(), merkle.LeafHash([]byte("c"))})
	path, err := tree.InclusionProof(1)
	if err != nil {
		t.Fatal(err)
	}
	wa := &wire.Anchor{BatchID: "4", LeafIndex: 1, TreeSize: 3, MerkleRoot: tree.Root().String(), TxHash: "0xabc",
		BlockNumber: 17, Network: "provenant-dev", ChainID: 1337}
	for _, h := range path {
		wa.AuditPath = append(wa.AuditPath, h.String())
	}
	c := wire.LookupCandidate{
		RecordID: id.String(), Record: base64.StdEncoding.EncodeToString(sg.Bytes), SignatureHex: hex.EncodeToString(sg.Signature),
		SignerPublicKey: hex.EncodeToString(rec.SignerPublicKey), Source: "sign",
		Signer: wire.Signer{OrgName: "Example News", OrgType: "news", KeyName: "desk", PublicKey: hex.EncodeToString(rec.SignerPublicKey)},
		Origin: wire.Origin{Category: "camera", Code: "camera_image", Label: "Camera image"},
		Status: wire.RecordActive, CreatedAt: "2026-11-22T12:00:00.123456789Z", AnchoredAt: "2026-11-22T12:05:00Z",
		Anchor: wa, AnchorState: wire.AnchorVerified, RootConfirmed: true,
	}
	return fixture{file: file, facts: f, signed: sg, rec: rec, candidate: c}
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decideOut is decide's answer, ok or a failure.
type decideOut struct {
	abi.DecideOut
	Error struct{ Code string } `json:"error"`
}

// TestModuleEqualsNative calls every export through wazero and checks the
// answer byte for byte against the same call made natively, and what the
// answer says.
func TestModuleEqualsNative(t *testing.T) {
	fx := newFixture(t)
	m := load(t)
	ctx := context.Background()
	lim := limits.Default()
	other, err := os.ReadFile("../../shared/testdata/images/other.jpg")
	if err != nil {
		t.Fatal(err)
	}
	revoked := fx.candidate
	revoked.Status, revoked.RevokedAt, revoked.RevokedReason = wire.RecordRevoked, "2026-11-23T08:00:00Z", "key compromised"
	badSig := fx.candidate
	sig := bytes.Clone(fx.signed.Signature)
	sig[0] ^= 1
	badSig.SignatureHex = hex.EncodeToString(sig)
	badProof := fx.candidate
	ba := *badProof.Anchor
	ba.LeafIndex = 2
	badProof.Anchor = &ba
	webp, err := os.ReadFile("../../shared/testdata/images/photo.webp")
	if err != nil {
		t.Fatal(err)
	}
	pixels := pixelsInput(t, fx.file, fx.facts)
	decideIn := func(c ...wire.LookupCandidate) []byte {
		return mustJSON(t, map[string]any{"facts": fx.facts.Wire(), "lookup": wire.LookupResponse{Candidates: c}})
	}
	// factsOfFixture checks an analyze answer: the fixture's facts.
	factsOfFixture := func(t *testing.T, out []byte) {
		var got struct {
			OK    bool       `json:"ok"`
			Facts wire.Facts `json:"facts"`
		}
		json.Unmarshal(out, &got)
		if want := fx.facts.Wire(); !got.OK || got.Facts != want {
			t.Errorf("facts = %+v, want %+v", got.Facts, want)
		}
	}
	for _, tt := range []struct {
		name   string
		export string
		in     []byte
		native func([]byte) []byte
		check  func(t *testing.T, out []byte)
	}{
		{"analyze marked jpeg", "analyze", fx.file, func(b []byte) []byte { return abi.Analyze(b, lim, time.Now()) }, factsOfFixture},
		{"analyze_hashed marked jpeg", "analyze_hashed", append(fx.facts.SHA256[:], fx.file...), func(b []byte) []byte { return abi.AnalyzeHashed(b, lim, time.Now()) }, factsOfFixture},
		{"analyze_hashed short input", "analyze_hashed", make([]byte, abi.DigestSize-1), func(b []byte) []byte { return abi.AnalyzeHashed(b, lim, time.Now()) }, func(t *testing.T, out []byte) {
			if !bytes.Contains(out, []byte(`"code":"bad_input"`)) {
				t.Errorf("got %s, want bad_input", out)
			}
		}},
		{"analyze unrelated jpeg", "analyze", other, func(b []byte) []byte { return abi.Analyze(b, lim, time.Now()) }, func(t *testing.T, out []byte) {
			if !bytes.Contains(out, []byte(`"ok":true`)) || !bytes.Contains(out, []byte(`"found":false`)) {
				t.Errorf("got %s, want ok and no watermark", out)
			}
		}},
		{"analyze not an image", "analyze", []byte("hello"), func(b []byte) []byte { return abi.Analyze(b, lim, time.Now()) }, func(t *testing.T, out []byte) {
			if !bytes.Contains(out, []byte(`"code":"unsupported_format"`)) {
				t.Errorf("got %s, want unsupported_format", out)
			}
		}},
		{"inspect marked jpeg", "inspect", fx.file, func(b []byte) []byte { return abi.Inspect(b, lim) }, func(t *testing.T, out []byte) {
			var got inspectOut
			json.Unmarshal(out, &got)
			pw, ph, _ := facts.PlaneSize(fx.facts.Width, fx.facts.Height)
			if want := fx.facts.Wire(); !got.OK || got.Format != "jpeg" || got.Width != want.Width || got.Height != want.Height || got.Orientation != 1 ||
				got.PlaneWidth != pw || got.PlaneHeight != ph || !got.HostDecode {
				t.Errorf("got %s, want the facts' size, orientation 1, plane %d×%d, host_decode", out, pw, ph)
			}
		}},
		{"sha256", "sha256", fx.file, abi.SHA256, func(t *testing.T, out []byte) {
			if want := fx.facts.Wire().SHA256; !bytes.Contains(out, []byte(`"sha256":"`+want+`"`)) {
				t.Errorf("got %s, want sha256 %s", out, want)
			}
		}},
		{"inspect webp", "inspect", webp, func(b []byte) []byte { return abi.Inspect(b, lim) }, func(t *testing.T, out []byte) {
			var got inspectOut
			json.Unmarshal(out, &got)
			if !got.OK || got.Format != "webp" || got.HostDecode {
				t.Errorf("got %s, want webp without host_decode", out)
			}
		}},
		{"inspect not an image", "inspect", []byte("hello"), func(b []byte) []byte { return abi.Inspect(b, lim) }, func(t *testing.T, out []byte) {
			if !bytes.Contains(out, []byte(`"code":"unsupported_format"`)) {
				t.Errorf("got %s, want unsupported_format", out)
			}
		}},
		{"analyze_pixels marked jpeg", "analyze_pixels", pixels, func(b []byte) []byte { return abi.AnalyzePixels(b, lim) }, func(t *testing.T, out []byte) {
			var got struct {
				OK    bool        `json:"ok"`
				Facts wire.Facts  `json:"facts"`
				Local *wire.Probe `json:"local"`
			}
			json.Unmarshal(out, &got)
			want := fx.facts.Wire()
			if !got.OK || got.Facts.SHA256 != want.SHA256 || !got.Facts.Watermark.Found || got.Facts.Watermark.Payload != want.Watermark.Payload ||
				got.Facts.Width != want.Width || got.Local == nil {
				t.Errorf("got %s, want the file's hash, size and watermark with a probe", out)
			}
		}},
		{"analyze_pixels luma", "analyze_pixels", lumaInput(t, fx.file, fx.facts), func(b []byte) []byte { return abi.AnalyzePixels(b, lim) }, func(t *testing.T, out []byte) {
			var got struct {
				OK    bool       `json:"ok"`
				Facts wire.Facts `json:"facts"`
			}
			json.Unmarshal(out, &got)
			// image/jpeg's Y plane is analyze's own decode within one level:
			// the same facts, but for the watermark's strength.
			want := fx.facts.Wire()
			got.Facts.Watermark.Strength = want.Watermark.Strength
			if got.Facts != want {
				t.Errorf("got %s, want analyze's facts %+v", out, want)
			}
		}},
		{"analyze_pixels luma wrong orientation", "analyze_pixels", pixelsHeader(t, map[string]any{"sha256": strings.Repeat("ab", 32), "format": "jpeg", "width": 4, "height": 4, "pixels": "luma", "orientation": 9}),
			func(b []byte) []byte { return abi.AnalyzePixels(b, lim) }, func(t *testing.T, out []byte) {
				if !bytes.Contains(out, []byte(`"code":"bad_input"`)) {
					t.Errorf("got %s, want bad_input", out)
				}
			}},
		{"analyze_pixels one byte short", "analyze_pixels", pixels[:len(pixels)-1], func(b []byte) []byte { return abi.AnalyzePixels(b, lim) }, func(t *testing.T, out []byte) {
			if !bytes.Contains(out, []byte(`"code":"bad_input"`)) {
				t.Errorf("got %s, want bad_input", out)
			}
		}},
		{"analyze_pixels header past the end", "analyze_pixels", []byte{0xff, 0xff, 0, 0, '{'}, func(b []byte) []byte { return abi.AnalyzePixels(b, lim) }, func(t *testing.T, out []byte) {
			if !bytes.Contains(out, []byte(`"code":"bad_input"`)) {
				t.Errorf("got %s, want bad_input", out)
			}
		}},
		{"analyze_pixels too many pixels", "analyze_pixels", pixelsHeader(t, map[string]any{"sha256": strings.Repeat("ab", 32), "format": "jpeg", "width": 100000, "height": 100000}),
			func(b []byte) []byte { return abi.AnalyzePixels(b, lim) }, func(t *testing.T, out []byte) {
				if !bytes.Contains(out, []byte(`"code":"image_too_large"`)) {
					t.Errorf("got %s, want image_too_large", out)
				}
			}},
		{"decide exact anchored", "decide", decideIn(fx.candidate), func(b []byte) []byte { return abi.Decide(b, lim) }, func(t *testing.T, out []byte) {
			var got decideOut
			json.Unmarshal(out, &got)
			if !got.OK || !got.Result.Authentic || got.Match != "exact" || !got.Anchored || got.Result.RecordID != fx.candidate.RecordID {
				t.Errorf("got %s, want authentic exact anchored %s", out, fx.candidate.RecordID)
			}
			if got.Result.Signer == nil || got.Result.Signer.KeyName != "desk" || got.Result.Origin == nil || got.Result.Origin.Label != "Camera image" {
				t.Errorf("signer/origin = %+v/%+v, want the candidate's display fields", got.Result.Signer, got.Result.Origin)
			}
		}},
		{"decide revoked", "decide", decideIn(revoked), func(b []byte) []byte { return abi.Decide(b, lim) }, func(t *testing.T, out []byte) {
			var got decideOut
			json.Unmarshal(out, &got)
			if !got.OK || got.Result.Authentic || !got.Revoked {
				t.Errorf("got %s, want revoked, not authentic", out)
			}
		}},
		{"decide bad signature dropped", "decide", decideIn(badSig), func(b []byte) []byte { return abi.Decide(b, lim) }, func(t *testing.T, out []byte) {
			var got decideOut
			json.Unmarshal(out, &got)
			if !got.OK || got.Result.Authentic || got.Result.RecordID != "" || len(got.Rejected) != 1 || !got.Rejected[0].Dropped {
				t.Errorf("got %s, want no match and the candidate dropped", out)
			}
		}},
		{"decide bad proof", "decide", decideIn(badProof), func(b []byte) []byte { return abi.Decide(b, lim) }, func(t *testing.T, out []byte) {
			var got decideOut
			json.Unmarshal(out, &got)
			if !got.OK || got.Result.Authentic || got.Anchored || len(got.Rejected) != 1 || got.Rejected[0].Dropped {
				t.Errorf("got %s, want not authentic, the proof failure reported", out)
			}
		}},
		{"decide no candidates", "decide", decideIn(), func(b []byte) []byte { return abi.Decide(b, lim) }, func(t *testing.T, out []byte) {
			var got decideOut
			json.Unmarshal(out, &got)
			if !got.OK || got.Result.Authentic || got.Match != "none" {
				t.Errorf("got %s, want match none", out)
			}
		}},
		{"decide unknown field", "decide", []byte(`{"facts":{},"lookup":{},"x":1}`), func(b []byte) []byte { return abi.Decide(b, lim) }, func(t *testing.T, out []byte) {
			if !bytes.Contains(out, []byte(`"code":"bad_input"`)) {
				t.Errorf("got %s, want bad_input", out)
			}
		}},
		{"present revoked", "present", []byte(`{"authentic":false,"confidence":0,"match":"exact","checks":{"sha256":{"passed":false,"details":"exact SHA-256 match with record r1; record r1 was revoked"}},"resembles":{"record_id":"r1","relation":"revoked","claimed_by":"Org A","detail":"d"}}`),
			abi.Present, func(t *testing.T, out []byte) {
				if !bytes.Contains(out, []byte(`"ok":true`)) || !bytes.Contains(out, []byte(`"tone":"not_authentic"`)) ||
					!bytes.Contains(out, []byte(`"name":"sha256","label":"Exact file (SHA-256)","state":"not_applicable"`)) {
					t.Errorf("got %s, want a revoked headline and a neutral sha256 check", out)
				}
			}},
		{"present record only", "present", []byte(`{"verify":{"authentic":true,"confidence":0.98,"match":"exact","checks":{"sha256":{"passed":true,"details":"exact SHA-256 match with record r1"}}},"record_only":true}`),
			abi.Present, func(t *testing.T, out []byte) {
				if !bytes.Contains(out, []byte(`"tone":"caution"`)) || bytes.Contains(out, []byte(`Verified`)) || !bytes.Contains(out, []byte(`Record only`)) {
					t.Errorf("got %s, want the record-only headline", out)
				}
			}},
		{"present decide's output", "present", []byte(`{"ok":true,"result":{"authentic":true,"confidence":0.93,"match":"reencoded","checks":{"watermark":{"passed":true,"details":"watermark payload 01 matches record r1"}}},"match":"reencoded","revoked":false,"anchored":false,"rejected":[]}`),
			abi.Present, func(t *testing.T, out []byte) {
				if !bytes.Contains(out, []byte(`"headline":"Authentic — the same picture, re-encoded or resized"`)) {
					t.Errorf("got %s, want decide's result presented", out)
				}
			}},
		{"present not JSON", "present", []byte(`{`), abi.Present, func(t *testing.T, out []byte) {
			if !bytes.Contains(out, []byte(`"code":"bad_input"`)) {
				t.Errorf("got %s, want bad_input", out)
			}
		}},
		{"verify_signature good", "verify_signature", mustJSON(t, map[string]string{"record": fx.candidate.Record, "signature_hex": fx.candidate.SignatureHex}),
			abi.VerifySignature, func(t *testing.T, out []byte) {
				if !bytes.Contains(out, []byte(`"valid":true`)) || !bytes.Contains(out, []byte(fx.candidate.RecordID)) {
					t.Errorf("got %s, want valid with the record id", out)
				}
			}},
		{"verify_signature bad", "verify_signature", mustJSON(t, map[string]string{"record": badSig.Record, "signature_hex": badSig.SignatureHex}),
			abi.VerifySignature, func(t *testing.T, out []byte) {
				if !bytes.Contains(out, []byte(`"valid":false`)) {
					t.Errorf("got %s, want not valid", out)
				}
			}},
		{"verify_proof good", "verify_proof", mustJSON(t, map[string]any{"record": fx.candidate.Record, "signature_hex": fx.candidate.SignatureHex, "anchor": fx.candidate.Anchor}),
			func(b []byte) []byte { return abi.VerifyProof(b, lim) }, func(t *testing.T, out []byte) {
				if !bytes.Contains(out, []byte(`"valid":true`)) {
					t.Errorf("got %s, want valid", out)
				}
			}},
		{"verify_proof wrong index", "verify_proof", mustJSON(t, map[string]any{"leaf_hash": fx.signed.LeafHash().String(), "anchor": badProof.Anchor}),
			func(b []byte) []byte { return abi.VerifyProof(b, lim) }, func(t *testing.T, out []byte) {
				if !bytes.Contains(out, []byte(`"valid":false`)) {
					t.Errorf("got %s, want not valid", out)
				}
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := m.Call(ctx, tt.export, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if want := tt.native(tt.in); !bytes.Equal(got, want) {
				t.Errorf("module answered\n%s\nnative answered\n%s", got, want)
			}
			tt.check(t, got)
		})
	}
}

type inspectOut struct {
	OK          bool   `json:"ok"`
	Format      string `json:"format"`
	Orientation int    `json:"orientation"`
	Width       int    `json:"width"`
	Height      int    `json:"height"`
	PlaneWidth  int    `json:"plane_width"`
	PlaneHeight int    `json:"plane_height"`
	HostDecode  bool   `json:"host_decode"`
}

// pixelsHeader is an analyze_pixels input of header h and no pixels.
func pixelsHeader(t testing.TB, h any) []byte {
	t.Helper()
	j := mustJSON(t, h)
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(j))), j...)
}

// pixelsInput is the analyze_pixels input a browser would build for the
// JPEG file with facts f: its pixels decoded (here by image/jpeg) at
// facts.PlaneSize as RGBA.
func pixelsInput(t testing.TB, file []byte, f facts.Facts) []byte {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	pw, ph, _ := facts.PlaneSize(f.Width, f.Height)
	rgba := image.NewNRGBA(image.Rect(0, 0, pw, ph))
	draw.ApproxBiLinear.Scale(rgba, rgba.Bounds(), img, img.Bounds(), draw.Src, nil)
	w := f.Wire()
	return append(pixelsHeader(t, map[string]any{"sha256": w.SHA256, "format": w.Format, "width": w.Width, "height": w.Height}), rgba.Pix...)
}

// lumaInput is the analyze_pixels input of a browser that decoded the
// JPEG file with facts f into its Y plane (here image/jpeg's).
func lumaInput(t testing.TB, file []byte, f facts.Facts) []byte {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	y := img.(*image.YCbCr)
	pix := make([]byte, 0, f.Width*f.Height)
	for row := 0; row < f.Height; row++ {
		pix = append(pix, y.Y[row*y.YStride:row*y.YStride+f.Width]...)
	}
	w := f.Wire()
	return append(pixelsHeader(t, map[string]any{"sha256": w.SHA256, "format": w.Format, "width": w.Width, "height": w.Height,
		"pixels": "luma", "orientation": 1}), pix...)
}

// TestBuffersAreReleased checks that alloc/free leave no buffer behind:
// many calls do not grow the module's memory without bound.
func TestBuffersAreReleased(t *testing.T) {
	m := load(t)
	ctx := context.Background()
	in := bytes.Repeat([]byte{'x'}, 1<<20)
	for range 5 {
		if _, err := m.Call(ctx, "analyze", in); err != nil {
			t.Fatal(err)
		}
	}
	before := m.MemoryBytes()
	for range 40 {
		if _, err := m.Call(ctx, "analyze", in); err != nil {
			t.Fatal(err)
		}
	}
	if after := m.MemoryBytes(); after > before+8<<20 {
		t.Errorf("memory grew from %d to %d bytes over 40 calls of 1 MiB: buffers are kept", before, after)
	}
}
