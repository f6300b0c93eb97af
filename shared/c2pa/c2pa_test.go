package c2pa_test

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/c2pa/c2patest"
	"github.com/provenant/provenant/shared/internal/phototest"
)

func testImage() image.Image {
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for y := 0; y < 48; y++ {
		for x := 0; x < 64; x++ {
			img.Set(x, y, color.RGBA{uint8(x * 4), uint8(y * 5), uint8(x ^ y), 255})
		}
	}
	return img
}

// containerCase is a picture in one of the containers Embed writes, with
// its media type and file extension.
type containerCase struct {
	name, format, ext string
	file              []byte
}

// containerCases returns a test picture in each container: JPEG and PNG.
func containerCases(t testing.TB) []containerCase {
	return []containerCase{
		{"jpeg", "image/jpeg", ".jpg", testJPEG(t)},
		{"png", "image/png", ".png", testPNG(t)},
	}
}

// signedCase is a container case signed by mustEmbed with testManifest:
// the signed file, the manifest's label and the bare store.
type signedCase struct {
	containerCase
	out   []byte
	id    string
	store []byte
}

// signedCases signs every container case with one fresh test signer.
func signedCases(t testing.TB) []signedCase {
	t.Helper()
	s := c2patest.NewSigner(t, c2patest.CertOptions{})
	var cases []signedCase
	for _, c := range containerCases(t) {
		out, id, store := mustEmbed(t, c.file, testManifest(c.format), s)
		cases = append(cases, signedCase{c, out, id, store})
	}
	return cases
}

func testJPEG(t testing.TB) []byte {
	return phototest.JPEG(t, testImage(), 85)
}

func testPNG(t testing.TB) []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, testImage()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func testManifest(format string) c2pa.Manifest {
	return c2pa.Manifest{
		ClaimGenerator: "Provenant/test",
		Title:          "photo",
		Format:         format,
		InstanceID:     "xmp:iid:6a0f1f5e-5b2c-4b7e-9d1e-0c1f2a3b4c5d",
		Actions: []c2pa.Action{{
			Action:            "c2pa.created",
			DigitalSourceType: "http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture",
			SoftwareAgent:     "Provenant/test",
			When:              time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		}, {Action: "c2pa.watermarked", SoftwareAgent: "Provenant/test"}},
		SoftBindings: []c2pa.SoftBinding{{Alg: "io.provenant.watermark.1", Value: []byte{1, 2, 3, 4}}},
		Assertions:   []c2pa.Assertion{{Label: "io.provenant.record", Data: map[string]any{"record": "r-123"}}},
	}
}

func TestEmbedRead(t *testing.T) {
	for _, tc := range signedCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			r, err := c2pa.Read(tc.out, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if r.State != "valid" || r.ActiveManifest != tc.id {
				t.Fatalf("report %+v", r)
			}
			got, err := c2pa.Extract(tc.out)
			if err != nil || !bytes.Equal(got, tc.store) {
				t.Fatalf("extract: %v", err)
			}
			stripped, err := c2pa.Strip(tc.out)
			if err != nil || !bytes.Equal(stripped, tc.file) {
				t.Fatalf("strip did not give back the input: %v", err)
			}
			t.Logf("%+v", r)
		})
	}
}

// mustEmbed signs m into file with s, failing the test on an error: the
// signed file, the manifest's label and the bare store.
func mustEmbed(t testing.TB, file []byte, m c2pa.Manifest, s c2pa.Signer) (out []byte, id string, store []byte) {
	t.Helper()
	out, id, store, err := c2pa.Embed(file, m, s)
	if err != nil {
		t.Fatal(err)
	}
	return out, id, store
}
