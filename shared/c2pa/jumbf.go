package c2pa

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// JUMBF (ISO/IEC 19566-5) boxes: a box is LBox (uint32, big endian) TBox
// (four characters) and a payload; LBox 1 means a 64-bit XLBox follows, 0
// means "to the end". A superbox ("jumb") holds one description box
// ("jumd": content-type UUID, toggles, optional null-terminated label, id,
// hash, private box) followed by content boxes.

const (
	// MaxStoreBytes is the largest manifest store Read, Extract and Embed
	// accept. Real stores are a few kilobytes to a few hundred (thumbnails);
	// the bound keeps a hostile file from making us copy or parse more.
	MaxStoreBytes = 16 << 20
	// maxDepth bounds superbox nesting; the C2PA layout needs 4 levels.
	maxDepth = 12
	// maxBoxes bounds the boxes parsed in one store.
	maxBoxes = 8192
)

// UUIDs of the C2PA superbox content types: four ASCII characters then the
// ISO suffix 0011-0010-8000-00AA00389B71.
var (
	uuidStore      = c2paUUID("c2pa")
	uuidManifest   = c2paUUID("c2ma")
	uuidUpdate     = c2paUUID("c2um")
	uuidAssertions = c2paUUID("c2as")
	uuidClaim      = c2paUUID("c2cl")
	uuidSignature  = c2paUUID("c2cs")
	uuidCBOR       = c2paUUID("cbor")
)

func c2paUUID(tag string) [16]byte {
	var u [16]byte
	copy(u[:4], tag)
	copy(u[4:], []byte{0x00, 0x11, 0x00, 0x10, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71})
	return u
}

// ErrMalformed is wrapped by every error about bytes that are not a
// well-formed manifest store (bad box lengths, missing description boxes,
// invalid CBOR, a store beyond MaxStoreBytes, ...).
var ErrMalformed = errors.New("c2pa: malformed manifest store")

// ErrTooLarge is wrapped by errors about a manifest store beyond
// MaxStoreBytes: one read from a file or a bare store (together with
// ErrMalformed), or one Embed would have to write (a very large parent).
var ErrTooLarge = errors.New("c2pa: manifest store too large")

func tooLarge(n int) error {
	return fmt.Errorf("%w: %w: store of %d bytes exceeds %d", ErrMalformed, ErrTooLarge, n, MaxStoreBytes)
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// box is one parsed JUMBF box. For a superbox, desc and children are set;
// otherwise payload is. raw is the whole box, header included; content is
// raw without its 8-byte (or 16-byte) header, which is what C2PA hashed URIs
// hash.
type box struct {
	typ      string
	raw      []byte
	content  []byte
	payload  []byte
	uuid     [16]byte
	label    string
	children []*box
}

func (b *box) isSuper() bool { return b.typ == "jumb" }

// child returns the first child superbox with the given label, or nil.
func (b *box) child(label string) *box {
	for _, c := range b.children {
		if c.isSuper() && c.label == label {
			return c
		}
	}
	return nil
}

// childrenByUUID returns the child superboxes of one content type.
func (b *box) childrenByUUID(u [16]byte) []*box {
	var out []*box
	for _, c := range b.children {
		if c.isSuper() && c.uuid == u {
			out = append(out, c)
		}
	}
	return out
}

// firstLeaf returns the first non-superbox child of type typ, or nil.
func (b *box) firstLeaf(typ string) *box {
	for _, c := range b.children {
		if c.typ == typ {
			return c
		}
	}
	return nil
}

// parseStore parses the outer manifest-store superbox; b must be exactly
// one box.
func parseStore(b []byte) (*box, error) {
	if len(b) > MaxStoreBytes {
		return nil, tooLarge(len(b))
	}
	p := parser{}
	root, n, err := p.parseBox(b, 0)
	if err != nil {
		return nil, err
	}
	if n != len(b) {
		return nil, malformed("%d trailing bytes after the store box", len(b)-n)
	}
	if !root.isSuper() || root.uuid != uuidStore {
		return nil, malformed("outer box is not a C2PA manifest store")
	}
	return root, nil
}

type parser struct{ boxes int }

// header reads one box header at the start of b: its type, header length
// and total length.
func boxHeader(b []byte) (typ string, hdr, total int, err error) {
	if len(b) < 8 {
		return "", 0, 0, malformed("box header truncated")
	}
	l := uint64(binary.BigEndian.Uint32(b))
	typ = string(b[4:8])
	hdr = 8
	switch l {
	case 0:
		l = uint64(len(b))
	case 1:
		if len(b) < 16 {
			return "", 0, 0, malformed("extended box header truncated")
		}
		l = binary.BigEndian.Uint64(b[8:])
		hdr = 16
	}
	if l < uint64(hdr) || l > uint64(len(b)) {
		return "", 0, 0, malformed("box %q length %d outside 0..%d", typ, l, len(b))
	}
	return typ, hdr, int(l), nil
}

func (p *parser) parseBox(b []byte, depth int) (*box, int, error) {
	p.boxes++
	if p.boxes > maxBoxes {
		return nil, 0, malformed("more than %d boxes", maxBoxes)
	}
	typ, hdr, total, err := boxHeader(b)
	if err != nil {
		return nil, 0, err
	}
	bx := &box{typ: typ, raw: b[:total], content: b[hdr:total]}
	if typ != "jumb" {
		bx.payload = bx.content
		return bx, total, nil
	}
	if depth >= maxDepth {
		return nil, 0, malformed("superboxes nested deeper than %d", maxDepth)
	}
	rest := bx.content
	first := true
	for len(rest) > 0 {
		if first {
			dtyp, dhdr, dtotal, err := boxHeader(rest)
			if err != nil {
				return nil, 0, err
			}
			if dtyp != "jumd" {
				return nil, 0, malformed("superbox does not start with a description box")
			}
			if err := bx.parseDescription(rest[dhdr:dtotal]); err != nil {
				return nil, 0, err
			}
			rest = rest[dtotal:]
			first = false
			continue
		}
		c, n, err := p.parseBox(rest, depth+1)
		if err != nil {
			return nil, 0, err
		}
		bx.children = append(bx.children, c)
		rest = rest[n:]
	}
	if first {
		return nil, 0, malformed("empty superbox")
	}
	return bx, total, nil
}

func (b *box) parseDescription(d []byte) error {
	if len(d) < 17 {
		return malformed("description box of %d bytes", len(d))
	}
	copy(b.uuid[:], d[:16])
	toggles := d[16]
	d = d[17:]
	if toggles&0x02 != 0 {
		i := bytes.IndexByte(d, 0)
		if i < 0 {
			return malformed("description label not terminated")
		}
		b.label = string(d[:i])
		d = d[i+1:]
	}
	if toggles&0x04 != 0 {
		if len(d) < 4 {
			return malformed("description id truncated")
		}
		d = d[4:]
	}
	if toggles&0x08 != 0 {
		if len(d) < 32 {
			return malformed("description hash truncated")
		}
	}
	return nil
}

// Writing. Every box we write has a 32-bit length; the description boxes
// are written in the one canonical form (toggles 0x03: requestable and a
// label) so that a reader re-serialising them gets our bytes back.

func appendBox(dst []byte, typ string, payload ...[]byte) []byte {
	n := 8
	for _, p := range payload {
		n += len(p)
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(n))
	dst = append(dst, typ...)
	for _, p := range payload {
		dst = append(dst, p...)
	}
	return dst
}

func descriptionBox(u [16]byte, label string) []byte {
	d := make([]byte, 0, 17+len(label)+1)
	d = append(d, u[:]...)
	d = append(d, 0x03)
	d = append(d, label...)
	d = append(d, 0)
	return appendBox(nil, "jumd", d)
}

// superBox returns a complete "jumb" box.
func superBox(u [16]byte, label string, children ...[]byte) []byte {
	parts := append([][]byte{descriptionBox(u, label)}, children...)
	return appendBox(nil, "jumb", parts...)
}

// cborAssertionBox returns an assertion superbox holding one CBOR box.
func cborAssertionBox(label string, cborBytes []byte) []byte {
	return superBox(uuidCBOR, label, appendBox(nil, "cbor", cborBytes))
}

// boxContent strips the header of a box we wrote (always 8 bytes).
func boxContent(b []byte) []byte { return b[8:] }
