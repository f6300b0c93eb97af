package server

import (
	"testing"

	"github.com/provenant/provenant/origin/internal/testkit"
	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/c2pa/c2patest"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/watermark"
)

// The picture helpers the tests share: decode, encode, watermark and hash
// a picture as a client or a copier would, failing the test on an error.

// watermarked is picture with payload p embedded by the project's own
// embedder, encoded at quality 92.
func watermarked(t testing.TB, picture []byte, p watermark.Payload) []byte {
	t.Helper()
	marked, err := watermark.Embed(testkit.DecodeJPEG(t, picture), p)
	if err != nil {
		t.Fatal(err)
	}
	return testkit.EncodeJPEG(t, marked, 92)
}

// phashOf is the perceptual hash the origin computes for file.
func phashOf(t testing.TB, file []byte) phash.Hash {
	t.Helper()
	ph, err := phash.Compute(testkit.Luma(t, file))
	if err != nil {
		t.Fatal(err)
	}
	return ph
}

// cameraManifest is jpg carrying a manifest a third party's camera signed
// (a certificate chain this origin's CA did not issue).
func cameraManifest(t testing.TB, jpg []byte) []byte {
	t.Helper()
	out, _, _, err := c2pa.Embed(jpg, c2pa.Manifest{ClaimGenerator: "Camera/1.0", Format: "image/jpeg"},
		c2patest.NewSigner(t, c2patest.CertOptions{Org: "Third Party Camera"}))
	if err != nil {
		t.Fatal(err)
	}
	return out
}
