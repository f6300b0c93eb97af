package client_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"testing"

	"golang.org/x/image/draw"

	"github.com/provenant/provenant/client"
	"github.com/provenant/provenant/origin/origintest"
	"github.com/provenant/provenant/origin/origintest/corpus"
	"github.com/provenant/provenant/shared/present"
)

// TestLocalAgreesWithOrigin is the SDK's leg of the one-verdict rule:
// over a corpus of the cases that used to read differently on different
// surfaces (an exact copy, a re-encoded one, a crop, an edit, an unrelated
// picture, a revoked record and its re-encoded copy, a record whose device
// key was reported compromised before it was anchored, one whose service
// key was retired after, a derivative signed by a second organisation, a
// picture too small for a watermark, an unsigned copy of a registered
// record), VerifyLocal (the flow of the CLI's verify --local and of the
// browser) answers what the origin's POST /verify answers: the same
// authenticity, match, record, resemblance, each check's tri-state and the
// same headline and chain in words, confidence within 0.05; and each
// presentation keeps the wording rules.
func TestLocalAgreesWithOrigin(t *testing.T) {
	o := origintest.Start(t, origintest.Options{})
	ctx := context.Background()
	first := newAccount(t, o, "first@agree.example")
	second := newAccount(t, o, "second@agree.example")

	sign := func(a *account, name string, file []byte, parent string) ([]byte, string) {
		t.Helper()
		var out bytes.Buffer
		sf, err := a.api.SignFile(ctx, client.SignRequest{File: client.BytesUpload(name, file), SigningKeyID: a.keyID, DerivativeOf: parent}, &out)
		if err != nil {
			t.Fatalf("sign %s: %v", name, err)
		}
		waitAnchored(t, a.api, sf.RecordID)
		return out.Bytes(), sf.RecordID
	}
	signed, id := sign(first, "a.jpg", testPhoto(t, 71, 640, 480), "")
	revoked, revokedID := sign(first, "b.jpg", testPhoto(t, 72, 640, 480), "")
	if _, err := first.api.RevokeRecord(ctx, revokedID, "published in error"); err != nil {
		t.Fatal(err)
	}
	derivative, _ := sign(second, "c.jpg", corpus.Reencode(signed, 0.8, 85), id)
	retired, _ := sign(second, "d.jpg", testPhoto(t, 73, 640, 480), "")
	if _, err := second.jwt.RevokeSigningKey(ctx, second.keyID, client.RevokeSigningKeyRequest{Reason: "desk closed"}); err != nil {
		t.Fatal(err)
	}
	small, _ := sign(first, "e.jpg", testPhoto(t, 74, 64, 48), "")

	// A device key reported compromised since before its record was
	// anchored.
	compromised, _ := compromisedDeviceRecord(t, first, 75)

	cases := []struct {
		name string
		file []byte
	}{
		{"exact", signed},
		{"reencoded", corpus.Reencode(signed, 0.7, 60)},
		{"crop", corpus.Transform(signed, 90, corpus.Crop(0.08))},
		{"edited", captionBar(t, signed)},
		{"unrelated", testPhoto(t, 79, 640, 480)},
		{"revoked-record", revoked},
		{"revoked-record-reencoded", corpus.Reencode(revoked, 0.75, 80)},
		{"key-compromised", compromised},
		{"key-retired", retired},
		{"derivative", derivative},
		{"small", small},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			up, err := first.api.Verify(ctx, client.BytesUpload(c.name+".jpg", c.file))
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			lv, err := first.api.VerifyLocal(ctx, c.file, client.LocalOptions{})
			if err != nil {
				t.Fatalf("VerifyLocal: %v", err)
			}
			lo := &lv.Response
			if up.Authentic != lo.Authentic || up.Match != lo.Match || up.RecordID != lo.RecordID {
				t.Errorf("origin authentic %v match %q record %q; local %v %q %q", up.Authentic, up.Match, up.RecordID, lo.Authentic, lo.Match, lo.RecordID)
			}
			if (up.Resembles == nil) != (lo.Resembles == nil) || up.Resembles != nil && (up.Resembles.RecordID != lo.Resembles.RecordID || up.Resembles.Relation != lo.Resembles.Relation) {
				t.Errorf("origin resembles %+v; local %+v", up.Resembles, lo.Resembles)
			}
			if math.Abs(up.Confidence-lo.Confidence) > 0.05 {
				t.Errorf("confidence: origin %.3f, local %.3f", up.Confidence, lo.Confidence)
			}
			po, pl := client.Describe(up), client.Describe(lo)
			if po.Headline != pl.Headline || po.Chain != pl.Chain || po.KeyRule != pl.KeyRule {
				t.Errorf("origin says %q / %q / %q; local %q / %q / %q", po.Headline, po.Chain, po.KeyRule, pl.Headline, pl.Chain, pl.KeyRule)
			}
			for i := range po.Checks {
				if po.Checks[i].State != pl.Checks[i].State {
					t.Errorf("%s check: origin %s, local %s (%s | %s)", po.Checks[i].Name, po.Checks[i].State, pl.Checks[i].State, po.Checks[i].Details, pl.Checks[i].Details)
				}
			}
			for _, v := range present.WordingViolations(*up, po) {
				t.Errorf("wording: %s", v)
			}
			t.Logf("%s: %s (authentic %v, match %s)", c.name, po.Headline, up.Authentic, up.Match)
		})
	}
}

// captionBar paints the bottom sixth of the picture black.
func captionBar(t *testing.T, data []byte) []byte {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	dst := image.NewRGBA(b)
	draw.Draw(dst, b, img, b.Min, draw.Src)
	draw.Draw(dst, image.Rect(b.Min.X, b.Max.Y-b.Dy()/6, b.Max.X, b.Max.Y), image.NewUniform(color.Black), image.Point{}, draw.Src)
	return encodeJPEG(t, dst, 90)
}

func encodeJPEG(t *testing.T, img image.Image, quality int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
