package imagex

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"math"

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
	// ErrTooManyPixels: the declared dimensions exceed the pixel or side
	// limit, or decoding would need more memory than allowed (the limit's
	// MaxDecodeBytes, or the whole of a [Budget]). The concrete error is a
	// *[DimensionError].
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
	// NeedBytes and MaxBytes are set when the dimensions are within
	// MaxPixels and MaxSide but the memory is not: the bytes the image
	// needs and the bound it exceeds.
	NeedBytes, MaxBytes int64
}

func (e *DimensionError) Error() string {
	if e.NeedBytes > 0 {
		return fmt.Sprintf("imagex: %s declares %d×%d, which needs %d bytes to decode, limit %d",
			e.Format, e.Width, e.Height, e.NeedBytes, e.MaxBytes)
	}
	return fmt.Sprintf("imagex: %s declares %d×%d (%d pixels), limit %d pixels and %d per side",
		e.Format, e.Width, e.Height, int64(e.Width)*int64(e.Height), e.MaxPixels, e.MaxSide)
}

// Unwrap returns [ErrTooManyPixels].
func (e *DimensionError) Unwrap() error { return ErrTooManyPixels }

// Sniff returns the format of b from its leading magic bytes, against the
// allow-list JPEG, PNG, GIF, WebP; a recognised other image format is an
// [*OtherFormatError] naming it. It never looks at a file name or a declared
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
	if name := otherFormat(b); name != "" {
		return "", &OtherFormatError{Name: name}
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
	// DecodeBytes is the most memory [Decode] holds at once for this image:
	// the decoder's output in its own pixel type and its working buffers
	// (progressive JPEG coefficients, interlaced PNG passes, colour
	// conversion, the EXIF orientation copy), read from the header.
	DecodeBytes int64
	lay         layout
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
	// The PNG decoder refuses dimensions whose 8-byte-per-pixel buffer
	// would overflow before it reports them; read them first so that such a
	// header is "too many pixels", not "corrupt".
	var lay layout
	layOK := false
	if f == PNG {
		w, h, l, dims, ok := pngLayout(b)
		if dims && w > 0 && h > 0 && w <= math.MaxInt32 && h <= math.MaxInt32 &&
			(w > int64(lim.MaxSide) || h > int64(lim.MaxSide) || w*h > lim.MaxPixels) {
			return Info{}, &DimensionError{Format: f, Width: int(w), Height: int(h), MaxPixels: lim.MaxPixels, MaxSide: lim.MaxSide}
		}
		lay, layOK = l, ok
	}
	var cfg image.Config
	_, config := stdDecoders(f)
	err = guard(func() (err error) {
		cfg, err = config(bytes.NewReader(b))
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
	px := int64(cfg.Width) * int64(cfg.Height)
	switch f {
	case JPEG:
		lay, layOK = jpegLayout(b, info.Orientation)
	case GIF:
		lay, layOK = gifLayout(b)
	case WebP:
		lay, layOK = webpLayout(b, int64(cfg.Width), int64(cfg.Height))
	}
	if !layOK || lay.peak <= 0 || lay.out <= 0 {
		lay = worstLayout(f, px)
	}
	info.lay, info.DecodeBytes = lay, lay.peak
	if info.DecodeBytes > lim.MaxDecodeBytes {
		return Info{}, &DimensionError{Format: f, Width: cfg.Width, Height: cfg.Height, MaxPixels: lim.MaxPixels, MaxSide: lim.MaxSide,
			NeedBytes: info.DecodeBytes, MaxBytes: lim.MaxDecodeBytes}
	}
	return info, nil
}

// Use says what a caller does with the pixels after [Decode], which sets
// the memory [Info.Cost] counts.
type Use uint8

const (
	// UseVerify: one luminance plane, the perceptual hash and the
	// watermark detector.
	UseVerify Use = iota
	// UseMark: as UseVerify, plus the watermark embedder (its working
	// images, up to two marked copies of the pixels and their luminance
	// planes) and the re-encoded file.
	UseMark
)

// Working memory of the watermark, per pixel of its working image (whose
// short side is 256: the shared/watermark scheme), and a floor for the
// hash, the detector's tables and small buffers. Measured peaks (heap
// sampled under GOGC=5 on 6 and 4 megapixel images, one of them 16000×256):
// about 12.5 bytes per working pixel for detection and 23 for embedding;
// the detector's search for a picture inside a busy frame and its wider
// crop search brought long strips to about 22 per working pixel (26 keeps a margin).
// TestCostBoundsPipeline checks Cost against the real pipeline, so a change
// of the watermark's working size shows there.
const (
	workShort      = 256
	verifyWorkByte = 26
	markWorkByte   = 32
	costFloor      = 8 << 20
)

// Cost returns the memory, in bytes, that decoding the image described by
// i (as returned by [DecodeConfig]) and then processing it for u holds at
// its peak: [Info.DecodeBytes], the luminance plane, the copies the
// watermark makes and its working images. The watermark works on an image
// whose short side is 256 pixels, so a long thin strip costs far more than
// its pixel count suggests; Cost counts that too.
func (i Info) Cost(u Use) int64 {
	w, h := int64(i.Width), int64(i.Height)
	if w <= 0 || h <= 0 {
		return costFloor
	}
	px := w * h
	work := workShort * workShort * max(w, h) / min(w, h)
	if u == UseVerify {
		// The luminance plane is counted even where the caller can take a
		// view of the Y or grey plane instead of a copy.
		return i.DecodeBytes + px + verifyWorkByte*work + costFloor
	}
	marked := i.lay.out
	if i.lay.kind == kindOther {
		marked = 4 * px
	}
	// Embed reads one luminance plane and another of its result; Sign a
	// third for the hash. A second marked copy exists while the embedder
	// corrects its strength; the encoder's buffer is bounded by one more.
	return i.DecodeBytes + 3*px + 3*marked + markWorkByte*work + costFloor
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
	return DecodeWith(b, lim, StdJPEG{})
}

// DecodeWith is [Decode] with JPEG files decoded by c (nil means
// [StdJPEG]); other formats decode as in Decode. The header checks, the
// orientation, the result's types and the errors are Decode's.
func DecodeWith(b []byte, lim limits.Limits, c JPEGCodec) (*Image, error) {
	if c == nil {
		c = StdJPEG{}
	}
	info, err := DecodeConfig(b, lim)
	if err != nil {
		return nil, err
	}
	var img image.Image
	decode, _ := stdDecoders(info.Format)
	err = guard(func() (err error) {
		if info.Format == JPEG {
			img, err = c.DecodeJPEG(b, info)
		} else {
			img, err = decode(bytes.NewReader(b))
		}
		return err
	})
	if errors.Is(err, ErrTooManyPixels) || errors.Is(err, ErrCorrupt) {
		return nil, err
	}
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

// stdDecoders are the standard library's (and x/image's) decoder and
// header reader for f, one of the formats Sniff returns: its callers have
// only those, so any other is a bug and panics rather than decoding as
// some format it is not.
func stdDecoders(f Format) (func(io.Reader) (image.Image, error), func(io.Reader) (image.Config, error)) {
	switch f {
	case JPEG:
		return jpeg.Decode, jpeg.DecodeConfig
	case PNG:
		return png.Decode, png.DecodeConfig
	case GIF:
		return gif.Decode, gif.DecodeConfig
	case WebP:
		return webp.Decode, webp.DecodeConfig
	}
	panic(fmt.Sprintf("imagex: no decoder for format %q", f))
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
