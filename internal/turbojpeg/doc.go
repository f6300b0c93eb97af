// Package turbojpeg decodes and encodes JPEG through libjpeg-turbo's
// TurboJPEG API (cgo), as an [imagex.JPEGCodec] for the origin's sign path.
//
// It is built only with the build tag "turbo" and cgo enabled, against
// the system's TurboJPEG 2.1 or later (Debian: libturbojpeg0-dev); without
// the tag the package is empty and the pure-Go [imagex.StdJPEG] is used.
// WebAssembly builds never contain it.
//
// Decoding goes to the file's own YCbCr or grey planes (no colour
// conversion, no chroma upsampling), so the result has the type and the
// chroma image/jpeg gives; encoding goes from those planes and writes what
// image/jpeg writes (its quantisation tables, grey or 4:2:0 chroma), so
// that both codecs sign the same picture to within rounding. Files TurboJPEG cannot decode to planes
// (RGB, CMYK and YCCK, unusual sampling factors) or decodes only with a
// warning (truncated or damaged data) are handed to image/jpeg, so that
// the set of files accepted and the errors returned are the pure-Go
// build's.
package turbojpeg
