package client_test

import (
	"crypto/ed25519"
	"encoding/hex"
	"testing"
	"time"

	"github.com/provenant/provenant/client"
	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
)

func TestSignLocallyOffline(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 4, 10, 0, 0, 123456789, time.UTC)
	ls, err := client.SignLocally(client.LocalSignRequest{
		File: testPhoto(t, 5, 640, 480), Filename: "cam.jpg", Key: priv, OrgName: "Example News", OriginType: "camera_image",
		Now: func() time.Time { return at },
	})
	if err != nil {
		t.Fatal(err)
	}
	if ls.ContentType != "image/jpeg" || ls.Ext != ".jpg" {
		t.Errorf("output %s %s, want JPEG", ls.ContentType, ls.Ext)
	}
	// The signed record verifies and says what the register request says.
	rec, err := record.Verify(ls.Signed)
	if err != nil {
		t.Fatalf("record does not verify: %v", err)
	}
	reg := ls.Register
	if rec.ID.String() != reg.RecordID || hex.EncodeToString(rec.SHA256[:]) != reg.SHA256 || rec.PerceptualHash.String() != reg.PerceptualHash ||
		hex.EncodeToString(rec.WatermarkPayload) != reg.WatermarkPayloadHex || hex.EncodeToString(pub) != reg.SignerPublicKey ||
		rec.Org != "Example News" || rec.OriginType != "camera_image" || reg.Timestamp != "2026-03-04T10:00:00.123Z" || reg.OriginalFilename != "cam.jpg" {
		t.Errorf("record %+v and register request %+v disagree", rec, reg)
	}
	// The output is the signed file: its hash, its watermark, its look.
	f, err := facts.Analyze(ls.File, limits.Default(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	w := f.Wire()
	if w.SHA256 != reg.SHA256 {
		t.Errorf("output hashes to %s, record says %s", w.SHA256, reg.SHA256)
	}
	if !w.Watermark.Found || w.Watermark.Payload != reg.WatermarkPayloadHex {
		t.Errorf("watermark %+v, want payload %s", w.Watermark, reg.WatermarkPayloadHex)
	}
	// The record's hash is the marked picture's before encoding (as on the
	// origin); the encoded file's lands near it, within the distances the
	// lookup finds and the verdict calls near.
	if d := phash.Distance64(f.PHash.P64, rec.PerceptualHash.P64); d > phash.CandidateDistance64 || !phash.Near(f.PHash, rec.PerceptualHash) {
		t.Errorf("perceptual hash of the output is %d bits (64-bit) from the record's", d)
	}
	// Two signatures of one file never share a record id or payload.
	ls2, err := client.SignLocally(client.LocalSignRequest{File: testPhoto(t, 5, 640, 480), Key: priv, OrgName: "Example News", OriginType: "camera_image"})
	if err != nil || ls2.Register.RecordID == reg.RecordID || ls2.Register.WatermarkPayloadHex == reg.WatermarkPayloadHex {
		t.Errorf("second local signature reuses id or payload (%v)", err)
	}
	if _, err := client.SignLocally(client.LocalSignRequest{File: ls.File, OrgName: "x", OriginType: "y"}); err != client.ErrKeyRequired {
		t.Errorf("without a key: %v", err)
	}
}
