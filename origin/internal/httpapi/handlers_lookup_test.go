package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/content"
	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/wire"
)

// texturedJPEG is a picture with enough texture to be signed and
// watermarked.
func texturedJPEG(t *testing.T, seed uint64) []byte {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed+1))
	img := image.NewRGBA(image.Rect(0, 0, 640, 480))
	for y := range 480 {
		for x := range 640 {
			v := uint8(60 + x/6 + y/8 + r.IntN(40))
			img.Set(x, y, color.RGBA{v, uint8(int(v) * 7 / 8), uint8(255 - int(v)/2), 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestLookupExactOnly: with exact_only, the service's own signed output
// is answered from its SHA-256 alone, byte for byte as the lookup of its
// analysed facts, and counted once with report; any other file gets 204,
// no body and no count; a perceptual hash, a watermark or a malformed
// sha256 beside exact_only is refused, naming the member.
func TestLookupExactOnly(t *testing.T) {
	var recs *content.Service
	e := newTestEnv(t, func(c *Config) { recs = c.Records })
	ctx := t.Context()
	owner, _ := e.account(t, "exact@example.com")
	k, err := e.keys.CreateSigningKey(ctx, owner, keys.CreateSigningKeyInput{Name: "Desk", OriginType: "camera_image"})
	if err != nil {
		t.Fatal(err)
	}
	unsigned := texturedJPEG(t, 1)
	signed, err := recs.Sign(ctx, content.SignInput{Owner: owner, SigningKeyID: k.ID, File: unsigned, Filename: "a.jpg"})
	if err != nil {
		t.Fatal(err)
	}
	counted := func() uint64 {
		st, err := recs.Stats(ctx, owner)
		if err != nil {
			t.Fatal(err)
		}
		return st.TotalVerified
	}
	post := func(req any) reply {
		b, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		return e.do(t, "POST", "/api/v1/verify/lookup", nil, string(b))
	}
	hexSum := func(file []byte) string {
		s := sha256.Sum256(file)
		return hex.EncodeToString(s[:])
	}
	f, err := facts.Analyze(signed.File, limits.Default(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	w := f.Wire()
	full := post(wire.LookupRequest{SHA256: w.SHA256, PerceptualHash: w.PerceptualHash, Watermark: &w.Watermark, C2PAManifest: true})
	if full.status != 200 {
		t.Fatalf("full lookup: %d %s", full.status, full.body)
	}

	before := counted()
	r := post(wire.LookupRequest{SHA256: w.SHA256, ExactOnly: true, Report: true, C2PAManifest: true})
	if r.status != 200 || r.body != full.body || !strings.Contains(r.body, signed.Record.ID) {
		t.Fatalf("exact_only, signed output: %d %s\nwant the full lookup's 200 %s", r.status, r.body, full.body)
	}
	if n := counted() - before; n != 1 {
		t.Errorf("exact_only with report counted %d times, want once", n)
	}

	for _, tt := range []struct {
		name string
		sum  string
	}{
		{"original upload", hexSum(unsigned)},
		{"unknown file", hexSum([]byte("nobody signed this"))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := counted()
			r := post(wire.LookupRequest{SHA256: tt.sum, ExactOnly: true, Report: true, C2PAManifest: true})
			if r.status != 204 || r.body != "" {
				t.Errorf("exact_only: %d %q, want 204 and no body", r.status, r.body)
			}
			if n := counted() - before; n != 0 {
				t.Errorf("counted %d times, want never", n)
			}
		})
	}

	for _, tt := range []struct {
		name  string
		body  string
		field string
	}{
		{"with a perceptual hash", `{"sha256":"` + w.SHA256 + `","perceptual_hash":"` + w.PerceptualHash + `","exact_only":true}`, "perceptual_hash"},
		{"with a watermark", `{"sha256":"` + w.SHA256 + `","watermark":{"found":false,"strength":0,"bit_errors":0},"exact_only":true}`, "watermark"},
		{"sha256 too short", `{"sha256":"abcd","exact_only":true}`, "sha256"},
		{"no sha256", `{"exact_only":true}`, "sha256"},
		{"without exact_only, no perceptual hash", `{"sha256":"` + w.SHA256 + `"}`, "perceptual_hash"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := counted()
			r := e.do(t, "POST", "/api/v1/verify/lookup", nil, tt.body)
			if r.status != 400 || !strings.Contains(r.body, `"field":"`+tt.field+`"`) {
				t.Errorf("%d %s, want 400 naming %s", r.status, r.body, tt.field)
			}
			if n := counted() - before; n != 0 {
				t.Errorf("counted %d times, want never", n)
			}
		})
	}
}
