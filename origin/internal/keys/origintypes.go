package keys

import (
	"errors"

	"github.com/provenant/provenant/shared/wire"
)

// OriginType describes how a piece of content came to be. A signing key
// declares one; verification results present it as {category, code, label}.
type OriginType = wire.OriginType

// originTypes is the fixed list served by GET /api/v1/origin-types. Codes
// are stable identifiers: add new ones, never rename or remove.
var originTypes = []OriginType{
	{Category: "capture", Code: "camera_image", Label: "Camera photo"},
	{Category: "capture", Code: "camera_video", Label: "Camera video"},
	{Category: "ai_generated", Code: "ai_generated_image", Label: "AI-generated image"},
	{Category: "ai_generated", Code: "ai_generated_video", Label: "AI-generated video"},
	{Category: "edited", Code: "edited_image", Label: "Edited image"},
	{Category: "edited", Code: "edited_video", Label: "Edited video"},
	{Category: "edited", Code: "ai_edited_image", Label: "AI-edited image"},
	{Category: "edited", Code: "composite_image", Label: "Composite image"},
	{Category: "screen", Code: "screenshot", Label: "Screenshot"},
	{Category: "screen", Code: "screen_recording", Label: "Screen recording"},
	{Category: "scan", Code: "scanned_document", Label: "Scanned document"},
	{Category: "scan", Code: "scanned_image", Label: "Scanned photo or artwork"},
	{Category: "created", Code: "digital_illustration", Label: "Digital illustration or graphic"},
	{Category: "created", Code: "rendered_3d", Label: "3D render"},
}

// OriginTypes returns every origin type (a fresh copy, in display order).
func OriginTypes() []OriginType { return append([]OriginType(nil), originTypes...) }

// LookupOriginType returns the origin type with code, if it exists.
func LookupOriginType(code string) (OriginType, bool) {
	for _, t := range originTypes {
		if t.Code == code {
			return t, true
		}
	}
	return OriginType{}, false
}

// ErrOriginTypeNotVideo: the signing key declares an origin that no video
// can have (a scan), so it signs no video.
var ErrOriginTypeNotVideo = errors.New("keys: the signing key's origin type does not apply to a video")

// VideoOriginType returns the origin type a video signed with a key that
// declares code carries: the key's own when it applies to video, the
// video counterpart of a picture's (a camera key's video is a "Camera
// video", never a "Camera photo"), or ErrOriginTypeNotVideo for an
// origin no video has.
func VideoOriginType(code string) (string, error) {
	switch code {
	case "camera_image":
		return "camera_video", nil
	case "ai_generated_image":
		return "ai_generated_video", nil
	case "edited_image", "ai_edited_image", "composite_image":
		return "edited_video", nil
	case "screenshot":
		return "screen_recording", nil
	case "scanned_document", "scanned_image":
		return "", ErrOriginTypeNotVideo
	}
	// Video types, and those whose label fits a video as well as a
	// picture (a 3D render, an illustration or graphic).
	return code, nil
}
