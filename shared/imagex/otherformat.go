package imagex

import "bytes"

// OtherFormatError reports a file recognised as an image format this
// package does not read (AVIF, HEIC, JPEG XL, TIFF, BMP), so a caller can
// name it instead of saying only "unsupported". It unwraps to
// [ErrUnsupportedFormat], so every existing mapping still applies.
type OtherFormatError struct {
	// Name is the format as people know it, e.g. "AVIF" or "HEIC".
	Name string
}

func (e *OtherFormatError) Error() string {
	return "imagex: " + e.Name + " images are not supported (JPEG, PNG, GIF and WebP are)"
}

// Unwrap returns [ErrUnsupportedFormat].
func (e *OtherFormatError) Unwrap() error { return ErrUnsupportedFormat }

// isoImageBrands are the ISO base media file brands of still images and
// image sequences (ISO/IEC 23008-12 HEIF and its AVIF profile). A file
// with one as its major brand is a picture, not a video, even though it
// shares the ftyp box with MP4.
var isoImageBrands = map[string]string{
	"avif": "AVIF", "avis": "AVIF",
	"heic": "HEIC", "heix": "HEIC", "heim": "HEIC", "heis": "HEIC",
	"hevc": "HEIC", "hevx": "HEIC", "hevm": "HEIC", "hevs": "HEIC",
	"mif1": "HEIF", "msf1": "HEIF", "mif2": "HEIF",
}

// ISOImageBrand returns the image format named by an ISO base media
// file's major brand ("AVIF", "HEIC", "HEIF"), or "" when b is not such a
// file. Video sniffers call it so that a phone's photo is never taken for
// a clip.
func ISOImageBrand(b []byte) string {
	if len(b) < 12 || string(b[4:8]) != "ftyp" {
		return ""
	}
	return isoImageBrands[string(b[8:12])]
}

// otherFormat names a recognised image format that [Sniff] does not
// accept, or returns "".
func otherFormat(b []byte) string {
	switch {
	case ISOImageBrand(b) != "":
		return ISOImageBrand(b)
	case bytes.HasPrefix(b, []byte{0xFF, 0x0A}),
		bytes.HasPrefix(b, []byte("\x00\x00\x00\x0cJXL \r\n\x87\n")):
		return "JPEG XL"
	case bytes.HasPrefix(b, []byte("II*\x00")), bytes.HasPrefix(b, []byte("MM\x00*")):
		return "TIFF"
	case len(b) >= 14 && bytes.HasPrefix(b, []byte("BM")):
		return "BMP"
	}
	return ""
}
