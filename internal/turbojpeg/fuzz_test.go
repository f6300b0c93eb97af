//go:build turbo && cgo

package turbojpeg

import (
	"errors"
	"image"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
)

// FuzzDecode checks the TurboJPEG decode boundary: any bytes give an image
// of the size the header check read and within the limits, or an error
// wrapping one of imagex's sentinels; never a crash, a panic or a write
// outside the planes. The seeds (testdata/fuzz/FuzzDecode) are small
// JPEGs of every subsampling, progressive, restart-interval, grey,
// arithmetic-coded and damaged files.
func FuzzDecode(f *testing.F) {
	lim := limits.Default()
	lim.MaxPixels = 1 << 18 // small enough for the fuzzer to hit
	lim.MaxSide = 4096
	lim.MaxUploadBytes = 1 << 20
	lim.MaxDecodeBytes = 8 << 20
	f.Fuzz(func(t *testing.T, b []byte) {
		// The plane decoder on its own first, without the image/jpeg
		// fallback and outside imagex's panic guard, so that a write past
		// its planes (a panic) fails the target.
		if info, err := imagex.DecodeConfig(b, lim); err == nil && info.Format == imagex.JPEG {
			if m, err := decodePlanes(b, info); err == nil {
				if m.Bounds() != image.Rect(0, 0, info.Width, info.Height) {
					t.Fatalf("planes %v, header %d×%d", m.Bounds(), info.Width, info.Height)
				}
				if y, ok := m.(*image.YCbCr); ok {
					last := y.Rect.Max.Sub(image.Pt(1, 1))
					_ = y.Y[y.YOffset(last.X, last.Y)]
					_ = y.Cr[y.COffset(last.X, last.Y)]
				}
			}
		}
		img, err := imagex.DecodeWith(b, lim, Codec{})
		if err != nil {
			for _, s := range []error{imagex.ErrEmpty, imagex.ErrTooLarge, imagex.ErrUnsupportedFormat, imagex.ErrTooManyPixels, imagex.ErrCorrupt} {
				if errors.Is(err, s) {
					return
				}
			}
			t.Fatalf("error %v wraps no sentinel", err)
		}
		w, h := img.OrientedSize()
		if bd := img.Image.Bounds(); bd != image.Rect(0, 0, w, h) || int64(w)*int64(h) > lim.MaxPixels {
			t.Fatalf("bounds %v, header %d×%d", bd, w, h)
		}
	})
}
