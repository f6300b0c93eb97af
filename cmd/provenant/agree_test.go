package main

import (
	"bytes"
	"encoding/json"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/image/draw"

	"github.com/provenant/provenant/client"
	"github.com/provenant/provenant/origin/origintest"
)

// TestVerifyLocalTextAgrees: `provenant verify --local` prints the same
// verdict text as `provenant verify` (the upload), word for word but the
// line saying where it was computed, for an exact copy, a re-encoded one,
// an unrelated picture and a revoked record; and the exit codes agree.
func TestVerifyLocalTextAgrees(t *testing.T) {
	// Nothing anchors during the test: both verifications see one state.
	o := origintest.Start(t, origintest.Options{BatchInterval: time.Hour})
	c := signerCLI(t, o.URL, "agree@example.com", "Agree News")
	dir := t.TempDir()
	photo(t, filepath.Join(dir, "a.jpg"), 31)
	photo(t, filepath.Join(dir, "b.jpg"), 32)
	c.must(0, "", "sign", filepath.Join(dir, "a.jpg"), filepath.Join(dir, "b.jpg"))
	signed, revoked := filepath.Join(dir, "a.signed.jpg"), filepath.Join(dir, "b.signed.jpg")
	r := c.must(0, "", "--json", "verify", revoked)
	var v client.VerifyResponse
	if err := json.Unmarshal([]byte(r.out), &v); err != nil || v.RecordID == "" {
		t.Fatalf("verify: %s (%v)", r.out, err)
	}
	c.must(0, "", "records", "revoke", v.RecordID, "--reason", "wrong picture")
	reencoded := filepath.Join(dir, "a.small.jpg")
	shrink(t, signed, reencoded)
	unrelated := filepath.Join(dir, "other.jpg")
	photo(t, unrelated, 1234)

	for _, f := range []string{signed, reencoded, unrelated, revoked} {
		t.Run(filepath.Base(f), func(t *testing.T) {
			up := c.run("", "verify", f)
			lo := c.run("", "verify", "--local", f)
			if up.code != lo.code || (up.code != 0 && up.code != 1) {
				t.Errorf("exit %d by upload, %d locally", up.code, lo.code)
			}
			norm := func(s string) string {
				s = strings.ReplaceAll(s, "computed by the origin (the file was uploaded)", "computed")
				return strings.ReplaceAll(s, "computed on this machine (only the file's facts were sent)", "computed")
			}
			if norm(up.out) != norm(lo.out) {
				t.Errorf("by upload:\n%s\nlocally:\n%s", up.out, lo.out)
			}
		})
	}
}

// shrink writes src at 70 % of its size, JPEG quality 60.
func shrink(t *testing.T, src, dst string) {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(readFile(t, src)))
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx()*7/10, b.Dy()*7/10))
	draw.CatmullRom.Scale(out, out.Bounds(), img, b, draw.Src, nil)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, out, &jpeg.Options{Quality: 60}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
