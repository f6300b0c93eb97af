package keys

// OriginType describes how a piece of content came to be. A signing key
// declares one; verification results present it as {category, code, label}.
type OriginType struct {
	Category string `json:"category"`
	Code     string `json:"code"`
	Label    string `json:"label"`
}

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
