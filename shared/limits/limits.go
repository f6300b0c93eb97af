// Package limits holds every upper bound the verification core enforces, in
// one place, so that the parse path and the verify path agree on them.
//
// The constants are defaults; the values the code actually enforces come from a
// [Limits] value passed in by the caller, so an operator can tighten or relax a
// bound without touching the code that checks it.
package limits

import (
	"errors"
	"fmt"
)

const (
	// DefaultMaxPixels is the largest decoded image, in pixels, that the core
	// accepts by default: 50 megapixels. A decoded image costs about 4 bytes per
	// pixel (RGBA) or 1.5 (YCbCr 4:2:0) plus its 1-byte luminance plane.
	DefaultMaxPixels = 50_000_000

	// DefaultMaxSide is the largest width or height accepted by default. It stops
	// 1×50M strips that pass the pixel bound but defeat per-row buffers.
	DefaultMaxSide = 65_535

	// DefaultMaxSignAspect is the largest ratio of long side to short side
	// of a picture the service signs by default: 64, what the local
	// signature grid holds (a 256-pixel short side and a long side of at
	// most 16,384 working pixels). A 24000×256 strip is refused from its
	// header instead of failing after its watermark was embedded.
	DefaultMaxSignAspect = 64

	// DefaultMaxDecodeBytes is the most memory the decoding of one image may
	// need by default: 512 MiB. It admits every 8-bit image at the pixel
	// limit (at most 4 bytes per pixel, 200 MB at 50 megapixels) and a
	// 16-bit RGBA PNG (8 bytes per pixel) up to about 67 megapixels, and
	// refuses the combinations that multiply the cost per pixel: an
	// interlaced 16-bit PNG or a progressive 4:4:4 JPEG near the pixel
	// limit.
	DefaultMaxDecodeBytes = 512 << 20

	// DefaultMaxUploadBytes is the largest uploaded file accepted by default: 32 MiB.
	DefaultMaxUploadBytes = 32 << 20

	// DefaultMaxProofLen is the largest Merkle audit path accepted by default.
	// 64 hashes cover trees of up to 2^64 leaves.
	DefaultMaxProofLen = 64

	// DefaultMaxCandidates is the largest number of candidate records the
	// verdict scores for one file.
	DefaultMaxCandidates = 16

	// MaxRecordBytes is the largest canonical record encoding the parser reads.
	MaxRecordBytes = 4096

	// MaxRecordField is the largest variable-length field (org name, origin
	// type, watermark payload) in a canonical record.
	MaxRecordField = 255

	// MaxEXIFBytes is the largest APP1 segment the EXIF orientation reader
	// inspects; a JPEG segment cannot exceed 65535 bytes anyway.
	MaxEXIFBytes = 65_535

	// MaxEXIFEntries is the largest number of IFD0 entries the EXIF orientation
	// reader walks.
	MaxEXIFEntries = 512
)

// Limits are the bounds enforced for one deployment. The zero value is not
// valid; start from [Default].
type Limits struct {
	// MaxPixels is the largest width×height a decoder may allocate for.
	MaxPixels int64
	// MaxSide is the largest width or height.
	MaxSide int
	// MaxDecodeBytes is the most memory the decoder may need for one image:
	// its output pixels in the decoder's own pixel type plus its working
	// buffers, estimated from the header before decoding (see
	// imagex.Info.DecodeBytes). It bounds what MaxPixels cannot: the same
	// pixel count costs 1 byte per pixel as grey and 8 as 16-bit RGBA.
	MaxDecodeBytes int64
	// MaxUploadBytes is the largest file, in bytes.
	MaxUploadBytes int64
	// MaxProofLen is the largest Merkle audit or consistency path, in hashes.
	MaxProofLen int
	// MaxCandidates is the largest number of candidate records per verdict.
	MaxCandidates int
	// MaxSignAspect is the largest ratio of long side to short side of a
	// picture to sign (see [Limits.CheckSignAspect]); zero means
	// DefaultMaxSignAspect, which is also the most the local signature grid
	// can hold.
	MaxSignAspect int
}

// ErrAspect is wrapped by [Limits.CheckSignAspect] errors.
var ErrAspect = errors.New("limits: aspect ratio out of range")

// CheckSignAspect reports, wrapping ErrAspect, a w×h picture whose long
// side is more than MaxSignAspect times its short side.
func (l Limits) CheckSignAspect(w, h int) error {
	a := l.MaxSignAspect
	if a <= 0 || a > DefaultMaxSignAspect {
		a = DefaultMaxSignAspect
	}
	long, short := max(w, h), min(w, h)
	if short <= 0 || long > a*short {
		return fmt.Errorf("%w: %d×%d is more than %d:1", ErrAspect, w, h, a)
	}
	return nil
}

// Default returns the default limits. It returns a fresh value each call.
func Default() Limits {
	return Limits{
		MaxPixels:      DefaultMaxPixels,
		MaxSide:        DefaultMaxSide,
		MaxDecodeBytes: DefaultMaxDecodeBytes,
		MaxUploadBytes: DefaultMaxUploadBytes,
		MaxProofLen:    DefaultMaxProofLen,
		MaxCandidates:  DefaultMaxCandidates,
	}
}

// ErrInvalid is wrapped by [Limits.Validate] errors.
var ErrInvalid = errors.New("limits: invalid")

// Validate reports whether every bound is positive and consistent.
func (l Limits) Validate() error {
	switch {
	case l.MaxPixels <= 0:
		return fmt.Errorf("%w: MaxPixels %d <= 0", ErrInvalid, l.MaxPixels)
	case l.MaxSide <= 0:
		return fmt.Errorf("%w: MaxSide %d <= 0", ErrInvalid, l.MaxSide)
	case l.MaxDecodeBytes <= 0:
		return fmt.Errorf("%w: MaxDecodeBytes %d <= 0", ErrInvalid, l.MaxDecodeBytes)
	case l.MaxUploadBytes <= 0:
		return fmt.Errorf("%w: MaxUploadBytes %d <= 0", ErrInvalid, l.MaxUploadBytes)
	case l.MaxProofLen <= 0 || l.MaxProofLen > 64:
		return fmt.Errorf("%w: MaxProofLen %d not in 1..64", ErrInvalid, l.MaxProofLen)
	case l.MaxCandidates <= 0:
		return fmt.Errorf("%w: MaxCandidates %d <= 0", ErrInvalid, l.MaxCandidates)
	}
	return nil
}
