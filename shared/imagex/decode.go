package imagex

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/webp"

	"github.com/provenant/provenant/shared/limits"
)

// Format is an accepted image container, named as image.RegisterFormat would.
type Format string

// The accepted formats. Anything else is [ErrUnsupportedFormat].
const (
	JPEG Format = "jpeg"
	PNG  Format = "png"
	GIF  Format = "gif"
	WebP Format = "webp"
)

// MIMEType returns the media type of f, or "" for an unknown format.
func (f Format) MIMEType() string {
	switch f {
	case JPEG, PNG, GIF, WebP:
		return "image/" + string(f)
	}
	return ""
}

// Sentinel errors of this package. Every error returned by [Sniff],
// [DecodeConfig] and [Decode] wraps exactly one of them, so an HTTP layer can
// map it to a stable problem code with errors.Is.
var (
	// ErrEmpty: no bytes at all.
	ErrEmpty = errors.New("imagex: empty input")
	// ErrTooLarge: the file has more bytes than the limit allows.
	ErrTooLarge = errors.New("imagex: file too large")
	// ErrUnsupportedFormat: the bytes are not JPEG, PNG, GIF or WebP.
	ErrUnsupportedFormat = errors.New("imagex: unsupported format")
	// ErrTooManyPixels: the declared dimensions exceed the pixel or side limit.
	// The concrete error is a *[DimensionError].
	ErrTooManyPixels = errors.New("imagex: image dimensions exceed limit")
	// ErrCorrupt: the bytes sniffed as an accepted format but do not decode
	// (truncated, malformed, or the decoder panicked).
	ErrCorrupt = errors.New("imagex: corrupt image")
)

// DimensionError reports an image whose declared size exceeds the limits,
// before any pixel memory is allocated. It unwraps to [ErrTooManyPixels].
type DimensionError struct {
	Format        Format
	Width, Height int
	MaxPixels     int64
	MaxSide       int
}

func (e *DimensionError) Error() string {
	return fmt.Sprintf("imagex: %s declares %d×%d (%d pixels), limit %d pixels and %d per side",
		e.Format, e.Width, e.Height, int64(e.Width)*int64(e.Height), e.MaxPixels, e.MaxSide)
}

// Unwrap returns [ErrTooManyPixels].
func (e *DimensionError) Unwrap() error { return ErrTooManyPixels }

// Sniff returns the format of b from its leading magic bytes, against the
// allow-list JPEG, PNG, GIF, WebP. It never looks at a file name or a declared
// content type; a mismatch with those is the caller's to refuse.
func Sniff(b []byte) (Format, error) {
	switch {
	case len(b) == 0:
		return "", ErrEmpty
	case len(b) >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF:
		return JPEG, nil
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return PNG, nil
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return GIF, nil
	case len(b) >= 12 && bytes.Equal(b[:4], []byte("RIFF")) && bytes.Equal(b[8:12], []byte("WEBP")):
		return WebP, nil
	}
	return "", ErrUnsupportedFormat
}

// Info is what the header of an image declares.
type Info struct {
	Format Format
	// Width and Height are the stored dimensions, before EXIF orientation.
	Width, Height int
	// Orientation is the EXIF orientation (1..8) of a JPEG; 1 for other formats
	// and for JPEGs without a valid tag.
	Orientation int
}

// OrientedSize returns the dimensions after applying Orientation.
func (i Info) OrientedSize() (w, h int) {
	if i.Orientation >= 5 {
		return i.Height, i.Width
	}
	return i.Width, i.Height
}

// DecodeConfig sniffs b, reads its header and checks the declared dimensions
// against lim, without allocating pixel memory. It never panics.
func DecodeConfig(b []byte, lim limits.Limits) (Info, error) {
	if int64(len(b)) > lim.MaxUploadBytes {
		return Info{}, fmt.Errorf("%w: %d bytes > %d", ErrTooLarge, len(b), lim.MaxUploadBytes)
	}
	f, err := Sniff(b)
	if err != nil {
		return Info{}, err
	}
	var cfg image.Config
	err = guard(func() (err error) {
		r := bytes.NewReader(b)
		switch f {
		case JPEG:
			cfg, err = jpeg.DecodeConfig(r)
		case PNG:
			cfg, err = png.DecodeConfig(r)
		case GIF:
			cfg, err = gif.DecodeConfig(r)
		case WebP:
			cfg, err = webp.DecodeConfig(r)
		}
		return err
	})
	if err != nil {
		return Info{}, fmt.Errorf("%w: %s header: %w", ErrCorrupt, f, err)
	}
	info := Info{Format: f, Width: cfg.Width, Height: cfg.Height, Orientation: 1}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return Info{}, fmt.Errorf("%w: %s declares %d×%d", ErrCorrupt, f, cfg.Width, cfg.Height)
	}
	if cfg.Width > lim.MaxSide || cfg.Height > lim.MaxSide || int64(cfg.Width)*int64(cfg.Height) > lim.MaxPixels {
		return Info{}, &DimensionError{Format: f, Width: cfg.Width, Height: cfg.Height, MaxPixels: lim.MaxPixels, MaxSide: lim.MaxSide}
	}
	if f == JPEG {
		info.Orientation = JPEGOrientation(b)
	}
	return info, nil
}

// Image is a decoded image.
type Image struct {
	Info
	// Image holds the pixels with the EXIF orientation already applied, at
	// origin (0, 0). JPEG gives *image.YCbCr (or *image.Gray, *image.CMYK),
	// PNG one of the image package's concrete types, GIF *image.Paletted (the
	// first frame), WebP *image.YCbCr, *image.NYCbCrA or *image.NRGBA.
	Image image.Image
}

// Decode sniffs b, checks its declared size against lim with [DecodeConfig]
// and only then decodes it. GIF yields its first frame; a JPEG's EXIF
// orientation is applied. Every failure wraps one of this package's sentinel
// errors; a decoder panic becomes [ErrCorrupt]. Trailing bytes after the end
// of the image (for example a ZIP appended to a PNG) are ignored, as the
// standard decoders do: the SHA-256 still covers them, and files Provenant
// serves are re-encoded from pixels so the trailer never travels on.
func Decode(b []byte, lim limits.Limits) (*Image, error) {
	info, err := DecodeConfig(b, lim)
	if err != nil {
		return nil, err
	}
	var img image.Image
	err = guard(func() (err error) {
		r := bytes.NewReader(b)
		switch info.Format {
		case JPEG:
			img, err = jpeg.Decode(r)
		case PNG:
			img, err = png.Decode(r)
		case GIF:
			img, err = gif.Decode(r)
		case WebP:
			img, err = webp.Decode(r)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCorrupt, info.Format, err)
	}
	if bd := img.Bounds(); bd.Dx() != info.Width || bd.Dy() != info.Height {
		// GIF frames may be smaller than the logical screen; keep what was decoded.
		if bd.Dx() <= 0 || bd.Dy() <= 0 || bd.Dx() > info.Width || bd.Dy() > info.Height {
			return nil, fmt.Errorf("%w: %s decoded %v, header said %d×%d", ErrCorrupt, info.Format, bd, info.Width, info.Height)
		}
		info.Width, info.Height = bd.Dx(), bd.Dy()
	}
	img = Orient(img, info.Orientation)
	return &Image{Info: info, Image: img}, nil
}

// guard runs fn and turns a panic into an error.
func guard(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("decoder panic: %v", r)
		}
	}()
	return fn()
}
