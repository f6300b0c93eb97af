package abi

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/c2pa/sniff"
	"github.com/provenant/provenant/shared/digest"
	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/imagex/jpegtest"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/wasm/internal/testphoto"
)

// decodedInput is analyze_decoded's input for file, decoded as a host
// does it (imagex.DecodeLuma with facts.VerifyShortSide).
func decodedInput(t testing.TB, file []byte) []byte {
	t.Helper()
	img, err := imagex.DecodeLuma(file, limits.Default(), facts.VerifyShortSide)
	if err != nil {
		t.Fatal(err)
	}
	sum := digest.Sum256(file)
	h := decodedIn{SHA256: hex.EncodeToString(sum[:]), Format: string(img.Format), Width: img.Width, Height: img.Height,
		Orientation: img.Orientation, Scale: img.Scale, C2PAManifest: sniff.MayCarry(file)}
	planes := compact(img.Luma)
	if cb, cr := img.Chroma(); cb != nil {
		h.ChromaWidth, h.ChromaHeight = cb.Width, cb.Height
		planes = append(append(planes, compact(cb)...), compact(cr)...)
	}
	return decodedRaw(t, h, planes)
}

func decodedRaw(t testing.TB, h any, planes []byte) []byte {
	t.Helper()
	js, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	return append(append(binary.LittleEndian.AppendUint32(nil, uint32(len(js))), js...), planes...)
}

func compact(l *imagex.Luma) []byte {
	var out []byte
	for y := range l.Height {
		out = append(out, l.Pix[y*l.Stride:y*l.Stride+l.Width]...)
	}
	return out
}

// TestAnalyzeDecodedMatchesAnalyze: a watermarked JPEG, upright and under
// every EXIF orientation, decoded on the host and handed over gives
// analyze's output byte for byte (facts, probe with its chroma).
func TestAnalyzeDecodedMatchesAnalyze(t *testing.T) {
	marked := testphoto.JPEG(t, testphoto.Marked(t, testphoto.Image(t)), 88, 0)
	lim := limits.Default()
	at := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	for o := byte(1); o <= 8; o++ {
		file := jpegtest.WithOrientation(marked, uint16(o), false)
		want := Analyze(file, lim, at)
		if !bytes.Contains(want, []byte(`"local":{`)) {
			t.Fatalf("orientation %d: analyze found no watermark: %.300s", o, want)
		}
		if got := AnalyzeDecoded(decodedInput(t, file), lim); !bytes.Equal(got, want) {
			t.Errorf("orientation %d: analyze_decoded\n%.500s\nanalyze\n%.500s", o, got, want)
		}
	}
}

// TestAnalyzeDecodedRefuses: inputs that do not describe a decode the
// module's limits allow are refused with the code analyze would give.
func TestAnalyzeDecodedRefuses(t *testing.T) {
	lim := limits.Default()
	sum := strings.Repeat("ab", 32)
	good := decodedIn{SHA256: sum, Format: "jpeg", Width: 16, Height: 8, Orientation: 1, Scale: 1}
	with := func(f func(*decodedIn)) decodedIn { h := good; f(&h); return h }
	for _, tt := range []struct {
		name   string
		in     []byte
		code   string
		detail string
	}{
		{"nil", nil, codeBadInput, "no input"},
		{"short", []byte{1, 0}, codeBadInput, "4-byte"},
		{"header past the end", []byte{0xff, 0, 0, 0, '{'}, codeBadInput, "beyond"},
		{"bad json", append([]byte{1, 0, 0, 0}, '{'), codeBadInput, ""},
		{"unknown member", decodedRaw(t, map[string]any{"sha256": sum, "pixels": "rgba"}, nil), codeBadInput, ""},
		{"bad sha256", decodedRaw(t, with(func(h *decodedIn) { h.SHA256 = "ab" }), make([]byte, 128)), codeBadInput, "sha256"},
		{"unknown format", decodedRaw(t, with(func(h *decodedIn) { h.Format = "tiff" }), make([]byte, 128)), codeUnsupported, "tiff"},
		{"zero width", decodedRaw(t, with(func(h *decodedIn) { h.Width = 0 }), nil), codeBadInput, "positive"},
		{"zero height", decodedRaw(t, with(func(h *decodedIn) { h.Height = 0 }), nil), codeBadInput, "positive"},
		{"over the side limit", decodedRaw(t, with(func(h *decodedIn) { h.Width = lim.MaxSide + 1 }), nil), codeTooLarge, ""},
		{"over the pixel limit", decodedRaw(t, with(func(h *decodedIn) { h.Width, h.Height = lim.MaxSide, lim.MaxSide }), nil), codeTooLarge, ""},
		{"orientation 0", decodedRaw(t, with(func(h *decodedIn) { h.Orientation = 0 }), make([]byte, 128)), codeBadInput, "orientation"},
		{"orientation 9", decodedRaw(t, with(func(h *decodedIn) { h.Orientation = 9 }), make([]byte, 128)), codeBadInput, "orientation"},
		{"scale 3", decodedRaw(t, with(func(h *decodedIn) { h.Scale = 3 }), make([]byte, 128)), codeBadInput, "scale"},
		{"one byte short", decodedRaw(t, good, make([]byte, 127)), codeBadInput, "bytes of planes"},
		{"one byte over", decodedRaw(t, good, make([]byte, 129)), codeBadInput, "bytes of planes"},
		{"full-size plane at scale 2", decodedRaw(t, with(func(h *decodedIn) { h.Scale = 2 }), make([]byte, 128)), codeBadInput, "bytes of planes"},
		{"chroma wider than the picture", decodedRaw(t, with(func(h *decodedIn) { h.ChromaWidth, h.ChromaHeight = 17, 1 }), make([]byte, 128+34)), codeBadInput, "chroma"},
		{"chroma one side only", decodedRaw(t, with(func(h *decodedIn) { h.ChromaWidth = 2 }), make([]byte, 128)), codeBadInput, "chroma"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := AnalyzeDecoded(tt.in, lim)
			var r struct {
				OK    bool `json:"ok"`
				Error struct {
					Code   string `json:"code"`
					Detail string `json:"detail"`
				} `json:"error"`
			}
			if err := json.Unmarshal(out, &r); err != nil || r.OK || r.Error.Code != tt.code || !strings.Contains(r.Error.Detail, tt.detail) {
				t.Fatalf("answer %s (%v), want %s mentioning %q", out, err, tt.code, tt.detail)
			}
		})
	}
	// The smallest input accepted, so that the table's refusals are the
	// checks' and not something else's.
	if out := AnalyzeDecoded(decodedRaw(t, good, make([]byte, 128)), lim); !bytes.HasPrefix(out, []byte(`{"ok":true`)) {
		t.Fatalf("a valid 16×8 plane: %s", out)
	}
}

// FuzzAnalyzeDecoded: any input gives one JSON document, never a panic,
// the same on every call.
func FuzzAnalyzeDecoded(f *testing.F) {
	f.Add(decodedRaw(f, decodedIn{SHA256: strings.Repeat("ab", 32), Format: "jpeg", Width: 16, Height: 8, Orientation: 6, Scale: 1, ChromaWidth: 2, ChromaHeight: 1}, make([]byte, 132)))
	f.Add(decodedRaw(f, decodedIn{SHA256: strings.Repeat("ab", 32), Format: "png", Width: 1030, Height: 1100, Orientation: 1, Scale: 2}, make([]byte, 515*550)))
	f.Add([]byte{4, 0, 0, 0, '{', '}'})
	f.Fuzz(func(t *testing.T, in []byte) {
		lim := limits.Default()
		out := AnalyzeDecoded(in, lim)
		var r struct {
			OK *bool `json:"ok"`
		}
		if err := json.Unmarshal(out, &r); err != nil || r.OK == nil {
			t.Fatalf("output %.200q is not a result document: %v", out, err)
		}
		if again := AnalyzeDecoded(in, lim); !bytes.Equal(again, out) {
			t.Fatalf("not deterministic:\n%.300s\n%.300s", out, again)
		}
	})
}
