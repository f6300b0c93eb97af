package server

import (
	"testing"
	"time"

	"github.com/provenant/provenant/internal/allocs"
	"github.com/provenant/provenant/origin/origintest/hostile"
)

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

	padded := hostile.PaddedJPEG(t, (32<<20-64<<10)/4)
	var v response
	n := allocs.During(func() { v = ts.upload("/api/v1/verify", "", []namedFile{{"file", "padded.jpg", padded}}, nil) })
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
		strip := hostile.StripPNG(t, w, 256)
		start := time.Now()
		r := ts.signFile(s, strip, nil)
		if r.status != 422 || r.problemCode(t) != "aspect_ratio_out_of_limits" {
			t.Errorf("sign of a %d×256 PNG: %d %s, want 422 aspect_ratio_out_of_limits", w, r.status, r.body)
		}
		t.Logf("%d×256 PNG refused in %v", w, time.Since(start).Round(time.Millisecond))
	}
	// At the ratio the grid holds, a strip still signs.
	ts.mustStatus(ts.signFile(s, hostile.StripPNG(t, 64*256, 256), nil), 201, "sign of a 16384×256 PNG")

	// A parent store just under 16 MiB: ours on top would pass the limit.
	big := hostile.BigStoreJPEG(t)
	r = ts.signFile(s, big, nil)
	if r.status != 422 || r.problemCode(t) != "c2pa_store_too_large" {
		t.Errorf("sign with a %d MiB parent store: %d %s, want 422 c2pa_store_too_large", len(big)>>20, r.status, r.body)
	}
}
