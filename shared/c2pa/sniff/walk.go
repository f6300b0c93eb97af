package sniff

import (
	"encoding/binary"
	"errors"
	"strconv"
)

// The JPEG and PNG container walks, shared with the reader (shared/c2pa
// walks the same structure to find, remove and insert a store), so that
// MayCarry and the reader can never disagree on where a file's segments
// are. They import nothing heavier than strconv.

// ErrTooManySegments: the walk met more than MaxSegments marker segments
// (JPEG; fill bytes and standalone markers count) or chunks other than
// IDAT (PNG).
var ErrTooManySegments = errors.New("sniff: more segments than MaxSegments")

// StructureError says where a file's segment or chunk structure breaks.
type StructureError struct {
	// Reason is the break in words, with its offset.
	Reason string
}

func (e *StructureError) Error() string { return "sniff: " + e.Reason }

func broken(what string, pos int, tail string) error {
	s := what
	if pos >= 0 {
		s += strconv.Itoa(pos)
	}
	return &StructureError{Reason: s + tail}
}

// Segment is one JPEG marker segment.
type Segment struct {
	Marker byte
	// Start and End bound the whole segment, its marker included.
	Start, End int
	// Payload is the segment after its length field.
	Payload []byte
}

// WalkJPEG calls fn for each marker segment of a JPEG (file starts with
// SOI) up to SOS or EOI, in order, and returns the offset of that SOS
// (or EOI). It stops at fn's first error and returns it unchanged; a
// broken structure is a *StructureError, and past MaxSegments segments
// it returns ErrTooManySegments.
func WalkJPEG(file []byte, fn func(Segment) error) (int, error) {
	pos := 2
	for n := 0; ; n++ {
		if n == MaxSegments {
			return 0, ErrTooManySegments
		}
		if pos+4 > len(file) {
			return 0, broken("JPEG ends before its image data", -1, "")
		}
		if file[pos] != 0xff {
			return 0, broken("JPEG marker expected at offset ", pos, "")
		}
		m := file[pos+1]
		switch {
		case m == 0xff: // fill byte
			pos++
			continue
		case m == 0xda || m == 0xd9:
			return pos, nil
		case m == 0x01 || (m >= 0xd0 && m <= 0xd7):
			pos += 2
			continue
		}
		l := int(binary.BigEndian.Uint16(file[pos+2:]))
		if l < 2 || pos+2+l > len(file) {
			return 0, broken("JPEG segment at offset ", pos, " overruns the file")
		}
		if err := fn(Segment{Marker: m, Start: pos, End: pos + 2 + l, Payload: file[pos+4 : pos+2+l]}); err != nil {
			return 0, err
		}
		pos += 2 + l
	}
}

// Chunk is one PNG chunk.
type Chunk struct {
	Type [4]byte
	// Start and End bound the whole chunk, length and CRC included.
	Start, End int
	Data       []byte
}

// Is reports whether the chunk's type is t (comparing without a copy).
func (c *Chunk) Is(t string) bool { return string(c.Type[:]) == t }

// WalkPNG calls fn for each chunk of a PNG (file starts with its
// signature) up to IEND, included, in order. It stops at fn's first
// error and returns it unchanged; a broken structure is a
// *StructureError, and past MaxSegments chunks other than IDAT it
// returns ErrTooManySegments.
func WalkPNG(file []byte, fn func(Chunk) error) error {
	pos := len(pngSignature)
	for n := 0; pos < len(file); {
		if pos+12 > len(file) {
			return broken("PNG chunk header truncated at offset ", pos, "")
		}
		l := binary.BigEndian.Uint32(file[pos:])
		if l > 0x7fffffff || uint64(pos)+12+uint64(l) > uint64(len(file)) {
			return broken("PNG chunk at offset ", pos, " overruns the file")
		}
		end := pos + 12 + int(l)
		var typ [4]byte
		copy(typ[:], file[pos+4:pos+8])
		if string(typ[:]) != "IDAT" {
			if n++; n > MaxSegments {
				return ErrTooManySegments
			}
		}
		c := Chunk{Type: typ, Start: pos, End: end, Data: file[pos+8 : pos+8+int(l)]}
		if err := fn(c); err != nil {
			return err
		}
		pos = end
		if c.Is("IEND") {
			break
		}
	}
	return nil
}
