package c2pa

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	c2pasniff "github.com/provenant/provenant/shared/c2pa/sniff"
)

// ErrUnsupportedFormat is returned for files that are neither JPEG nor PNG.
var ErrUnsupportedFormat = errors.New("c2pa: unsupported file format (JPEG and PNG only)")

// ErrBadFile wraps errors about a JPEG or PNG whose segment or chunk
// structure cannot be walked.
var ErrBadFile = errors.New("c2pa: malformed image file")

func badFile(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadFile, fmt.Sprintf(format, args...))
}

const (
	mimeJPEG = "image/jpeg"
	mimePNG  = "image/png"
)

var pngSignature = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}

// span is a byte range [start, end) of a file.
type span struct{ start, end int }

// sniff returns the MIME type of file.
func sniff(file []byte) (string, error) {
	switch {
	case len(file) >= 3 && file[0] == 0xff && file[1] == 0xd8 && file[2] == 0xff:
		return mimeJPEG, nil
	case bytes.HasPrefix(file, pngSignature):
		return mimePNG, nil
	}
	return "", ErrUnsupportedFormat
}

// locate returns the manifest store carried by file (nil when none) and
// the byte ranges that carry it.
func locate(file []byte) (format string, store []byte, spans []span, err error) {
	format, err = sniff(file)
	if err != nil {
		return "", nil, nil, err
	}
	if format == mimeJPEG {
		store, spans, err = locateJPEG(file)
	} else {
		store, spans, err = locatePNG(file)
	}
	return format, store, spans, err
}

// insertionPoint returns where a new store goes in a file that carries none.
func insertionPoint(format string, file []byte) (int, error) {
	if format == mimeJPEG {
		// After the leading APP0 (JFIF) and APP1 (Exif, XMP) segments,
		// which readers expect first.
		at := 2
		_, err := walkJPEG(file, func(s jpegSeg) error {
			if s.Marker != 0xe0 && s.Marker != 0xe1 {
				return errStopWalk
			}
			at = s.End
			return nil
		})
		if err != nil && !errors.Is(err, errStopWalk) {
			return 0, err
		}
		return at, nil
	}
	at := -1
	err := walkPNG(file, func(c pngChunk) error {
		if c.Is("IDAT") || c.Is("IEND") {
			at = c.Start
			return errStopWalk
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStopWalk) {
		return 0, err
	}
	if at < 0 {
		return 0, badFile("PNG has no IDAT chunk")
	}
	return at, nil
}

// MaxSegments bounds the walk of a file's structure: the marker segments
// of a JPEG before its image data, and the chunks of a PNG other than
// IDAT (image data, which encoders cut as they please). A file with more
// is malformed (ErrMalformed): no writer produces it (a 16 MiB store takes
// 257 APP11 segments), and a padding of millions of empty segments is
// refused after this many steps instead of being walked to its end. The
// walks allocate nothing per segment, so memory does not follow the
// count either.
const MaxSegments = c2pasniff.MaxSegments

// errStopWalk ends a walk early on purpose.
var errStopWalk = errors.New("c2pa: walk stopped")

func tooManySegments(what string) error {
	return malformed("more than %d %s", MaxSegments, what)
}

// removeSpans returns file without the (sorted, disjoint) spans.
func removeSpans(file []byte, spans []span) []byte {
	n := len(file)
	for _, s := range spans {
		n -= s.end - s.start
	}
	out := make([]byte, 0, n)
	prev := 0
	for _, s := range spans {
		out = append(out, file[prev:s.start]...)
		prev = s.end
	}
	return append(out, file[prev:]...)
}

// JPEG: the store travels in APP11 (0xFFEB) segments framed as JPEG XT
// boxes: after the segment length, CI "JP", a 16-bit box instance number En,
// a 32-bit sequence number Z starting at 1, then the JUMBF bytes. Every
// segment after the first repeats the box's LBox/TBox header before the
// continuation bytes.

const (
	jpegAPP11        = 0xeb
	jpegSegmentMax   = 0xffff // largest Lp, which counts its own 2 bytes
	jpegFirstData    = jpegSegmentMax - 2 - 8
	jpegContinueData = jpegFirstData - 8 // the repeated LBox/TBox
)

// jpegSeg is a marker segment as the shared walk gives it.
type jpegSeg = c2pasniff.Segment

// walkJPEG calls fn for each marker segment up to (not including) SOS, in
// order, and returns the offset of SOS: c2pasniff.WalkJPEG, the walk the
// light sniffer runs too, with its structure errors as ErrBadFile and the
// segment bound as ErrMalformed. It stops at fn's first error and returns
// it.
func walkJPEG(file []byte, fn func(jpegSeg) error) (int, error) {
	at, err := c2pasniff.WalkJPEG(file, fn)
	return at, walkError(err, "JPEG marker segments")
}

// walkError turns the shared walk's errors, which it returns unwrapped,
// into the reader's (compared directly: errors.As would link reflectlite
// into the C2PA module for nothing).
func walkError(err error, what string) error {
	if err == c2pasniff.ErrTooManySegments {
		return tooManySegments(what)
	}
	if se, ok := err.(*c2pasniff.StructureError); ok {
		return badFile("%s", se.Reason)
	}
	return err
}

// jumbfSegment parses the JPEG XT header of an APP11 payload.
func jumbfSegment(p []byte) (instance uint16, seq uint32, data []byte, ok bool) {
	if len(p) < 16 || p[0] != 'J' || p[1] != 'P' || string(p[12:16]) != "jumb" {
		return 0, 0, nil, false
	}
	return binary.BigEndian.Uint16(p[2:]), binary.BigEndian.Uint32(p[4:]), p[8:], true
}

// isC2PAStart reports whether JUMBF bytes start a C2PA manifest store: a
// superbox whose description box has the "c2pa" content type.
func isC2PAStart(d []byte) bool {
	return len(d) >= 8+8+16 && string(d[4:8]) == "jumb" && string(d[12:16]) == "jumd" &&
		bytes.Equal(d[16:32], uuidStore[:])
}

func locateJPEG(file []byte) ([]byte, []span, error) {
	var (
		store    []byte
		spans    []span
		instance uint16
		found    bool
		total    uint64
		nextSeq  uint32
	)
	_, err := walkJPEG(file, func(s jpegSeg) error {
		if s.Marker != jpegAPP11 {
			return nil
		}
		en, z, data, ok := jumbfSegment(s.Payload)
		if !ok {
			return nil
		}
		if found && en == instance {
			if z != nextSeq {
				return malformed("APP11 sequence %d where %d was expected", z, nextSeq)
			}
			if len(data) < 8 || binary.BigEndian.Uint32(data) != uint32(total) {
				return malformed("APP11 continuation does not repeat the box header")
			}
			if uint64(len(store)+len(data)-8) > total {
				return malformed("APP11 segments carry more than the box length")
			}
			store = append(store, data[8:]...)
			spans = append(spans, span{s.Start, s.End})
			nextSeq++
			return nil
		}
		if !isC2PAStart(data) {
			return nil
		}
		if found {
			return malformed("more than one manifest store in the file")
		}
		if z != 1 {
			return malformed("manifest store starts at APP11 sequence %d", z)
		}
		l := binary.BigEndian.Uint32(data)
		if l < 8 || l == 1 {
			return malformed("manifest store box length %d", l)
		}
		if l > MaxStoreBytes {
			return tooLarge(int(l))
		}
		total = uint64(l)
		found, instance, nextSeq = true, en, 2
		if uint64(len(data)) > total {
			return malformed("APP11 segment carries more than the box length")
		}
		store = make([]byte, 0, total)
		store = append(store, data...)
		spans = append(spans, span{s.Start, s.End})
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if found && uint64(len(store)) != total {
		return nil, nil, malformed("manifest store truncated: %d of %d bytes", len(store), total)
	}
	return store, spans, nil
}

// frameJPEG cuts store into APP11 segments for box instance en.
func frameJPEG(store []byte, en uint16) []byte {
	out := make([]byte, 0, len(store)+(len(store)/jpegContinueData+1)*20)
	seq := uint32(1)
	rest := store
	for first := true; first || len(rest) > 0; first = false {
		max := jpegContinueData
		if first {
			max = jpegFirstData
		}
		n := min(len(rest), max)
		lp := 2 + 8 + n
		if !first {
			lp += 8
		}
		out = append(out, 0xff, jpegAPP11)
		out = binary.BigEndian.AppendUint16(out, uint16(lp))
		out = append(out, 'J', 'P')
		out = binary.BigEndian.AppendUint16(out, en)
		out = binary.BigEndian.AppendUint32(out, seq)
		if !first {
			out = append(out, store[:8]...)
		}
		out = append(out, rest[:n]...)
		rest = rest[n:]
		seq++
	}
	return out
}

// jpegInstance returns a JPEG XT box instance number no other APP11 JUMBF
// segment of file uses.
func jpegInstance(file []byte) uint16 {
	used := map[uint16]bool{}
	if _, err := walkJPEG(file, func(s jpegSeg) error {
		if en, _, _, ok := jumbfSegment(s.Payload); s.Marker == jpegAPP11 && ok {
			used[en] = true
		}
		return nil
	}); err != nil {
		return 1
	}
	en := uint16(1)
	for used[en] {
		en++
	}
	return en
}

// PNG: the store is the whole payload of one caBX chunk, placed before the
// first IDAT.

// pngChunk is a chunk as the shared walk gives it.
type pngChunk = c2pasniff.Chunk

// walkPNG calls fn for each chunk up to IEND (included), in order:
// c2pasniff.WalkPNG, with its errors as walkJPEG's. It stops at fn's first
// error and returns it.
func walkPNG(file []byte, fn func(pngChunk) error) error {
	return walkError(c2pasniff.WalkPNG(file, fn), "PNG chunks besides IDAT")
}

func locatePNG(file []byte) ([]byte, []span, error) {
	var store []byte
	var spans []span
	err := walkPNG(file, func(c pngChunk) error {
		if !c.Is("caBX") {
			return nil
		}
		if spans != nil {
			return malformed("more than one caBX chunk in the file")
		}
		if len(c.Data) > MaxStoreBytes {
			return tooLarge(len(c.Data))
		}
		store = c.Data
		if store == nil {
			store = []byte{}
		}
		spans = []span{{c.Start, c.End}}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return store, spans, nil
}

func framePNG(store []byte) []byte {
	out := make([]byte, 0, len(store)+12)
	out = binary.BigEndian.AppendUint32(out, uint32(len(store)))
	out = append(out, "caBX"...)
	out = append(out, store...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[4:]))
}
