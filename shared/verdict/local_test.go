package verdict_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"image"
	"image/color"
	"image/draw"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/internal/phototest"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/localsig"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/verdict"
	"github.com/provenant/provenant/shared/watermark"
	"github.com/provenant/provenant/shared/wire"
)

// TestDecideLocal: a version 3 record through facts.Analyze and Decide:
// re-encodes and crops are authentic, an edit and a transplanted mark are
// not, and a record without local signatures earns at most derived.
func TestDecideLocal(t *testing.T) {
	const payload = watermark.Payload(0x1122334455667788)
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))
	marked, err := watermark.Embed(phototest.Decode(t, "photo.jpg"), payload)
	if err != nil {
		t.Fatal(err)
	}
	out := phototest.JPEG(t, marked, 95)
	ml := imagex.ToLuma(marked)
	ph, err := phash.Compute(ml)
	if err != nil {
		t.Fatal(err)
	}
	grid, err := localsig.Compute(ml).Encode()
	if err != nil {
		t.Fatal(err)
	}
	mkCand := func(withGrid bool) verdict.Candidate {
		rec := &record.Record{ID: record.ID{1}, SHA256: sha256.Sum256(out), PerceptualHash: ph,
			SignerPublicKey: priv.Public().(ed25519.PublicKey), Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
			Org: "Example News", WatermarkPayload: []byte{0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88}}
		if withGrid {
			rec.LocalSig = grid
		}
		s, err := record.Sign(priv, rec)
		if err != nil {
			t.Fatal(err)
		}
		return verdict.Candidate{Signed: s}
	}
	b := marked.Bounds()
	W, H := b.Dx(), b.Dy()
	rgba := func() *image.RGBA {
		c := image.NewRGBA(image.Rect(0, 0, W, H))
		draw.Draw(c, c.Bounds(), marked, b.Min, draw.Src)
		return c
	}
	cropped := image.NewRGBA(image.Rect(0, 0, W*3/4, H*3/4))
	draw.Draw(cropped, cropped.Bounds(), marked, image.Pt(W/8, H/8), draw.Src)
	captioned := rgba()
	draw.Draw(captioned, image.Rect(0, H*82/100, W, H), &image.Uniform{color.Black}, image.Point{}, draw.Src)
	for x := W / 20; x < W*19/20; x += W / 30 {
		draw.Draw(captioned, image.Rect(x, H*86/100, x+W/90, H*96/100), &image.Uniform{color.White}, image.Point{}, draw.Src)
	}
	// A caption bar added above the signed picture (outside it).
	bar := H * 8 / 100
	above := image.NewRGBA(image.Rect(0, 0, W, H+bar))
	draw.Draw(above, above.Bounds(), &image.Uniform{color.White}, image.Point{}, draw.Src)
	draw.Draw(above, image.Rect(0, bar, W, H+bar), marked, b.Min, draw.Src)
	for x := W / 20; x < W*19/20; x += bar / 2 {
		draw.Draw(above, image.Rect(x, bar/5, x+bar/6, bar*4/5), &image.Uniform{color.Black}, image.Point{}, draw.Src)
	}
	transplant, err := watermark.Embed(phototest.Decode(t, "other.jpg"), payload)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		file      []byte
		withGrid  bool
		match     verdict.Match
		authentic bool
		relation  string
	}{
		{"exact", out, true, verdict.MatchExact, true, ""},
		{"re-encoded JPEG 60", phototest.JPEG(t, marked, 60), true, verdict.MatchReencoded, true, ""},
		{"crop 75 %", phototest.JPEG(t, cropped, 85), true, verdict.MatchCrop, true, ""},
		{"caption bar", phototest.JPEG(t, captioned, 85), true, verdict.MatchEdited, false, wire.RelationDerived},
		{"transplanted payload", phototest.JPEG(t, transplant, 85), true, verdict.MatchMismatch, false, wire.RelationWatermarkTransplant},
		{"caption bar added above: contained", phototest.JPEG(t, above, 90), true, verdict.MatchContained, true, ""},
		{"record without local signatures, re-encoded", phototest.JPEG(t, marked, 60), false, verdict.MatchPerceptual, false, wire.RelationDerived},
		{"record without local signatures, exact", out, false, verdict.MatchExact, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := facts.Analyze(tt.file, limits.Default(), time.Now())
			if err != nil {
				t.Fatal(err)
			}
			r := verdict.Decide(f.Verdict(), []verdict.Candidate{mkCand(tt.withGrid)}, verdict.Options{})
			w := r.Wire()
			if r.Match != tt.match || r.Authentic != tt.authentic || w.Match != tt.match.String() {
				t.Fatalf("match %v (wire %q) authentic %v confidence %v, want %v %v\nwatermark: %s", r.Match, w.Match, r.Authentic, r.Confidence, tt.match, tt.authentic, w.Checks.Watermark.Details)
			}
			if got := ""; w.Resembles != nil {
				got = w.Resembles.Relation
				if got != tt.relation {
					t.Errorf("resembles.relation = %q, want %q", got, tt.relation)
				}
			} else if tt.relation != "" {
				t.Errorf("no resembles, want relation %q", tt.relation)
			}
			switch tt.match {
			case verdict.MatchCrop:
				if w.Region == nil || w.Region.W > 0.8 || w.Region.W < 0.7 {
					t.Errorf("region = %+v, want about 0.75 wide", w.Region)
				}
			case verdict.MatchContained:
				c := w.Contained
				if c == nil || math.Abs(c.Region.Y-float64(bar)/float64(H+bar)) > 0.02 || math.Abs(c.Unvouched-float64(bar)/float64(H+bar)) > 0.03 {
					t.Errorf("contained = %+v, want the signed picture below a %.3f bar", c, float64(bar)/float64(H+bar))
				}
				if !strings.Contains(w.Checks.Watermark.Details, "not vouched for") {
					t.Errorf("watermark details %q do not say the surroundings are not vouched for", w.Checks.Watermark.Details)
				}
			case verdict.MatchEdited:
				if w.ChangedBlocks == nil || len(w.ChangedBlocks.Cells) == 0 {
					t.Fatalf("changed_blocks = %+v, want the caption's blocks", w.ChangedBlocks)
				}
				if !strings.Contains(w.Resembles.Detail, "y 75–100 %") && !strings.Contains(w.Resembles.Detail, "y 88–100 %") {
					t.Errorf("resembles.detail = %q, want the changed area at the bottom named", w.Resembles.Detail)
				}
				for _, c := range w.ChangedBlocks.Cells {
					if row := c / w.ChangedBlocks.Cols; row < w.ChangedBlocks.Rows*3/4 {
						t.Errorf("block %d (row %d of %d) flagged above the caption", c, row, w.ChangedBlocks.Rows)
					}
				}
			}
			if !r.Authentic && (w.Confidence >= 0.5 || w.RecordID != "") {
				t.Errorf("not authentic but confidence %v record %q", w.Confidence, w.RecordID)
			}
		})
	}
}
