package server

import (
	"strings"
	"testing"
)

// TestVideoSignRefusesUnmarkedCopy: another account's upload of a signed
// video's content without its mark (the unmarked source re-encoded at
// CRF 28 and scaled to 270 lines: neither the signed output's nor the
// original's SHA-256, no watermark) is refused naming the first signer,
// found by the fingerprint as verify finds a clip; the first signer's own
// re-upload is signed.
func TestVideoSignRefusesUnmarkedCopy(t *testing.T) {
	clip := videoClip(t, "mandelbrot", "8")
	ts := startServer(t, "", nil)
	news := ts.newSignerOrg("desk@original.example", "Original News")
	copycat := ts.newSignerOrg("desk@copycat.example", "Copycat Agency")
	r := ts.upload("/api/v1/sign?signing_key_id="+news.keyID, news.apiKey, []namedFile{{"file", "clip.mp4", clip}}, nil)
	ts.mustStatus(r, 201, "Original News signs the clip")
	id, _ := r.json(t)["record_id"].(string)
	unmarked := edit(t, clip, ".mp4", "-vf", "scale=-2:270", "-c:v", "libx264", "-preset", "veryfast", "-crf", "28", "-c:a", "copy")
	r = ts.upload("/api/v1/sign?signing_key_id="+copycat.keyID, copycat.apiKey, []namedFile{{"file", "copy.mp4", unmarked}}, nil)
	if p := r.signProblem(t); r.status != 409 || p.Code != "already_signed" || p.RecordID != id || !strings.Contains(p.Detail, "perceptual_hash") {
		t.Fatalf("copycat signs the unmarked copy: %d %s, want 409 already_signed naming %s by perceptual hash", r.status, r.body, id)
	}
	r = ts.upload("/api/v1/sign?signing_key_id="+news.keyID, news.apiKey, []namedFile{{"file", "again.mp4", unmarked}}, nil)
	ts.mustStatus(r, 201, "Original News signs its own re-encode")
}
