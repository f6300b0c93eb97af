package shared_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/draw"
	"image/jpeg"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/localsig"
	"github.com/provenant/provenant/shared/merkle"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/verdict"
	"github.com/provenant/provenant/shared/watermark"
)

// crossGolden holds the facts computed natively on linux/amd64. The wasip1
// run of this test (make test-wasip1) compares its own results with it, so
// "native and WebAssembly give identical bits" is asserted, not assumed.
// Regenerate natively with PROVENANT_UPDATE_GOLDEN=1 after an intended
// change of an algorithm, and say why in the commit.
const crossGolden = "testdata/crosscheck.json"

// crossFacts is everything the verification core derives from one file.
// Floats are kept as their shortest exact decimal, so any bit of
// difference shows.
type crossFacts struct {
	File       string `json:"file"`
	SHA256     string `json:"sha256"`
	Size       string `json:"size"`
	LumaSHA256 string `json:"luma_sha256"`
	PHash      string `json:"phash"`
	// Extract on the file as it is (unmarked: nothing found).
	Found    bool   `json:"found"`
	Strength string `json:"strength"`
	// Embed of crossPayload, when the image is large enough: the marked
	// pixels, then Extract on them and on a JPEG q90 re-encoding.
	MarkedSHA256   string `json:"marked_sha256,omitempty"`
	MarkedPayload  string `json:"marked_payload,omitempty"`
	MarkedStrength string `json:"marked_strength,omitempty"`
	JPEGPayload    string `json:"jpeg_payload,omitempty"`
	JPEGStrength   string `json:"jpeg_strength,omitempty"`
	// A signed record for the file and the verdict on the re-encoded copy.
	RecordHex string `json:"record_hex"`
	Signature string `json:"signature"`
	LeafHash  string `json:"leaf_hash"`
	Verdict   string `json:"verdict"`
	// LocalSig is the local-signature grid of the marked picture and
	// VerdictLocal the verdict on its JPEG copy for a record carrying it
	// (version 3), with the probe the copy gives.
	LocalSig     string `json:"local_sig,omitempty"`
	VerdictLocal string `json:"verdict_local,omitempty"`
}

type crossAll struct {
	Files      []crossFacts `json:"files"`
	MerkleRoot string       `json:"merkle_root"`
}

const crossPayload = watermark.Payload(0x0123456789abcdef)

var crossFiles = []string{
	"testdata/images/photo.jpg",
	"testdata/images/photo.png",
	"testdata/images/photo.webp",
	"testdata/images/lossless.webp",
	"testdata/images/gray.jpg",
	"testdata/images/photo.gif",
	"watermark/testdata/meadow.jpg",
	"watermark/testdata/night.jpg",
}

func fbits(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func computeCross(t *testing.T) crossAll {
	t.Helper()
	lim := limits.Default()
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{0x42}, ed25519.SeedSize))
	var all crossAll
	var leaves []merkle.Hash
	for i, name := range crossFiles {
		raw, err := os.ReadFile(filepath.FromSlash(name))
		if err != nil {
			t.Fatal(err)
		}
		img, err := imagex.Decode(raw, lim)
		if err != nil {
			t.Fatalf("Decode(%s): %v", name, err)
		}
		l := imagex.ToLuma(img.Image)
		ph, err := phash.Compute(l)
		if err != nil {
			t.Fatalf("phash(%s): %v", name, err)
		}
		_, det, err := watermark.Extract(l)
		if err != nil {
			t.Fatalf("Extract(%s): %v", name, err)
		}
		f := crossFacts{
			File:       name,
			SHA256:     hex.EncodeToString(sumOf(raw)),
			Size:       fmt.Sprintf("%dx%d", l.Width, l.Height),
			LumaSHA256: hex.EncodeToString(sumOf(lumaBytes(l))),
			PHash:      ph.String(),
			Found:      det.Found,
			Strength:   fbits(det.Strength),
		}
		var wmFacts verdict.Watermark
		var grid []byte
		var probe *localsig.Probe
		if b := img.Image.Bounds(); min(b.Dx(), b.Dy()) >= 256 {
			marked, err := watermark.Embed(img.Image, crossPayload)
			if err != nil {
				t.Fatalf("Embed(%s): %v", name, err)
			}
			rgba := image.NewRGBA(marked.Bounds())
			draw.Draw(rgba, rgba.Bounds(), marked, marked.Bounds().Min, draw.Src)
			f.MarkedSHA256 = hex.EncodeToString(sumOf(rgba.Pix))
			p, d, err := watermark.Extract(imagex.ToLuma(marked))
			if err != nil {
				t.Fatalf("Extract(marked %s): %v", name, err)
			}
			f.MarkedPayload, f.MarkedStrength = p.String(), fbits(d.Strength)
			if grid, err = localsig.Compute(imagex.ToLuma(marked)).Encode(); err != nil {
				t.Fatal(err)
			}
			f.LocalSig = hex.EncodeToString(grid)
			var buf bytes.Buffer
			if err := jpeg.Encode(&buf, marked, &jpeg.Options{Quality: 90}); err != nil {
				t.Fatal(err)
			}
			re, err := imagex.Decode(buf.Bytes(), lim)
			if err != nil {
				t.Fatal(err)
			}
			p, d, err = watermark.Extract(imagex.ToLuma(re.Image))
			if err != nil {
				t.Fatalf("Extract(re-encoded %s): %v", name, err)
			}
			f.JPEGPayload, f.JPEGStrength = p.String(), fbits(d.Strength)
			if d.Found {
				wmFacts = verdict.Watermark{Found: true, Payload: payloadBytes(p)}
				probe = localsig.NewProbe(imagex.ToLuma(re.Image), facts.Alignment(d))
			}
		}
		var id record.ID
		id[15] = byte(i)
		rec := &record.Record{
			ID: id, SHA256: [32]byte(sumOf(raw)), PerceptualHash: ph,
			SignerPublicKey: priv.Public().(ed25519.PublicKey),
			Timestamp:       time.Date(2026, 11, 23, 12, 0, i, 0, time.UTC),
			OriginType:      "camera_image", Org: "Cross Check",
			WatermarkPayload: payloadBytes(crossPayload),
		}
		signed, err := record.Sign(priv, rec)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := rec.Encode()
		if err != nil {
			t.Fatal(err)
		}
		leaf := signed.LeafHash()
		leaves = append(leaves, leaf)
		f.RecordHex, f.Signature, f.LeafHash = hex.EncodeToString(enc), hex.EncodeToString(signed.Signature), hex.EncodeToString(leaf[:])
		// The verdict on another copy of the same picture: other bytes, the
		// same perceptual hash, the watermark as read after re-encoding.
		res := verdict.Decide(verdict.Facts{SHA256: sha256.Sum256(append(raw, 0)), PHash: ph, Watermark: wmFacts},
			[]verdict.Candidate{{Signed: signed}}, verdict.Options{})
		f.Verdict = fmt.Sprintf("authentic=%v confidence=%s match=%s", res.Authentic, fbits(res.Confidence), res.Match)
		if grid != nil {
			rec3 := *rec
			rec3.LocalSig = grid
			signed3, err := record.Sign(priv, &rec3)
			if err != nil {
				t.Fatal(err)
			}
			res := verdict.Decide(verdict.Facts{SHA256: sha256.Sum256(append(raw, 0)), PHash: ph, Watermark: wmFacts, Local: probe},
				[]verdict.Candidate{{Signed: signed3}}, verdict.Options{})
			w := res.Wire()
			f.VerdictLocal = fmt.Sprintf("authentic=%v confidence=%s match=%s region=%+v", res.Authentic, fbits(res.Confidence), w.Match, w.Region)
		}
		all.Files = append(all.Files, f)
	}
	root := merkle.Build(leaves).Root()
	all.MerkleRoot = hex.EncodeToString(root[:])
	return all
}

// TestCrossCheckGolden compares every fact of crossFacts with the native
// golden file; under GOOS=wasip1 (and GOOS=js) this is the bit-identity check.
func TestCrossCheckGolden(t *testing.T) {
	got := computeCross(t)
	if os.Getenv("PROVENANT_UPDATE_GOLDEN") == "1" {
		if runtime.GOARCH != "amd64" || runtime.GOOS == "wasip1" || runtime.GOOS == "js" {
			t.Fatalf("regenerate the golden natively on amd64, not %s/%s", runtime.GOOS, runtime.GOARCH)
		}
		b, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(crossGolden, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", crossGolden)
		return
	}
	b, err := os.ReadFile(crossGolden)
	if err != nil {
		t.Fatal(err)
	}
	var want crossAll
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("%s: %v", crossGolden, err)
	}
	if len(got.Files) != len(want.Files) {
		t.Fatalf("%d files, golden has %d", len(got.Files), len(want.Files))
	}
	for i := range got.Files {
		g, w := got.Files[i], want.Files[i]
		if g != w {
			gj, _ := json.MarshalIndent(g, "", "  ")
			wj, _ := json.MarshalIndent(w, "", "  ")
			t.Errorf("%s on %s/%s:\ngot  %s\nwant %s", w.File, runtime.GOOS, runtime.GOARCH, gj, wj)
		}
	}
	if got.MerkleRoot != want.MerkleRoot {
		t.Errorf("merkle root = %s, want %s", got.MerkleRoot, want.MerkleRoot)
	}
	// The golden itself must show the watermark surviving: a golden
	// regenerated from a broken embedder would otherwise pass.
	for _, w := range want.Files {
		if w.MarkedSHA256 != "" && (w.MarkedPayload != crossPayload.String() || w.JPEGPayload != crossPayload.String()) {
			t.Errorf("golden %s: payload %s / %s after embed / JPEG, want %s", w.File, w.MarkedPayload, w.JPEGPayload, crossPayload)
		}
		if w.Found {
			t.Errorf("golden %s: watermark found in an unmarked file", w.File)
		}
	}
}

func sumOf(b []byte) []byte { s := sha256.Sum256(b); return s[:] }

func lumaBytes(l *imagex.Luma) []byte {
	out := make([]byte, 0, l.Width*l.Height)
	for y := 0; y < l.Height; y++ {
		out = append(out, l.Pix[y*l.Stride:y*l.Stride+l.Width]...)
	}
	return out
}

func payloadBytes(p watermark.Payload) []byte {
	var b [8]byte
	for i := range b {
		b[i] = byte(uint64(p) >> (56 - 8*i))
	}
	return b[:]
}
