package record_test

import (
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/internal/seedtest"
	"github.com/provenant/provenant/shared/localsig"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
)

// vector is one entry of testdata/vectors.json (docs/record-format.md):
// the record's fields, the key's seed, and the canonical bytes, signature
// and Merkle leaf every implementation must produce from them.
type vector struct {
	Name                string `json:"name"`
	Version             int    `json:"version"`
	SeedHex             string `json:"seed_hex"`
	RecordID            string `json:"record_id"`
	SHA256              string `json:"sha256"`
	PerceptualHash      string `json:"perceptual_hash"`
	SignerPublicKey     string `json:"signer_public_key"`
	Timestamp           string `json:"timestamp"`
	OriginType          string `json:"origin_type"`
	Org                 string `json:"org"`
	WatermarkPayloadHex string `json:"watermark_payload_hex"`
	ParentID            string `json:"parent_id,omitempty"`
	LocalSigHex         string `json:"local_sig_hex,omitempty"`
	CanonicalHex        string `json:"canonical_hex"`
	SignatureHex        string `json:"signature_hex"`
	LeafHash            string `json:"leaf_hash"`
}

func (v vector) record(t *testing.T) (*record.Record, ed25519.PrivateKey) {
	t.Helper()
	seed, err := hex.DecodeString(v.SeedHex)
	if err != nil || len(seed) != ed25519.SeedSize {
		t.Fatalf("%s: seed_hex", v.Name)
	}
	priv := ed25519.NewKeyFromSeed(seed)
	id, err := record.ParseID(v.RecordID)
	if err != nil {
		t.Fatalf("%s: %v", v.Name, err)
	}
	ph, err := phash.Parse(v.PerceptualHash)
	if err != nil {
		t.Fatalf("%s: %v", v.Name, err)
	}
	ts, err := time.Parse(time.RFC3339Nano, v.Timestamp)
	if err != nil {
		t.Fatalf("%s: %v", v.Name, err)
	}
	r := &record.Record{ID: id, PerceptualHash: ph, SignerPublicKey: priv.Public().(ed25519.PublicKey), Timestamp: ts,
		OriginType: v.OriginType, Org: v.Org}
	sha, err := hex.DecodeString(v.SHA256)
	if err != nil || len(sha) != 32 {
		t.Fatalf("%s: sha256", v.Name)
	}
	copy(r.SHA256[:], sha)
	if r.WatermarkPayload, err = hex.DecodeString(v.WatermarkPayloadHex); err != nil {
		t.Fatalf("%s: watermark_payload_hex", v.Name)
	}
	if len(r.WatermarkPayload) == 0 {
		r.WatermarkPayload = nil
	}
	if v.ParentID != "" {
		p, err := record.ParseID(v.ParentID)
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		r.Parent = &p
	}
	if r.LocalSig, err = hex.DecodeString(v.LocalSigHex); err != nil {
		t.Fatalf("%s: local_sig_hex", v.Name)
	}
	if len(r.LocalSig) == 0 {
		r.LocalSig = nil
	}
	return r, priv
}

// TestVectors: every vector's fields encode to its canonical bytes, sign
// (Ed25519 is deterministic) to its signature, and hash to its leaf; the
// canonical bytes parse back to the same fields.
func TestVectors(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vs []vector
	if err := json.Unmarshal(b, &vs); err != nil {
		t.Fatal(err)
	}
	versions := map[int]bool{}
	for _, v := range vs {
		t.Run(v.Name, func(t *testing.T) {
			r, priv := v.record(t)
			s, err := record.Sign(priv, r)
			if err != nil {
				t.Fatal(err)
			}
			if got := hex.EncodeToString(s.Bytes); got != v.CanonicalHex {
				t.Errorf("canonical bytes\n got %s\nwant %s", got, v.CanonicalHex)
			}
			if int(s.Bytes[4]) != v.Version {
				t.Errorf("version byte %d, vector says %d", s.Bytes[4], v.Version)
			}
			if got := hex.EncodeToString(s.Signature); got != v.SignatureHex {
				t.Errorf("signature\n got %s\nwant %s", got, v.SignatureHex)
			}
			if got := s.LeafHash().String(); got != v.LeafHash {
				t.Errorf("leaf hash %s, want %s", got, v.LeafHash)
			}
			if got := hex.EncodeToString(r.SignerPublicKey); got != v.SignerPublicKey {
				t.Errorf("public key %s, want %s", got, v.SignerPublicKey)
			}
			canon, _ := hex.DecodeString(v.CanonicalHex)
			sig, _ := hex.DecodeString(v.SignatureHex)
			back, err := record.Verify(record.Signed{Bytes: canon, Signature: sig})
			if err != nil {
				t.Fatalf("vector does not verify: %v", err)
			}
			if again, _ := back.Encode(); hex.EncodeToString(again) != v.CanonicalHex {
				t.Errorf("parse/encode round trip changed the bytes")
			}
			versions[v.Version] = true
		})
	}
	for _, want := range []int{record.Version, record.VersionParent, record.VersionLocal} {
		if !versions[want] {
			t.Errorf("no vector of version %d", want)
		}
	}
}

// TestWriteVectors regenerates testdata/vectors.json when
// RECORD_VECTORS_UPDATE is set. The vectors are a published contract: a
// change of the bytes they hold breaks every client, so regenerate only to
// add vectors.
func TestWriteVectors(t *testing.T) {
	seedtest.Regenerate(t, "RECORD_VECTORS_UPDATE", "testdata/vectors.json")
	ph := "0123456789abcdef" + "00112233445566778899aabbccddeeff0123456789abcdeffedcba9876543210"
	img := image.NewGray(image.Rect(0, 0, 256, 192))
	for y := 0; y < 192; y++ {
		for x := 0; x < 256; x++ {
			img.SetGray(x, y, color.Gray{Y: uint8((x*7 + y*13 + x*y/64) % 256)})
		}
	}
	grid, err := localsig.Compute(imagex.ToLuma(img)).Encode()
	if err != nil {
		t.Fatal(err)
	}
	seed := func(b byte) string {
		s := make([]byte, 32)
		for i := range s {
			s[i] = b + byte(i)
		}
		return hex.EncodeToString(s)
	}
	vs := []vector{
		{Name: "v1 register, no watermark payload", Version: 1, SeedHex: seed(0), RecordID: "0190f3a1-7b2c-7d4e-8f00-123456789abc",
			SHA256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", PerceptualHash: ph,
			Timestamp: "2026-11-22T12:00:00.123Z", OriginType: "camera_image", Org: "Example News"},
		{Name: "v1 register, watermark payload, non-ASCII org", Version: 1, SeedHex: seed(0x40), RecordID: "6f9619ff-8b86-4011-b42d-00c04fc964ff",
			SHA256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", PerceptualHash: ph,
			Timestamp: "2026-01-02T03:04:05.000Z", OriginType: "ai_generated_image", Org: "Zürich Bildagentur 東京", WatermarkPayloadHex: "0123456789abcdef"},
		{Name: "v2 derivative", Version: 2, SeedHex: seed(0x80), RecordID: "11111111-2222-4333-8444-555555555555",
			SHA256: "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae", PerceptualHash: ph,
			Timestamp: "2026-05-06T07:08:09.010Z", OriginType: "edited_image", Org: "Copy Desk", WatermarkPayloadHex: "fedcba9876543210",
			ParentID: "0190f3a1-7b2c-7d4e-8f00-123456789abc"},
		{Name: "v3 local signatures", Version: 3, SeedHex: seed(0xc0), RecordID: "22222222-3333-4444-8555-666666666666",
			SHA256: "fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9", PerceptualHash: ph,
			Timestamp: "2026-07-08T09:10:11.012Z", OriginType: "camera_image", Org: "Example News", WatermarkPayloadHex: "00000000000000ff",
			LocalSigHex: hex.EncodeToString(grid)},
	}
	for i := range vs {
		r, priv := vs[i].record(t)
		s, err := record.Sign(priv, r)
		if err != nil {
			t.Fatal(err)
		}
		vs[i].SignerPublicKey = hex.EncodeToString(r.SignerPublicKey)
		vs[i].CanonicalHex = hex.EncodeToString(s.Bytes)
		vs[i].SignatureHex = hex.EncodeToString(s.Signature)
		vs[i].LeafHash = s.LeafHash().String()
	}
	b, err := json.MarshalIndent(vs, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	seedtest.Write(t, filepath.Join("testdata", "vectors.json"), append(b, '\n'))
}
