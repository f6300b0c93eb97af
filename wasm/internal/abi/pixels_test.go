package abi

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"image"
	"image/jpeg"
	"os"
	"testing"

	"golang.org/x/image/draw"

	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/watermark"
	"github.com/provenant/provenant/shared/wire"
)

// withOrientation puts an EXIF APP1 segment carrying orientation o after
// the SOI of a JPEG.
func withOrientation(jpg []byte, o byte) []byte {
	tiff := []byte{'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, o, 0, 0, 0, 0, 0, 0, 0}
	seg := append([]byte("Exif\x00\x00"), tiff...)
	n := len(seg) + 2
	return append(append([]byte{0xFF, 0xD8, 0xFF, 0xE1, byte(n >> 8), byte(n)}, seg...), jpg[2:]...)
}

// TestAnalyzePixelsLumaMatchesAnalyze: a browser that hands over its
// decoder's Y plane at the stored size, for upright and turned JPEGs
// large enough to be reduced, gets analyze's facts: the same hash, size
// and watermark, perceptual hashes within the reduced decode's tolerance.
func TestAnalyzePixelsLumaMatchesAnalyze(t *testing.T) {
	raw, err := os.ReadFile("../../../shared/watermark/testdata/meadow.jpg")
	if err != nil {
		t.Fatal(err)
	}
	src, err := imagex.Decode(raw, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	lim := limits.Default()
	for _, o := range []byte{1, 3, 6, 8} {
		// The upright picture is 1500×1100; stored turned for o.
		up := image.NewRGBA(image.Rect(0, 0, 1500, 1100))
		draw.CatmullRom.Scale(up, up.Bounds(), src.Image, src.Image.Bounds(), draw.Src, nil)
		marked, err := watermark.Embed(up, 0x0123456789abcdef)
		if err != nil {
			t.Fatal(err)
		}
		// Orient's inverse: the stored picture that o turns upright.
		inverse := map[byte]int{1: 1, 3: 3, 6: 8, 8: 6}[o]
		stored := imagex.Orient(marked, inverse)
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, stored, &jpeg.Options{Quality: 90}); err != nil {
			t.Fatal(err)
		}
		file := withOrientation(buf.Bytes(), o)
		want, err := facts.Analyze(file, lim)
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
