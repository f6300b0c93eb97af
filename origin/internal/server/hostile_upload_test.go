package server

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
	"runtime"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/c2pa/c2patest"
)

// hostileJPEG is a valid 400×300 JPEG padded after SOI with n empty COM
// segments.
func hostileJPEG(t *testing.T, n int) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 400, 300))
	for i := range img.Pix {
		img.Pix[i] = uint8(i*7 + i/400)
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	out := append(make([]byte, 0, b.Len()+4*n), b.Bytes()[:2]...)
	for range n {
		out = append(out, 0xff, 0xfe, 0x00, 0x02)
	}
	return append(out, b.Bytes()[2:]...)
}

// stripPNG is an 8-bit grey PNG of w×h.
func stripPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i % 251)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// allocatedDuring returns what the process (the origin included)
// allocated while fn ran.
func allocatedDuring(fn func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	fn()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestHostileImageUploadsAnsweredEarly: what a client can send that made
// the origin do unbounded work or answer 500 is answered with a stable
// code, early: a JPEG padded with 8.3 million empty COM segments (32 MiB)
// is verified with its padding counted as a malformed C2PA structure and
// allocates about what its upload does (the walk that built an entry per
// segment allocated over 1 GiB) and is refused for signing with
// c2pa_unreadable; 8-bit PNG strips of 24000×256 and 60000×256 are
// refused for signing from their header (aspect_ratio_out_of_limits), not
// after seconds of embedding; an upload whose C2PA store is near 16 MiB
// is refused with c2pa_store_too_large.
func TestHostileImageUploadsAnsweredEarly(t *testing.T) {
	ts := startServer(t, "", nil)
	s := ts.newSigner("hostile@example.com")

	padded := hostileJPEG(t, (32<<20-64<<10)/4)
	var v response
	n := allocatedDuring(func() { v = ts.upload("/api/v1/verify", "", []namedFile{{"file", "padded.jpg", padded}}, nil) })
	ts.mustStatus(v, 200, "verify of the padded JPEG")
	if c, _ := v.json(t)["c2pa"].(map[string]any); c == nil || c["validation_state"] != "invalid" {
		t.Errorf("verify of the padded JPEG: c2pa %v, want invalid (malformed structure)", v.json(t)["c2pa"])
	}
	t.Logf("verify of a %d MiB padded JPEG allocated %d MiB in the process", len(padded)>>20, n>>20)
	if n > 400<<20 {
		t.Errorf("verify of the padded JPEG allocated %d MiB, want under 400 MiB", n>>20)
	}
	r := ts.signFile(s, padded, nil)
	if r.status != 422 || r.problemCode(t) != "c2pa_unreadable" {
		t.Errorf("sign of the padded JPEG: %d %s, want 422 c2pa_unreadable", r.status, r.body)
	}

	for _, w := range []int{24000, 60000} {
		strip := stripPNG(t, w, 256)
		start := time.Now()
		r := ts.signFile(s, strip, nil)
		if r.status != 422 || r.problemCode(t) != "aspect_ratio_out_of_limits" {
			t.Errorf("sign of a %d×256 PNG: %d %s, want 422 aspect_ratio_out_of_limits", w, r.status, r.body)
		}
		t.Logf("%d×256 PNG refused in %v", w, time.Since(start).Round(time.Millisecond))
	}
	// At the ratio the grid holds, a strip still signs.
	ts.mustStatus(ts.signFile(s, stripPNG(t, 64*256, 256), nil), 201, "sign of a 16384×256 PNG")

	// A parent store just under 16 MiB: ours on top would pass the limit.
	img := image.NewGray(image.Rect(0, 0, 640, 480))
	for i := range img.Pix {
		img.Pix[i] = uint8(i*13 + i/640)
	}
	var jb bytes.Buffer
	if err := jpeg.Encode(&jb, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	pad := make([]byte, c2pa.MaxStoreBytes-256<<10)
	for i := range pad {
		pad[i] = byte(i * 31)
	}
	big, _, _, err := c2pa.Embed(jb.Bytes(), c2pa.Manifest{ClaimGenerator: "test/1", Title: "big.jpg", Format: "image/jpeg",
		Assertions: []c2pa.Assertion{{Label: "org.example.padding", Data: map[string]any{"pad": pad}}}}, c2patest.NewSigner(t, c2patest.CertOptions{}))
	if err != nil {
		t.Fatalf("building the large parent: %v", err)
	}
	r = ts.signFile(s, big, nil)
	if r.status != 422 || r.problemCode(t) != "c2pa_store_too_large" {
		t.Errorf("sign with a %d MiB parent store: %d %s, want 422 c2pa_store_too_large", len(big)>>20, r.status, r.body)
	}
}
