// Package jpegtest edits JPEG files for tests: it gives a file the EXIF
// orientation a camera or phone would have written, without re-encoding
// its pixels.
package jpegtest

// WithOrientation returns jpg with an APP1 Exif segment carrying
// orientation tag value o inserted right after its SOI marker, in a TIFF
// header of the byte order bigEndian picks ("MM", else "II"). Any value is
// written as given, so tests can also hand over the invalid 0 and 9. jpg
// must start with the SOI marker; it is not modified.
func WithOrientation(jpg []byte, o uint16, bigEndian bool) []byte {
	var tiff []byte
	if bigEndian {
		tiff = []byte{'M', 'M', 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, byte(o >> 8), byte(o), 0, 0, 0, 0, 0, 0}
	} else {
		tiff = []byte{'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, byte(o), byte(o >> 8), 0, 0, 0, 0, 0, 0}
	}
	seg := append([]byte("Exif\x00\x00"), tiff...)
	n := len(seg) + 2
	out := append([]byte{0xFF, 0xD8, 0xFF, 0xE1, byte(n >> 8), byte(n)}, seg...)
	return append(out, jpg[2:]...)
}
