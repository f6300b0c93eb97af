package videos

import (
	"strings"

	"github.com/provenant/provenant/shared/wire"
)

// words say the shared verdict's picture words of a video: its local
// signatures and perceptual hash compare one frame of the clip with the
// signed video's frame at the same second, not two pictures.
var words = strings.NewReplacer(
	"the signed picture", "the signed video's frame",
	"another picture", "another video",
	"the picture's", "this clip's frame's",
	"the picture", "this clip's frame",
	"its picture", "its frame",
)

// Wording rewrites the details of v, a video's verdict as the shared
// verdict wrote it for a picture, to speak of the video and the clip's
// frame: the watermark, SHA-256, perceptual hash and blockchain checks'
// details and the resemblance's. Nothing else of v changes.
func Wording(v *wire.VerifyResponse) {
	for _, c := range []*wire.Check{&v.Checks.Watermark, &v.Checks.SHA256, &v.Checks.PerceptualHash, &v.Checks.Blockchain} {
		c.Details = words.Replace(c.Details)
	}
	if v.Resembles != nil {
		v.Resembles.Detail = words.Replace(v.Resembles.Detail)
	}
}
