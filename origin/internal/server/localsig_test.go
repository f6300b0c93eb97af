package server

import (
	"encoding/json"
	"image"
	"image/color"
	"image/draw"
	"testing"

	"github.com/provenant/provenant/origin/internal/testkit"
	"github.com/provenant/provenant/shared/watermark"
)

// localResp is a verify answer with the local-signature members.
type localResp struct {
	honestResp
	Match  string `json:"match"`
	Region *struct {
		X, Y, W, H float64
	} `json:"region"`
	ChangedBlocks *struct {
		Cols  int   `json:"cols"`
		Rows  int   `json:"rows"`
		Cells []int `json:"cells"`
	} `json:"changed_blocks"`
}

func (ts *testServer) verifyLocal(data []byte) localResp {
	ts.t.Helper()
	v := ts.verifyHonest(data)
	var l localResp
	if err := json.Unmarshal([]byte(v.raw), &l); err != nil {
		ts.t.Fatal(err)
	}
	l.honestResp = v
	return l
}

func toRGBA(t *testing.T, data []byte) *image.RGBA {
	t.Helper()
	m := testkit.DecodeJPEG(t, data)
	out := image.NewRGBA(image.Rect(0, 0, m.Bounds().Dx(), m.Bounds().Dy()))
	draw.Draw(out, out.Bounds(), m, m.Bounds().Min, draw.Src)
	return out
}

// boxBlur blurs m with a (2r+1)² box, strong enough to wash out the
// watermark.
func boxBlur(m *image.RGBA, r int) *image.RGBA {
	b := m.Bounds()
	out := image.NewRGBA(b)
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			var s [3]int
			n := 0
			for dy := -r; dy <= r; dy++ {
				for dx := -r; dx <= r; dx++ {
					p := m.RGBAAt(min(max(x+dx, 0), b.Dx()-1), min(max(y+dy, 0), b.Dy()-1))
					s[0], s[1], s[2], n = s[0]+int(p.R), s[1]+int(p.G), s[2]+int(p.B), n+1
				}
			}
			out.SetRGBA(x, y, color.RGBA{uint8(s[0] / n), uint8(s[1] / n), uint8(s[2] / n), 255})
		}
	}
	return out
}

// TestHonestEditedIsNotAuthentic (finding 1): a caption written onto a
// signed photo, a pasted object, and a signed photo blurred, composited
// and re-marked with the victim's public payload no longer verify as
// the victim's; a re-encoded copy and a crop still do (the local
// signatures of record version 3, docs/verification.md).
func TestHonestEditedIsNotAuthentic(t *testing.T) {
	ts := startServer(t, "", nil)
	victim := ts.newSignerOrg("desk@example-news.example", "Example News")
	r := ts.signFile(victim, readTestdata(t, "meadow.jpg"), nil)
	ts.mustStatus(r, 201, "victim signs")
	id := r.header.Get("X-Record-Id")
	signed := r.body
	items := ts.publicSearch("org_name=Example+News")
	if len(items) != 1 {
		t.Fatalf("public search: %d items, want 1", len(items))
	}
	payloadHex, _ := items[0]["watermark_payload_hex"].(string)
	pic := toRGBA(t, signed)
	W, H := pic.Bounds().Dx(), pic.Bounds().Dy()

	// Genuine copies keep verifying.
	v := ts.verifyLocal(testkit.EncodeJPEG(t, pic, 70))
	if !v.Authentic || v.Match != "reencoded" || v.RecordID != id {
		t.Errorf("re-encoded copy: authentic %v match %q record %q, want true reencoded %s:\n%s", v.Authentic, v.Match, v.RecordID, id, v.raw)
	}
	crop := image.NewRGBA(image.Rect(0, 0, W*4/5, H*4/5))
	draw.Draw(crop, crop.Bounds(), pic, image.Pt(W/5, 0), draw.Src)
	v = ts.verifyLocal(testkit.EncodeJPEG(t, crop, 85))
	if !v.Authentic || v.Match != "crop" || v.Region == nil || v.Region.W < 0.75 || v.Region.W > 0.85 || v.Region.X < 0.15 {
		t.Errorf("crop: authentic %v match %q region %+v, want true crop about x 0.2 w 0.8:\n%s", v.Authentic, v.Match, v.Region, v.raw)
	}

	// A caption.
	captioned := toRGBA(t, signed)
	draw.Draw(captioned, image.Rect(0, H*83/100, W, H), &image.Uniform{color.Black}, image.Point{}, draw.Src)
	for x := W / 20; x < W*19/20; x += W / 30 {
		draw.Draw(captioned, image.Rect(x, H*87/100, x+W/90, H*96/100), &image.Uniform{color.White}, image.Point{}, draw.Src)
	}
	v = ts.verifyLocal(testkit.EncodeJPEG(t, captioned, 90))
	notEndorsed(t, "caption", v.honestResp, id, "Example News", "derived")
	if v.Match != "edited" || v.ChangedBlocks == nil || len(v.ChangedBlocks.Cells) == 0 {
		t.Errorf("caption: match %q changed_blocks %+v, want edited with blocks:\n%s", v.Match, v.ChangedBlocks, v.raw)
	} else {
		for _, c := range v.ChangedBlocks.Cells {
			if row := c / v.ChangedBlocks.Cols; row < v.ChangedBlocks.Rows*3/4 {
				t.Errorf("caption: block %d (row %d of %d) flagged above the caption", c, row, v.ChangedBlocks.Rows)
			}
		}
	}

	// A pasted object.
	pasted := toRGBA(t, signed)
	obj := toRGBA(t, readTestdata(t, "water.jpg"))
	area := image.Rect(W/3, H/4, W/3+W/4, H/4+H/3)
	draw.Draw(pasted, area, obj, image.Pt(40, 40), draw.Src)
	v = ts.verifyLocal(testkit.EncodeJPEG(t, pasted, 90))
	notEndorsed(t, "pasted object", v.honestResp, id, "Example News", "derived")
	if v.Match != "edited" || v.ChangedBlocks == nil || len(v.ChangedBlocks.Cells) == 0 {
		t.Errorf("pasted object: match %q changed_blocks %+v, want edited:\n%s", v.Match, v.ChangedBlocks, v.raw)
	}

	// Blur (the mark is gone), composite other content, re-embed the
	// victim's payload with the project's own embedder.
	blurred := boxBlur(toRGBA(t, signed), 4)
	draw.Draw(blurred, image.Rect(W/2, 0, W, H/2), obj, image.Point{}, draw.Src)
	p, err := watermark.ParsePayload(payloadHex)
	if err != nil {
		t.Fatal(err)
	}
	forged, err := watermark.Embed(blurred, p)
	if err != nil {
		t.Fatal(err)
	}
	v = ts.verifyLocal(testkit.EncodeJPEG(t, forged, 92))
	if v.Authentic || (v.Match != "edited" && v.Match != "mismatch") || v.Confidence > 0.3 {
		t.Errorf("blur, composite, re-embed: authentic %v match %q confidence %v, want not authentic, edited or mismatch, at most 0.3:\n%s",
			v.Authentic, v.Match, v.Confidence, v.raw)
	}
	if v.Signer != nil || v.RecordID != "" {
		t.Errorf("blur, composite, re-embed: signer %+v record %q, want none", v.Signer, v.RecordID)
	}
}
