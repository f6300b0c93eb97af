package imagex

import (
	"bytes"
	"encoding/binary"

	"github.com/provenant/provenant/shared/limits"
)

// JPEGOrientation returns the EXIF orientation tag (0x0112) of a JPEG's first
// APP1 "Exif" segment, in 1..8. It returns 1 (no transform) when b is not a
// JPEG, has no EXIF segment before the first scan, or the tag is missing,
// malformed or out of range. It reads only within b and never panics.
func JPEGOrientation(b []byte) int {
	if len(b) < 4 || b[0] != 0xFF || b[1] != 0xD8 {
		return 1
	}
	i := 2
	for i+4 <= len(b) {
		if b[i] != 0xFF {
			return 1
		}
		marker := b[i+1]
		switch {
		case marker == 0xFF: // fill byte
			i++
			continue
		case marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7): // no length
			i += 2
			continue
		case marker == 0xDA || marker == 0xD9: // start of scan, end of image
			return 1
		}
		n := int(binary.BigEndian.Uint16(b[i+2:]))
		if n < 2 || i+2+n > len(b) {
			return 1
		}
		seg := b[i+4 : i+2+n]
		if marker == 0xE1 && bytes.HasPrefix(seg, []byte("Exif\x00\x00")) {
			return exifOrientation(seg[6:])
		}
		i += 2 + n
	}
	return 1
}

// exifOrientation reads the orientation tag from IFD0 of a TIFF structure.
func exifOrientation(t []byte) int {
	if len(t) < 8 || len(t) > limits.MaxEXIFBytes {
		return 1
	}
	var bo binary.ByteOrder
	switch string(t[:4]) {
	case "II*\x00":
		bo = binary.LittleEndian
	case "MM\x00*":
		bo = binary.BigEndian
	default:
		return 1
	}
	off := int64(bo.Uint32(t[4:]))
	if off < 8 || off+2 > int64(len(t)) {
		return 1
	}
	n := int(bo.Uint16(t[off:]))
	if n > limits.MaxEXIFEntries {
		return 1
	}
	p := int(off) + 2
	for k := 0; k < n; k++ {
		e := p + 12*k
		if e+12 > len(t) {
			return 1
		}
		if bo.Uint16(t[e:]) != 0x0112 {
			continue
		}
		typ, count := bo.Uint16(t[e+2:]), bo.Uint32(t[e+4:])
		if typ != 3 || count != 1 { // SHORT, one value, stored inline
			return 1
		}
		v := int(bo.Uint16(t[e+8:]))
		if v < 1 || v > 8 {
			return 1
		}
		return v
	}
	return 1
}
