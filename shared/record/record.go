// Package record defines what a Provenant signature covers: a canonical,
// versioned byte encoding of a content record, its Ed25519 signature, the
// Merkle leaf that anchors it, and a certificate that verifies offline.
//
// Canonical encoding, version 1 (all integers big-endian):
//
//	magic        4 bytes  "PVNR"
//	version      1 byte   1
//	record id   16 bytes  UUID
//	sha256      32 bytes  SHA-256 of the exact signed file bytes
//	phash       40 bytes  perceptual hashes (phash.Hash.Bytes: 64-bit then 256-bit)
//	public key  32 bytes  Ed25519 key of the signer
//	timestamp    8 bytes  signing time, Unix milliseconds, 1970..9999
//	origin type  1+n      length-prefixed UTF-8, n <= 255
//	org          1+n      length-prefixed UTF-8, n <= 255
//	watermark    1+n      length-prefixed payload bytes, n <= 255
//
// Version 2 is version 1 followed by one more field, for a record signed as
// a derivative of another record:
//
//	parent id   16 bytes  UUID of the parent record, not all zero
//
// Version 3 is version 1 followed by the parent and the picture's local
// signatures (shared/localsig), for records signed since local signatures
// exist:
//
//	parent id   16 bytes  UUID of the parent record, all zero for none
//	local sig    2+n      uint16 length, then a canonical localsig grid
//	                      (n >= 1; Parse checks it is canonical)
//
// A record with local signatures is always written as version 3; one
// without is written as before: version 1 without parent, version 2 with
// one, so records signed before version 2 existed verify
// unchanged and there is still exactly one encoding of a record: fixed
// order, no optional fields, no trailing bytes. Parse accepts exactly what
// Encode produces.
package record

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/localsig"
	"github.com/provenant/provenant/shared/merkle"
	"github.com/provenant/provenant/shared/phash"
)

// Version is the encoding version of a record without parent.
const Version = 1

// VersionParent is the encoding version of a record with a parent id
// (Record.Parent set) and no local signatures.
const VersionParent = 2

// VersionLocal is the encoding version of a record carrying local
// signatures of the first (luminance) format, with or without parent.
const VersionLocal = 3

// VersionColour is the encoding version of a record carrying local
// signatures of the colour format (localsig.FormatColour): the layout of
// VersionLocal, a new version byte so that a verifier that does not know
// the format answers ErrUnsupportedVersion rather than a malformed record.
const VersionColour = 4

const (
	magic     = "PVNR"
	fixedSize = 4 + 1 + 16 + 32 + 40 + PublicKeySize + 8
	// maxMillis is 9999-12-31T23:59:59.999Z in Unix milliseconds.
	maxMillis = 253402300799999
	// SignatureSize is the size of an Ed25519 signature.
	SignatureSize = 64
	// PublicKeySize is the size of an Ed25519 public key.
	PublicKeySize = 32
)

// Errors callers branch on.
var (
	// ErrMalformed: the bytes are not a canonical record encoding.
	ErrMalformed = errors.New("record: malformed encoding")
	// ErrUnsupportedVersion: a well-framed record of a version this code does not know.
	ErrUnsupportedVersion = errors.New("record: unsupported version")
	// ErrInvalid: a record field is out of bounds (too long, not UTF-8).
	ErrInvalid = errors.New("record: invalid field")
	// ErrBadSignature: the signature does not verify under the record's key.
	ErrBadSignature = errors.New("record: signature does not verify")
	// ErrKeyMismatch: the signing key is not the record's signer key.
	ErrKeyMismatch = errors.New("record: private key does not match signer public key")
	// ErrCertificate: a certificate's summary fields disagree with its signed record.
	ErrCertificate = errors.New("record: certificate inconsistent with its record")
)

// ID is a record identifier, a UUID.
type ID [16]byte

// String returns the canonical 8-4-4-4-12 lowercase form.
func (id ID) String() string {
	var b [36]byte
	hex.Encode(b[0:8], id[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], id[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], id[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], id[8:10])
	b[23] = '-'
	hex.Encode(b[24:36], id[10:16])
	return string(b[:])
}

// ParseID parses the 8-4-4-4-12 hex form (either case).
func ParseID(s string) (ID, error) {
	var id ID
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return id, fmt.Errorf("%w: record id %q is not a UUID", ErrInvalid, s)
	}
	h := s[0:8] + s[9:13] + s[14:18] + s[19:23] + s[24:36]
	if _, err := hex.Decode(id[:], []byte(h)); err != nil {
		return id, fmt.Errorf("%w: record id %q: %w", ErrInvalid, s, err)
	}
	return id, nil
}

// Record is the content of a signature. Timestamp is encoded with millisecond
// precision in UTC; [Parse] returns it as a UTC time.
type Record struct {
	ID               ID
	SHA256           [32]byte
	PerceptualHash   phash.Hash
	SignerPublicKey  PublicKey
	Timestamp        time.Time
	OriginType       string
	Org              string
	WatermarkPayload []byte
	// Parent, when set, is the record this one derives from (encoded as
	// version 2 or 3); nil for an original.
	Parent *ID
	// LocalSig, when set, is the canonical encoding of the signed
	// picture's local signature grid (localsig.Grid.Encode); the record is
	// then encoded as version 3.
	LocalSig []byte
}

// Grid parses the record's local signatures; nil when it has none.
func (r *Record) Grid() (*localsig.Grid, error) {
	if len(r.LocalSig) == 0 {
		return nil, nil
	}
	return localsig.Parse(r.LocalSig)
}

// Validate reports whether r can be encoded.
func (r *Record) Validate() error {
	if len(r.SignerPublicKey) != PublicKeySize {
		return fmt.Errorf("%w: public key has %d bytes", ErrInvalid, len(r.SignerPublicKey))
	}
	for _, f := range []struct {
		name string
		v    string
	}{{"origin type", r.OriginType}, {"org", r.Org}} {
		if len(f.v) > limits.MaxRecordField {
			return fmt.Errorf("%w: %s has %d bytes > %d", ErrInvalid, f.name, len(f.v), limits.MaxRecordField)
		}
		if !utf8.ValidString(f.v) {
			return fmt.Errorf("%w: %s is not UTF-8", ErrInvalid, f.name)
		}
	}
	if ms := r.Timestamp.UnixMilli(); r.Timestamp.Before(time.Unix(0, 0)) || ms > maxMillis {
		return fmt.Errorf("%w: timestamp %v outside 1970..9999", ErrInvalid, r.Timestamp)
	}
	if len(r.WatermarkPayload) > limits.MaxRecordField {
		return fmt.Errorf("%w: watermark payload has %d bytes > %d", ErrInvalid, len(r.WatermarkPayload), limits.MaxRecordField)
	}
	if r.Parent != nil && *r.Parent == (ID{}) {
		return fmt.Errorf("%w: parent id is all zero", ErrInvalid)
	}
	if len(r.LocalSig) > 0 {
		if _, err := localsig.Parse(r.LocalSig); err != nil {
			return fmt.Errorf("%w: local signatures: %w", ErrInvalid, err)
		}
	}
	return nil
}

// Encode returns the canonical encoding of r (see the package doc).
func (r *Record) Encode() ([]byte, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	b := make([]byte, 0, fixedSize+3+len(r.OriginType)+len(r.Org)+len(r.WatermarkPayload))
	b = append(b, magic...)
	switch {
	case len(r.LocalSig) > 0 && r.LocalSig[0] == localsig.FormatColour:
		b = append(b, VersionColour)
	case len(r.LocalSig) > 0:
		b = append(b, VersionLocal)
	case r.Parent != nil:
		b = append(b, VersionParent)
	default:
		b = append(b, Version)
	}
	b = append(b, r.ID[:]...)
	b = append(b, r.SHA256[:]...)
	b = append(b, r.PerceptualHash.Bytes()...)
	b = append(b, r.SignerPublicKey...)
	b = binary.BigEndian.AppendUint64(b, uint64(r.Timestamp.UnixMilli()))
	b = append(b, byte(len(r.OriginType)))
	b = append(b, r.OriginType...)
	b = append(b, byte(len(r.Org)))
	b = append(b, r.Org...)
	b = append(b, byte(len(r.WatermarkPayload)))
	b = append(b, r.WatermarkPayload...)
	if len(r.LocalSig) > 0 {
		var parent ID
		if r.Parent != nil {
			parent = *r.Parent
		}
		b = append(b, parent[:]...)
		b = binary.BigEndian.AppendUint16(b, uint16(len(r.LocalSig)))
		return append(b, r.LocalSig...), nil
	}
	if r.Parent != nil {
		b = append(b, r.Parent[:]...)
	}
	return b, nil
}

// Parse decodes a canonical encoding. It accepts exactly the outputs of
// [Record.Encode]: for every b it accepts, Encode(Parse(b)) == b. The result
// does not alias b.
func Parse(b []byte) (*Record, error) {
	if len(b) > limits.MaxRecordBytes {
		return nil, fmt.Errorf("%w: %d bytes > %d", ErrMalformed, len(b), limits.MaxRecordBytes)
	}
	if len(b) < 5 || string(b[:4]) != magic {
		return nil, fmt.Errorf("%w: bad magic", ErrMalformed)
	}
	version := b[4]
	if version != Version && version != VersionParent && version != VersionLocal && version != VersionColour {
		return nil, fmt.Errorf("%w: version %d", ErrUnsupportedVersion, version)
	}
	if len(b) < fixedSize+3 {
		return nil, fmt.Errorf("%w: %d bytes, need at least %d", ErrMalformed, len(b), fixedSize+3)
	}
	r := &Record{}
	p := b[5:]
	p = p[copy(r.ID[:], p):]
	p = p[copy(r.SHA256[:], p):]
	ph, err := phash.FromBytes(p[:40])
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	r.PerceptualHash = ph
	p = p[40:]
	r.SignerPublicKey = bytes.Clone(p[:PublicKeySize])
	p = p[PublicKeySize:]
	ms := binary.BigEndian.Uint64(p)
	if ms > maxMillis {
		return nil, fmt.Errorf("%w: timestamp %d ms outside 1970..9999", ErrMalformed, ms)
	}
	r.Timestamp = time.UnixMilli(int64(ms)).UTC()
	p = p[8:]
	var fields [3][]byte
	for i := range fields {
		if len(p) < 1 || len(p) < 1+int(p[0]) {
			return nil, fmt.Errorf("%w: field %d overruns the record", ErrMalformed, i)
		}
		fields[i] = p[1 : 1+int(p[0])]
		p = p[1+int(p[0]):]
	}
	if version == VersionParent {
		var parent ID
		if len(p) < len(parent) {
			return nil, fmt.Errorf("%w: parent id overruns the record", ErrMalformed)
		}
		p = p[copy(parent[:], p):]
		if parent == (ID{}) {
			return nil, fmt.Errorf("%w: parent id is all zero", ErrMalformed)
		}
		r.Parent = &parent
	}
	if version == VersionLocal || version == VersionColour {
		var parent ID
		if len(p) < len(parent)+2 {
			return nil, fmt.Errorf("%w: parent id or local signatures overrun the record", ErrMalformed)
		}
		p = p[copy(parent[:], p):]
		if parent != (ID{}) {
			r.Parent = &parent
		}
		n := int(binary.BigEndian.Uint16(p))
		p = p[2:]
		if n == 0 || len(p) < n {
			return nil, fmt.Errorf("%w: local signatures of %d bytes", ErrMalformed, n)
		}
		if _, err := localsig.Parse(p[:n]); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		if colour := p[0] == localsig.FormatColour; colour != (version == VersionColour) {
			return nil, fmt.Errorf("%w: local signatures of format %d in a version %d record", ErrMalformed, p[0], version)
		}
		r.LocalSig = bytes.Clone(p[:n])
		p = p[n:]
	}
	if len(p) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrMalformed, len(p))
	}
	if !utf8.Valid(fields[0]) || !utf8.Valid(fields[1]) {
		return nil, fmt.Errorf("%w: text field is not UTF-8", ErrMalformed)
	}
	r.OriginType, r.Org = string(fields[0]), string(fields[1])
	r.WatermarkPayload = bytes.Clone(fields[2])
	if len(r.WatermarkPayload) == 0 {
		r.WatermarkPayload = nil
	}
	return r, nil
}

// Signed is a canonical record encoding with its signature.
type Signed struct {
	Bytes     []byte
	Signature []byte
}

// Verify parses s.Bytes and checks s.Signature under the signer key the
// record names. It returns the record only if both succeed. Whether that key
// belongs to the claimed org is the key registry's question, not this one.
func Verify(s Signed) (*Record, error) {
	r, err := Parse(s.Bytes)
	if err != nil {
		return nil, err
	}
	if len(s.Signature) != SignatureSize || !verifySignature(r.SignerPublicKey, s.Bytes, s.Signature) {
		return nil, ErrBadSignature
	}
	return r, nil
}

// LeafData returns the bytes a record contributes to a Merkle batch: the
// canonical record bytes followed by the 64-byte signature. Anchoring the
// signature too means the anchored root commits to the signed statement, not
// only to its content.
func (s Signed) LeafData() []byte {
	out := make([]byte, 0, len(s.Bytes)+len(s.Signature))
	return append(append(out, s.Bytes...), s.Signature...)
}

// LeafHash returns merkle.LeafHash(s.LeafData()), the record's leaf in a batch.
func (s Signed) LeafHash() merkle.Hash { return merkle.LeafHash(s.LeafData()) }
