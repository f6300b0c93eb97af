package keys

import (
	"errors"
	"strings"
	"testing"
)

// TestVideoOriginType: every origin type either maps to one a video can
// have (a listed type whose label says nothing of a photo, image, picture
// or scan) or refuses video.
func TestVideoOriginType(t *testing.T) {
	want := map[string]string{
		"camera_image":       "camera_video",
		"camera_video":       "camera_video",
		"ai_generated_image": "ai_generated_video",
		"edited_image":       "edited_video",
		"ai_edited_image":    "edited_video",
		"composite_image":    "edited_video",
		"screenshot":         "screen_recording",
		"screen_recording":   "screen_recording",
		"rendered_3d":        "rendered_3d",
		"scanned_image":      "",
		"scanned_document":   "",
	}
	for _, ot := range OriginTypes() {
		got, err := VideoOriginType(ot.Code)
		if w, ok := want[ot.Code]; ok {
			if got != w || (w == "") != errors.Is(err, ErrOriginTypeNotVideo) {
				t.Errorf("VideoOriginType(%s) = %q, %v; want %q", ot.Code, got, err, w)
			}
		}
		if err != nil {
			continue
		}
		vt, ok := LookupOriginType(got)
		if !ok {
			t.Errorf("VideoOriginType(%s) = %q, not an origin type", ot.Code, got)
			continue
		}
		for _, word := range []string{"photo", "image", "picture", "scan", "screenshot"} {
			if strings.Contains(strings.ToLower(vt.Label), word) {
				t.Errorf("a video signed with a %s key is labelled %q", ot.Code, vt.Label)
			}
		}
	}
}
