// Package sniff tells, without parsing it, whether a file may carry a
// C2PA manifest store. It imports nothing heavier than bytes, so that the
// browser's verifier module can decide whether to fetch the C2PA module
// (which carries CBOR, COSE and X.509) without linking any of it.
package sniff

import (
	"bytes"
	"encoding/binary"
)

// MaxSegments is shared/c2pa's bound on the marker segments (JPEG) or
// non-IDAT chunks (PNG) it walks; past it c2pa reports the store
// malformed, so a file past it may carry a (malformed) manifest.
const MaxSegments = 1 << 16

// StoreUUID is the JUMBF type UUID of a C2PA manifest store ("c2pa"
// followed by the ISO base suffix), which the description box of every
// store's first JUMBF box carries.
var StoreUUID = [16]byte{'c', '2', 'p', 'a', 0x00, 0x11, 0x00, 0x10, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71}

var pngSignature = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}

// MayCarry reports whether shared/c2pa could find a manifest store in
// file, valid or not. It never answers false for a file from which
// c2pa.Extract returns a store or ErrMalformed (a fuzz test in shared/c2pa
// holds it to that); it may answer true for a file that carries none. It
// reads only the JPEG segments before the image data or the PNG chunk
// headers, and falls back to a scan of the whole file where their
// structure is broken.
func MayCarry(file []byte) bool {
	switch {
	case len(file) >= 3 && file[0] == 0xff && file[1] == 0xd8 && file[2] == 0xff:
		found, ok := jpeg(file)
		if !ok {
			return bytes.Contains(file, StoreUUID[:])
		}
		return found
	case bytes.HasPrefix(file, pngSignature):
		found, ok := png(file)
		if !ok {
			return bytes.Contains(file, []byte("caBX"))
		}
		return found
	}
	return false
}

// jpeg walks the marker segments up to SOS as shared/c2pa does; ok is
// false when their structure is broken.
func jpeg(file []byte) (found, ok bool) {
	pos := 2
	for n := 0; ; n++ {
		if n == MaxSegments {
			return true, true
		}
		if pos+4 > len(file) || file[pos] != 0xff {
			return false, false
		}
		m := file[pos+1]
		switch {
		case m == 0xff:
			pos++
			continue
		case m == 0xda || m == 0xd9:
			return false, true
		case m == 0x01 || (m >= 0xd0 && m <= 0xd7):
			pos += 2
			continue
		}
		l := int(binary.BigEndian.Uint16(file[pos+2:]))
		if l < 2 || pos+2+l > len(file) {
			return false, false
		}
		if m == 0xeb && bytes.Contains(file[pos+4:pos+2+l], StoreUUID[:]) {
			return true, true
		}
		pos += 2 + l
	}
}

// png walks the chunks up to IEND as shared/c2pa does; ok is false when
// their structure is broken.
func png(file []byte) (found, ok bool) {
	pos := len(pngSignature)
	for n := 0; pos < len(file); {
		if pos+12 > len(file) {
			return false, false
		}
		l := binary.BigEndian.Uint32(file[pos:])
		if l > 0x7fffffff || uint64(pos)+12+uint64(l) > uint64(len(file)) {
			return false, false
		}
		typ := string(file[pos+4 : pos+8])
		if typ != "IDAT" {
			if n++; n > MaxSegments {
				return true, true
			}
		}
		if typ == "caBX" {
			return true, true
		}
		pos += 12 + int(l)
		if typ == "IEND" {
			break
		}
	}
	return false, true
}
