package server

import (
	"strings"
	"testing"
)

// TestVideoOriginType: a clip signed with a camera key (declared
// camera_image) is a "Camera video" in its verify answer and certificate,
// its re-encoded copy's details speak of frames, not pictures, and a key
// that declares a scan signs no video.
func TestVideoOriginType(t *testing.T) {
	clip := videoClip(t, "mandelbrot", "4")
	ts := startServer(t, "", nil)
	s := ts.newSigner("origin@clips.example")
	r := ts.signFile(s, clip, nil)
	ts.mustStatus(r, 201, "sign a clip with a camera_image key")
	id, signed := r.header.Get("X-Record-Id"), r.body

	for name, file := range map[string][]byte{
		"signed":    signed,
		"reencoded": edit(t, signed, ".mp4", "-c:v", "libx264", "-preset", "veryfast", "-crf", "26", "-c:a", "copy"),
	} {
		v := ts.verifyWire(file)
		if !v.Authentic || v.RecordID != id || v.Origin == nil || v.Origin.Code != "camera_video" || v.Origin.Label != "Camera video" {
			t.Errorf("%s: authentic %v record %q origin %+v, want %s as a Camera video", name, v.Authentic, v.RecordID, v.Origin, id)
		}
		if d := v.Checks.Watermark.Details; strings.Contains(d, "picture") {
			t.Errorf("%s: a video's watermark check speaks of a picture: %s", name, d)
		}
	}
	cert := ts.do("GET", "/api/v1/content-records/"+id+"/certificate", "", nil).json(t)
	if cert["origin_type"] != "camera_video" {
		t.Errorf("certificate origin_type %v, want camera_video", cert["origin_type"])
	}

	a := ts.register("scans@clips.example", "correct horse battery staple")
	k := ts.do("POST", "/api/v1/keys/signing-keys", a.token, map[string]string{"name": "Flatbed", "origin_type": "scanned_image"})
	ts.mustStatus(k, 201, "scanner key")
	apiKey, _ := ts.createAPIKey(a.token, map[string]any{"name": "ci"})
	scan := signer{account: a, keyID: k.json(t)["id"].(string), apiKey: apiKey}
	if r := ts.signFile(scan, clip, nil); r.status != 422 || r.problemCode(t) != "origin_type_not_video" {
		t.Errorf("a clip signed with a scanner key: %d %s, want 422 origin_type_not_video", r.status, r.body)
	}
}
