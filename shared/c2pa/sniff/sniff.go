// Package sniff tells, without parsing it, whether a file may carry a
// C2PA manifest store, and walks the JPEG segments and PNG chunks that
// shared/c2pa walks too (WalkJPEG, WalkPNG: one walk for both). It
// imports nothing heavier than bytes and strconv, so that the browser's
// verifier module can decide whether to fetch the C2PA module (which
// carries CBOR, COSE and X.509) without linking any of it.
package sniff

import (
	"bytes"
	"errors"
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

// errFound ends a walk at the first sign of a store.
var errFound = errors.New("sniff: store found")

// jpeg walks the marker segments up to SOS as shared/c2pa does; ok is
// false when their structure is broken.
func jpeg(file []byte) (found, ok bool) {
	_, err := WalkJPEG(file, func(s Segment) error {
		if s.Marker == 0xeb && bytes.Contains(s.Payload, StoreUUID[:]) {
			return errFound
		}
		return nil
	})
	return verdict(err)
}

// png walks the chunks up to IEND as shared/c2pa does; ok is false when
// their structure is broken.
func png(file []byte) (found, ok bool) {
	return verdict(WalkPNG(file, func(c Chunk) error {
		if c.Is("caBX") {
			return errFound
		}
		return nil
	}))
}

// verdict reads a walk's end: a store seen, or past the segment bound
// (where the reader reports the store malformed), may carry one; a
// broken structure is not ok.
func verdict(err error) (found, ok bool) {
	switch err {
	case nil:
		return false, true
	case errFound, ErrTooManySegments:
		return true, true
	}
	return false, false
}
