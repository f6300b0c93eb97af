// Package demo creates the sample content behind GET /demo: a clearly
// labelled demo account that signs a few generated pictures on an empty
// data directory, plus the unsigned, re-encoded, cropped and revoked
// variants a newcomer needs to see every badge the widget can show.
package demo

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/image/draw"

	"github.com/provenant/provenant/origin/internal/accounts"
	"github.com/provenant/provenant/origin/internal/content"
	"github.com/provenant/provenant/origin/internal/keys"
)

// Account names. The organisation name says on every badge and
// certificate that the records are samples.
const (
	Email   = "demo@demo.provenant.example"
	OrgName = "Provenant Demo (sample data)"
)

// ManifestFile is the file, in the demo directory, listing the pictures.
const ManifestFile = "manifest.json"

// Item is one picture of the demo page.
type Item struct {
	// File is the picture's file name in the demo directory.
	File string `json:"file"`
	// Title and Caption are shown under it; Expect is the badge status the
	// widget should reach (verified, altered, none, revoked).
	Title   string `json:"title"`
	Caption string `json:"caption"`
	Expect  string `json:"expect"`
	// RecordID is the record the picture was signed as, if any.
	RecordID string `json:"record_id,omitempty"`
}

// Manifest lists the demo pictures in page order.
type Manifest struct {
	OrgName string `json:"org_name"`
	Items   []Item `json:"items"`
}

// Config holds what Seed needs.
type Config struct {
	Accounts *accounts.Service
	Keys     *keys.Service
	Records  *content.Service
	// Dir receives the pictures and the manifest.
	Dir  string
	Rand io.Reader
	// Flush closes an anchoring batch at once, so that the demo records
	// are anchored seconds after start instead of at the batch interval;
	// nil waits for the interval.
	Flush func(context.Context) error
}

// Seed creates the demo account and pictures unless Dir already holds a
// manifest. The account's password is random and never shown: nobody
// signs in as the demo.
func Seed(ctx context.Context, cfg Config) (Manifest, error) {
	if m, err := Load(cfg.Dir); err == nil {
		return m, nil
	}
	pw := make([]byte, 24)
	if _, err := io.ReadFull(cfg.Rand, pw); err != nil {
		return Manifest{}, fmt.Errorf("demo: %w", err)
	}
	u, err := cfg.Accounts.Register(ctx, accounts.RegisterInput{Email: Email, Password: hex.EncodeToString(pw), OrgName: OrgName, OrgType: "individual"})
	if err != nil {
		return Manifest{}, fmt.Errorf("demo: account: %w", err)
	}
	k, err := cfg.Keys.CreateSigningKey(ctx, u.ID, keys.CreateSigningKeyInput{Name: "Demo camera", OriginType: "camera_image", DeviceID: "demo-camera-1"})
	if err != nil {
		return Manifest{}, fmt.Errorf("demo: signing key: %w", err)
	}
	sign := func(pic []byte) (*content.SignResult, error) {
		return cfg.Records.Sign(ctx, content.SignInput{Owner: u.ID, SigningKeyID: k.ID, File: pic, Filename: "demo.jpg"})
	}
	sunrise, err := sign(Scene(1, 960, 640))
	if err != nil {
		return Manifest{}, fmt.Errorf("demo: sign: %w", err)
	}
	lake, err := sign(Scene(2, 960, 640))
	if err != nil {
		return Manifest{}, fmt.Errorf("demo: sign: %w", err)
	}
	withdrawn, err := sign(Scene(4, 960, 640))
	if err != nil {
		return Manifest{}, fmt.Errorf("demo: sign: %w", err)
	}
	if _, err := cfg.Records.Revoke(ctx, u.ID, withdrawn.Record.ID, "sample of a withdrawn picture"); err != nil {
		return Manifest{}, fmt.Errorf("demo: revoke: %w", err)
	}
	reencoded, err := Resize(sunrise.File, 0.6, 72)
	if err != nil {
		return Manifest{}, err
	}
	cropped, err := Crop(lake.File, 0.12, 88)
	if err != nil {
		return Manifest{}, err
	}
	edited, err := Caption(sunrise.File, 88)
	if err != nil {
		return Manifest{}, err
	}
	m := Manifest{OrgName: OrgName, Items: []Item{
		{File: "signed-sunrise.jpg", Title: "Signed", Caption: "The file the demo account signed, byte for byte.", Expect: "verified", RecordID: sunrise.Record.ID},
		{File: "signed-lake.jpg", Title: "Signed", Caption: "Another signed picture.", Expect: "verified", RecordID: lake.Record.ID},
		{File: "reencoded.jpg", Title: "Re-encoded copy", Caption: "The first picture resized to 60% and saved again as JPEG: found through its watermark.", Expect: "verified", RecordID: sunrise.Record.ID},
		{File: "cropped.jpg", Title: "Cropped copy", Caption: "The second picture with 12% cut from each side: its local signatures still match, so the crop verifies and says how much it shows.", Expect: "verified", RecordID: lake.Record.ID},
		{File: "edited.jpg", Title: "Edited copy", Caption: "The first picture with a bar painted over its bottom: provenance found, picture changed.", Expect: "altered"},
		{File: "unsigned.jpg", Title: "Unsigned", Caption: "A picture nobody signed.", Expect: "none"},
		{File: "revoked.jpg", Title: "Revoked", Caption: "Signed, then withdrawn by its signer.", Expect: "revoked", RecordID: withdrawn.Record.ID},
	}}
	files := map[string][]byte{
		"signed-sunrise.jpg": sunrise.File, "signed-lake.jpg": lake.File, "reencoded.jpg": reencoded,
		"cropped.jpg": cropped, "edited.jpg": edited, "unsigned.jpg": Scene(3, 960, 640), "revoked.jpg": withdrawn.File,
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return Manifest{}, fmt.Errorf("demo: %w", err)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(cfg.Dir, name), b, 0o600); err != nil {
			return Manifest{}, fmt.Errorf("demo: %w", err)
		}
	}
	mb, _ := json.MarshalIndent(m, "", "  ")
	// The manifest last: its presence means the directory is complete.
	if err := os.WriteFile(filepath.Join(cfg.Dir, ManifestFile), mb, 0o600); err != nil {
		return Manifest{}, fmt.Errorf("demo: %w", err)
	}
	if cfg.Flush != nil {
		if err := cfg.Flush(ctx); err != nil {
			return Manifest{}, fmt.Errorf("demo: anchor: %w", err)
		}
	}
	return m, nil
}

// Load reads the manifest of a seeded demo directory.
func Load(dir string) (Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return Manifest{}, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return Manifest{}, fmt.Errorf("demo: manifest: %w", err)
	}
	if len(m.Items) == 0 {
		return Manifest{}, errors.New("demo: empty manifest")
	}
	return m, nil
}

// Resize decodes a JPEG, scales it by scale and encodes it at quality.
func Resize(file []byte, scale float64, quality int) ([]byte, error) {
	src, err := jpeg.Decode(bytes.NewReader(file))
	if err != nil {
		return nil, fmt.Errorf("demo: resize: %w", err)
	}
	b := src.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, int(float64(b.Dx())*scale), int(float64(b.Dy())*scale)))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
	return encode(dst, quality)
}

// Crop decodes a JPEG, cuts frac of the width and height from each side
// and encodes the rest at quality.
func Crop(file []byte, frac float64, quality int) ([]byte, error) {
	src, err := jpeg.Decode(bytes.NewReader(file))
	if err != nil {
		return nil, fmt.Errorf("demo: crop: %w", err)
	}
	b := src.Bounds()
	dx, dy := int(float64(b.Dx())*frac), int(float64(b.Dy())*frac)
	r := image.Rect(b.Min.X+dx, b.Min.Y+dy, b.Max.X-dx, b.Max.Y-dy)
	dst := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(dst, dst.Bounds(), src, r.Min, draw.Src)
	return encode(dst, quality)
}

// Caption decodes a JPEG, paints an opaque bar over its bottom sixth (as a
// caption or a sticker would) and encodes it at quality.
func Caption(file []byte, quality int) ([]byte, error) {
	src, err := jpeg.Decode(bytes.NewReader(file))
	if err != nil {
		return nil, fmt.Errorf("demo: caption: %w", err)
	}
	b := src.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(dst, dst.Bounds(), src, b.Min, draw.Src)
	bar := image.Rect(0, b.Dy()-b.Dy()/6, b.Dx(), b.Dy())
	draw.Draw(dst, bar, &image.Uniform{color.RGBA{R: 20, G: 20, B: 20, A: 255}}, image.Point{}, draw.Src)
	return encode(dst, quality)
}

func encode(img image.Image, quality int) ([]byte, error) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality}); err != nil {
		return nil, fmt.Errorf("demo: encode: %w", err)
	}
	return buf.Bytes(), nil
}
