// Package pngtest writes PNG files chunk by chunk, for tests that need a
// file the standard encoder does not write: a header that declares more
// than the data holds, a colour type with a tRNS chunk, 16-bit rows
// filtered by hand.
package pngtest

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
)

// Writer accumulates a PNG: the signature, then each chunk written, each
// with its length and CRC.
type Writer struct {
	buf bytes.Buffer
}

// New returns a Writer holding the PNG signature.
func New() *Writer {
	w := &Writer{}
	w.buf.WriteString("\x89PNG\r\n\x1a\n")
	return w
}

// Chunk appends a chunk of type typ holding data.
func (w *Writer) Chunk(typ string, data []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(data)))
	w.buf.Write(n[:])
	w.buf.WriteString(typ)
	w.buf.Write(data)
	binary.BigEndian.PutUint32(n[:], crc32.ChecksumIEEE(append([]byte(typ), data...)))
	w.buf.Write(n[:])
}

// IHDR appends the header chunk: width and height, bit depth, colour type
// and interlace method (compression and filter method 0).
func (w *Writer) IHDR(width, height uint32, depth, colorType, interlace byte) {
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], width)
	binary.BigEndian.PutUint32(ihdr[4:], height)
	ihdr[8], ihdr[9], ihdr[12] = depth, colorType, interlace
	w.Chunk("IHDR", ihdr)
}

// Bytes returns the file written so far.
func (w *Writer) Bytes() []byte { return w.buf.Bytes() }
