package imagex

// DecoderIndependent reports whether any conforming decoder gives this
// image's luminance within rounding, so that a host may decode it with
// its own decoder (a browser's) and still agree with [DecodeLuma]: true
// for PNG, and for JPEGs coded as YCbCr or greyscale whose header was
// read. CMYK/YCCK and RGB-coded JPEGs are false (decoders convert them
// each their own way, Adobe inversion included); so are GIF (a first
// frame smaller than the logical screen is shown on it by a browser and
// decoded alone by [Decode]) and WebP (whose EXIF orientation some
// decoders apply and Decode does not). A PNG's EXIF chunk is the
// caller's to look for: [Info] does not record it.
func (i Info) DecoderIndependent() bool {
	switch i.Format {
	case PNG:
		return true
	case JPEG:
		return i.lay.kind == kindPlanar
	}
	return false
}
