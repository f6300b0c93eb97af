package imagex

import (
	"bytes"
	"image"
	"image/jpeg"
	"io"
)

// JPEGCodec decodes and encodes JPEG files for signing, where the whole
// picture is decoded, marked and re-encoded. [StdJPEG] (image/jpeg) is the
// default and the only implementation in WebAssembly builds; a native
// build may pass another (the origin's turbo build uses libjpeg-turbo)
// through its configuration. Implementations are safe for concurrent use.
type JPEGCodec interface {
	// Name identifies the implementation in logs and benchmarks.
	Name() string
	// DecodeJPEG decodes b, whose header [DecodeConfig] has accepted as
	// info, to its stored pixels (EXIF orientation not applied) with
	// bounds (0, 0)–(info.Width, info.Height): an *image.YCbCr or
	// *image.Gray for YCbCr and grey files, as image/jpeg returns, or
	// another image type for RGB and four-component files. It holds at
	// most info.DecodeBytes of memory while decoding. An error that does
	// not wrap one of this package's sentinels is reported as [ErrCorrupt].
	DecodeJPEG(b []byte, info Info) (image.Image, error)
	// EncodeJPEG writes img to w as a baseline JPEG at IJG quality q
	// (1..100): the Annex K tables scaled as libjpeg's jpeg_set_quality and
	// image/jpeg scale them, so that a quality estimated from the output
	// (content.EstimateJPEGQuality) is q again.
	EncodeJPEG(w io.Writer, img image.Image, q int) error
}

// StdJPEG is the pure-Go [JPEGCodec]: image/jpeg for both directions.
// Its encoder always writes 4:2:0 chroma for colour images.
type StdJPEG struct{}

// Name returns "go".
func (StdJPEG) Name() string { return "go" }

// DecodeJPEG decodes b with image/jpeg.
func (StdJPEG) DecodeJPEG(b []byte, _ Info) (image.Image, error) {
	return jpeg.Decode(bytes.NewReader(b))
}

// EncodeJPEG encodes img with image/jpeg at quality q.
func (StdJPEG) EncodeJPEG(w io.Writer, img image.Image, q int) error {
	return jpeg.Encode(w, img, &jpeg.Options{Quality: q})
}
