package facts

import (
	"errors"
	"fmt"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/phash"
)

// ErrPlaneSize is returned by [FromPlane] for a plane that is not the
// size [PlaneSize] gives for the picture.
var ErrPlaneSize = errors.New("facts: luminance plane of the wrong size")

// PlaneSize returns the size of the luminance plane [FromPlane] takes for
// a picture of w×h pixels (EXIF orientation applied): ceil(w/s)×ceil(h/s),
// s being the reduction [Analyze] decodes a JPEG at (imagex.LumaScale with
// [VerifyShortSide]), for every format. A host that decodes the picture
// itself (a browser) asks its decoder for this size.
func PlaneSize(w, h int) (pw, ph, s int) {
	s = imagex.LumaScale(w, h, VerifyShortSide)
	return (w + s - 1) / s, (h + s - 1) / s, s
}

// FromPlane is [Analyze] for a picture decoded by the host (a browser's
// own decoder): l is the luminance of the w×h picture, orientation
// applied, resampled to [PlaneSize] by area averaging (or as close to it
// as the host's scaler comes); sum is the SHA-256 of the file's exact
// bytes; format is what the file's header says. The checks are the ones
// Analyze runs on its own decode (the same code after the decode), so
// the facts differ from Analyze's only as much as the two decoders'
// pixels do: a level or two, which the thresholds absorb.
func FromPlane(l *imagex.Luma, format imagex.Format, w, h int, sum [32]byte) (Facts, error) {
	pw, ph, s := PlaneSize(w, h)
	if l == nil || l.Width != pw || l.Height != ph || l.Stride < l.Width || len(l.Pix) < (ph-1)*l.Stride+pw {
		got := "none"
		if l != nil {
			got = fmt.Sprintf("%d×%d", l.Width, l.Height)
		}
		return Facts{}, fmt.Errorf("%w: %s for a %d×%d picture, want %d×%d", ErrPlaneSize, got, w, h, pw, ph)
	}
	var hashPlane *imagex.Luma
	if s > 1 {
		// Upright already: the hash's blocks are placed as over a full
		// decode, as Analyze does for its reduced JPEG planes.
		red := &imagex.LumaImage{Info: imagex.Info{Format: format, Width: w, Height: h, Orientation: 1}, Luma: l, Scale: s}
		hashPlane = red.DownscaleAs(phash.Side256, phash.Side256)
	}
	return fromLuma(l, hashPlane, format, w, h, sum)
}
