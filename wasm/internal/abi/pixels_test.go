package abi

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"image"
	"image/jpeg"
	"strings"
	"testing"
	"time"

	"golang.org/x/image/draw"

	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/c2pa/c2patest"
	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/localsig"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/wire"
	"github.com/provenant/provenant/wasm/internal/c2paabi"
	"github.com/provenant/provenant/wasm/internal/testphoto"
)

// TestAnalyzePixelsLumaMatchesAnalyze: a browser that hands over its
// decoder's Y plane at the stored size, for upright and turned JPEGs
// large enough to be reduced, gets analyze's facts: the same hash, size
// and watermark, perceptual hashes within the reduced decode's tolerance.
func TestAnalyzePixelsLumaMatchesAnalyze(t *testing.T) {
	src := testphoto.Image(t)
	lim := limits.Default()
	for _, o := range []byte{1, 3, 6, 8} {
		// The upright picture is 1500×1100; stored turned for o.
		up := image.NewRGBA(image.Rect(0, 0, 1500, 1100))
		draw.CatmullRom.Scale(up, up.Bounds(), src, src.Bounds(), draw.Src, nil)
		file := testphoto.JPEG(t, testphoto.Marked(t, up), 90, int(o))
		want, err := facts.Analyze(file, lim, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		var info struct {
			Width, Height, Orientation int
		}
		if err := json.Unmarshal(Inspect(file, lim), &info); err != nil || info.Width != 1500 || info.Height != 1100 || info.Orientation != int(o) {
			t.Fatalf("orientation %d: inspect %+v (%v)", o, info, err)
		}
		dec, err := jpeg.Decode(bytes.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		y := dec.(*image.YCbCr)
		b := y.Bounds()
		var pix []byte
		for row := 0; row < b.Dy(); row++ {
			pix = append(pix, y.Y[row*y.YStride:row*y.YStride+b.Dx()]...)
		}
		sum := sha256.Sum256(file)
		head, _ := json.Marshal(map[string]any{"sha256": hex.EncodeToString(sum[:]), "format": "jpeg", "width": info.Width, "height": info.Height,
			"pixels": "luma", "orientation": info.Orientation})
		in := append(append(binary.LittleEndian.AppendUint32(nil, uint32(len(head))), head...), pix...)
		var got struct {
			OK    bool        `json:"ok"`
			Facts wire.Facts  `json:"facts"`
			Local *wire.Probe `json:"local"`
		}
		out := AnalyzePixels(in, lim)
		if err := json.Unmarshal(out, &got); err != nil || !got.OK {
			t.Fatalf("orientation %d: %s", o, out)
		}
		w := want.Wire()
		if got.Facts.SHA256 != w.SHA256 || got.Facts.Width != w.Width || got.Facts.Height != w.Height || !got.Facts.Watermark.Found ||
			got.Facts.Watermark.Payload != w.Watermark.Payload || got.Local == nil {
			t.Errorf("orientation %d: facts %+v, analyze %+v", o, got.Facts, w)
		}
		gh, _ := phash.Parse(got.Facts.PerceptualHash)
		if d := phash.Distance256(gh.P256, want.PHash.P256); d > 8 {
			t.Errorf("orientation %d: 256-bit pHash distance %d to analyze's", o, d)
		}
		// The stored size is what it must be.
		if out := AnalyzePixels(in[:len(in)-1], lim); !bytes.Contains(out, []byte(`"code":"bad_input"`)) {
			t.Errorf("orientation %d, one byte short: %s", o, out)
		}
	}
}

// pixelsSeed is an analyze_pixels input: header h, then n pixel bytes.
func pixelsSeed(h string, n int) []byte {
	in := append(binary.LittleEndian.AppendUint32(nil, uint32(len(h))), h...)
	return append(in, bytes.Repeat([]byte{0x80}, n)...)
}

// FuzzAnalyzePixels: any input gives one JSON document, ok or an error
// with a known code, the same on every call; an answer with facts names
// the SHA-256 and size the header gave.
func FuzzAnalyzePixels(f *testing.F) {
	sha := `"sha256":"` + strings.Repeat("ab", 32) + `"`
	f.Add(pixelsSeed(`{`+sha+`,"format":"png","width":300,"height":200}`, 4*300*200))
	f.Add(pixelsSeed(`{`+sha+`,"format":"jpeg","width":200,"height":300,"pixels":"luma","orientation":6}`, 300*200))
	f.Add(pixelsSeed(`{`+sha+`,"format":"jpeg","width":2,"height":2,"pixels":"luma"}`, 4))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, in []byte) {
		lim := limits.Default()
		lim.MaxPixels = 1 << 20 // keep each input small
		var f wire.Facts
		_, ok := resultDoc(t, func() []byte { return AnalyzePixels(in, lim) }, "facts", &f,
			codeBadInput, codeUnsupported, codeTooLarge, codeInvalidImage)
		if ok {
			var h pixelsIn
			n := binary.LittleEndian.Uint32(in)
			_ = json.Unmarshal(in[4:4+n], &h)
			if f.SHA256 != strings.ToLower(h.SHA256) || f.Width != h.Width || f.Height != h.Height {
				t.Fatalf("facts %+v for header %+v", f, h)
			}
		}
	})
}

// TestAnalyzePixelsCarriesC2PA: the manifest lives in the file's bytes,
// which analyze_pixels never sees; inspect and analyze say the file
// carries one (and leave its facts out), and a host that hands the C2PA
// module's c2pa_read answer to analyze_pixels gets the c2pa facts
// facts.Analyze computes natively; a file without a manifest gets none.
func TestAnalyzePixelsCarriesC2PA(t *testing.T) {
	raw := testphoto.File(t)
	signed, _, _, err := c2pa.Embed(raw, c2pa.Manifest{ClaimGenerator: "Provenant/1.0", Format: "image/jpeg", Title: "m.jpg",
		Actions: []c2pa.Action{{Action: "c2pa.created"}}}, c2patest.NewSigner(t, c2patest.CertOptions{Org: "Example News"}))
	if err != nil {
		t.Fatal(err)
	}
	lim := limits.Default()
	for _, tc := range []struct {
		name     string
		file     []byte
		manifest bool
	}{{"with manifest", signed, true}, {"without", raw, false}} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := facts.Analyze(tc.file, lim, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			var info struct {
				Width, Height int
				C2PA          *wire.C2PAFacts `json:"c2pa"`
				Manifest      bool            `json:"c2pa_manifest"`
			}
			if err := json.Unmarshal(Inspect(tc.file, lim), &info); err != nil {
				t.Fatal(err)
			}
			if info.Manifest != tc.manifest || info.C2PA != nil {
				t.Fatalf("inspect c2pa_manifest %v, c2pa %+v; want %v and none", info.Manifest, info.C2PA, tc.manifest)
			}
			var an struct {
				Facts    wire.Facts `json:"facts"`
				Manifest bool       `json:"c2pa_manifest"`
			}
			if err := json.Unmarshal(Analyze(tc.file, lim, time.Now()), &an); err != nil || an.Manifest != tc.manifest || an.Facts.C2PA != nil {
				t.Fatalf("analyze c2pa_manifest %v, c2pa %+v (%v); want %v and none", an.Manifest, an.Facts.C2PA, err, tc.manifest)
			}
			var read struct {
				C2PA *wire.C2PAFacts `json:"c2pa"`
			}
			if err := json.Unmarshal(c2paabi.Read(tc.file, time.Now()), &read); err != nil {
				t.Fatal(err)
			}
			if (read.C2PA != nil) != tc.manifest || (tc.manifest && read.C2PA.ValidationState != "valid") {
				t.Fatalf("c2pa_read %+v, manifest %v", read.C2PA, tc.manifest)
			}
			info.C2PA = read.C2PA
			dec, err := imagex.Decode(tc.file, lim)
			if err != nil {
				t.Fatal(err)
			}
			pw, ph, _ := facts.PlaneSize(info.Width, info.Height)
			rgba := image.NewNRGBA(image.Rect(0, 0, pw, ph))
			draw.ApproxBiLinear.Scale(rgba, rgba.Bounds(), dec.Image, dec.Image.Bounds(), draw.Src, nil)
			sum := sha256.Sum256(tc.file)
			head, _ := json.Marshal(map[string]any{"sha256": hex.EncodeToString(sum[:]), "format": "jpeg",
				"width": info.Width, "height": info.Height, "c2pa": info.C2PA})
			var got struct {
				OK    bool       `json:"ok"`
				Facts wire.Facts `json:"facts"`
			}
			out := AnalyzePixels(append(append(binary.LittleEndian.AppendUint32(nil, uint32(len(head))), head...), rgba.Pix...), lim)
			if err := json.Unmarshal(out, &got); err != nil || !got.OK {
				t.Fatalf("analyze_pixels: %s", out)
			}
			gj, _ := json.Marshal(got.Facts.C2PA)
			wj, _ := json.Marshal(want.Wire().C2PA)
			if !bytes.Equal(gj, wj) {
				t.Errorf("c2pa %s, analyze %s", gj, wj)
			}
		})
	}
}

// TestAnalyzePixelsChroma: the browser's chroma reaches the local
// signature probe, from the decoder's Cb and Cr planes sent after the
// luminance (stored and turned like it) or from RGBA pixels: a colour
// grid of the signed picture finds every block's colour unchanged;
// without planes the probe has none;
// planes of a size that cannot cover the picture are refused.
func TestAnalyzePixelsChroma(t *testing.T) {
	lim := limits.Default()
	marked := testphoto.Marked(t, testphoto.Image(t))
	mcb, mcr := imagex.Chroma(marked)
	grid := localsig.ComputeColour(imagex.ToLuma(marked), mcb, mcr)
	for _, o := range []byte{1, 6} {
		file := testphoto.JPEG(t, marked, 90, int(o))
		want, err := facts.Analyze(file, lim, time.Now())
		if err != nil || want.Local == nil || want.Local.Cb == nil {
			t.Fatalf("orientation %d: analyze gave no chroma probe (%v)", o, err)
		}
		dec, err := jpeg.Decode(bytes.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		y := dec.(*image.YCbCr)
		b := y.Bounds()
		cw, ch := (b.Dx()+1)/2, (b.Dy()+1)/2
		plane := func(p []byte, stride, w, h int) []byte {
			var out []byte
			for row := 0; row < h; row++ {
				out = append(out, p[row*stride:row*stride+w]...)
			}
			return out
		}
		luma := plane(y.Y, y.YStride, b.Dx(), b.Dy())
		chroma := append(plane(y.Cb, y.CStride, cw, ch), plane(y.Cr, y.CStride, cw, ch)...)
		sum := sha256.Sum256(file)
		input := func(extra map[string]any, pix []byte) []byte {
			h := map[string]any{"sha256": hex.EncodeToString(sum[:]), "format": "jpeg", "width": want.Width, "height": want.Height,
				"pixels": "luma", "orientation": int(o)}
			for k, v := range extra {
				h[k] = v
			}
			head, _ := json.Marshal(h)
			return append(append(binary.LittleEndian.AppendUint32(nil, uint32(len(head))), head...), pix...)
		}
		probe := func(in []byte) *wire.Probe {
			var got struct {
				OK    bool        `json:"ok"`
				Local *wire.Probe `json:"local"`
			}
			out := AnalyzePixels(in, lim)
			if err := json.Unmarshal(out, &got); err != nil || !got.OK || got.Local == nil {
				t.Fatalf("orientation %d: %s", o, out)
			}
			return got.Local
		}
		p := probe(input(map[string]any{"chroma_width": cw, "chroma_height": ch}, append(append([]byte(nil), luma...), chroma...)))
		w := want.WireProbe()
		if len(p.Cb) != p.Width*p.Height || len(p.Cr) != len(p.Cb) || p.Width != w.Width || p.Height != w.Height {
			t.Fatalf("orientation %d: probe %d×%d with %d/%d chroma bytes, analyze's %d×%d", o, p.Width, p.Height, len(p.Cb), len(p.Cr), w.Width, w.Height)
		}
		// Block by block, the browser's chroma is the signed picture's.
		lp, err := facts.ProbeFromWire(p)
		if err != nil {
			t.Fatal(err)
		}
		if r := localsig.Compare(grid, lp); !r.Colour || r.Outcome != localsig.Same {
			t.Errorf("orientation %d: colour %v outcome %v (why %+v), want same with colour compared", o, r.Colour, r.Outcome, r.Why)
		}
		if p := probe(input(nil, luma)); p.Cb != nil || p.Cr != nil {
			t.Errorf("orientation %d: chroma without planes", o)
		}
		for _, bad := range []map[string]any{
			{"chroma_width": cw, "chroma_height": ch + 1},
			{"chroma_width": cw / 3, "chroma_height": ch / 3},
			{"chroma_width": cw},
		} {
			if out := AnalyzePixels(input(bad, append(append([]byte(nil), luma...), chroma...)), lim); !bytes.Contains(out, []byte(`"code":"bad_input"`)) {
				t.Errorf("orientation %d, chroma %v: %s", o, bad, out)
			}
		}
	}
	// RGBA pixels carry their own chroma.
	pw, ph, _ := facts.PlaneSize(marked.Bounds().Dx(), marked.Bounds().Dy())
	rgba := image.NewNRGBA(image.Rect(0, 0, pw, ph))
	draw.ApproxBiLinear.Scale(rgba, rgba.Bounds(), marked, marked.Bounds(), draw.Src, nil)
	head, _ := json.Marshal(map[string]any{"sha256": strings.Repeat("ab", 32), "format": "png", "width": marked.Bounds().Dx(), "height": marked.Bounds().Dy()})
	var got struct {
		OK    bool        `json:"ok"`
		Local *wire.Probe `json:"local"`
	}
	out := AnalyzePixels(append(append(binary.LittleEndian.AppendUint32(nil, uint32(len(head))), head...), rgba.Pix...), lim)
	if err := json.Unmarshal(out, &got); err != nil || !got.OK || got.Local == nil || len(got.Local.Cb) == 0 {
		t.Errorf("rgba: probe without chroma: %.200s", out)
	}
}
