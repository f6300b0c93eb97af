package record

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/merkle"
	"github.com/provenant/provenant/shared/phash"
)

func testKey(seed byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize))
}

// bothVersions encodes r without a parent (version 1) and with parent
// (version 2), leaving r as it was.
func bothVersions(t *testing.T, r *Record, parent ID) (v1, v2 []byte) {
	t.Helper()
	orig, derived := *r, *r
	orig.Parent, derived.Parent = nil, &parent
	v1, err := orig.Encode()
	if err != nil {
		t.Fatal(err)
	}
	v2, err = derived.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return v1, v2
}

func testRecord(priv ed25519.PrivateKey) *Record {
	id, _ := ParseID("0190f3a1-7b2c-7d4e-8f00-123456789abc")
	return &Record{
		ID:               id,
		SHA256:           [32]byte{1, 2, 3},
		PerceptualHash:   phash.Hash{P64: 0xdeadbeef, P256: [4]uint64{1, 2, 3, 4}},
		SignerPublicKey:  priv.Public().(ed25519.PublicKey),
		Timestamp:        time.Date(2026, 11, 22, 12, 30, 0, 123_000_000, time.UTC),
		OriginType:       "camera_image",
		Org:              "Example News",
		WatermarkPayload: []byte{0xca, 0xfe, 0xba, 0xbe, 0, 1, 2, 3},
	}
}

func TestEncodeParseRoundTrip(t *testing.T) {
	priv := testKey(1)
	tests := []struct {
		name   string
		mutate func(*Record)
	}{
		{"full", func(*Record) {}},
		{"empty strings and payload", func(r *Record) { r.OriginType, r.Org, r.WatermarkPayload = "", "", nil }},
		{"max fields", func(r *Record) {
			r.OriginType, r.Org, r.WatermarkPayload = strings.Repeat("o", 255), strings.Repeat("é", 127), bytes.Repeat([]byte{9}, 255)
		}},
		{"epoch", func(r *Record) { r.Timestamp = time.UnixMilli(0).UTC() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := testRecord(priv)
			tt.mutate(r)
			b, err := r.Encode()
			if err != nil {
				t.Fatalf("Encode() error = %v", err)
			}
			got, err := Parse(b)
			if err != nil {
				t.Fatalf("Parse(Encode()) error = %v", err)
			}
			if !recordsEqual(got, r) {
				t.Errorf("Parse(Encode(r)) = %+v, want %+v", got, r)
			}
			b2, _ := got.Encode()
			if !bytes.Equal(b, b2) {
				t.Errorf("Encode(Parse(b)) != b")
			}
		})
	}
}

func recordsEqual(a, b *Record) bool {
	return a.ID == b.ID && a.SHA256 == b.SHA256 && a.PerceptualHash == b.PerceptualHash &&
		bytes.Equal(a.SignerPublicKey, b.SignerPublicKey) && a.Timestamp.Equal(b.Timestamp) &&
		a.OriginType == b.OriginType && a.Org == b.Org && bytes.Equal(a.WatermarkPayload, b.WatermarkPayload)
}

func TestEncodeInvalid(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Record)
	}{
		{"short key", func(r *Record) { r.SignerPublicKey = r.SignerPublicKey[:31] }},
		{"long org", func(r *Record) { r.Org = strings.Repeat("x", 256) }},
		{"long origin", func(r *Record) { r.OriginType = strings.Repeat("x", 256) }},
		{"long payload", func(r *Record) { r.WatermarkPayload = make([]byte, 256) }},
		{"bad utf8", func(r *Record) { r.Org = "\xff" }},
		{"before 1970", func(r *Record) { r.Timestamp = time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC) }},
		{"after 9999", func(r *Record) { r.Timestamp = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }},
	}
	for _, tt := range tests {
		r := testRecord(testKey(1))
		tt.mutate(r)
		if _, err := r.Encode(); !errors.Is(err, ErrInvalid) {
			t.Errorf("Encode(%s) error = %v, want ErrInvalid", tt.name, err)
		}
	}
}

func TestParseMalformed(t *testing.T) {
	good, _ := testRecord(testKey(1)).Encode()
	version2 := bytes.Clone(good)
	version2[4] = 2 // a version 2 record must end with a parent id
	version5 := bytes.Clone(good)
	version5[4] = 5
	version4 := bytes.Clone(good)
	version4[4] = 4 // a version 4 record must carry colour local signatures
	parentRec := testRecord(testKey(1))
	parentRec.Parent = &ID{9}
	withParent, _ := parentRec.Encode()
	zeroParent := append(bytes.Clone(withParent[:len(withParent)-16]), make([]byte, 16)...)
	badUTF8 := bytes.Clone(good)
	badUTF8[fixedSize+1] = 0xff // first byte of origin type
	farFuture := bytes.Clone(good)
	copy(farFuture[fixedSize-8:], []byte{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, ErrMalformed},
		{"bad magic", append([]byte("XXXX"), good[4:]...), ErrMalformed},
		{"version 5", version5, ErrUnsupportedVersion},
		{"version 4 without local signatures", version4, ErrMalformed},
		{"version 2 without parent id", version2, ErrMalformed},
		{"version 2 with a zero parent id", zeroParent, ErrMalformed},
		{"version 2 with a truncated parent id", withParent[:len(withParent)-1], ErrMalformed},
		{"version 1 with a parent id appended", append(bytes.Clone(good), withParent[len(withParent)-16:]...), ErrMalformed},
		{"truncated fixed part", good[:fixedSize], ErrMalformed},
		{"truncated field", good[:len(good)-1], ErrMalformed},
		{"trailing byte", append(bytes.Clone(good), 0), ErrMalformed},
		{"bad utf8", badUTF8, ErrMalformed},
		{"timestamp beyond 9999", farFuture, ErrMalformed},
		{"too large", make([]byte, limits.MaxRecordBytes+1), ErrMalformed},
	}
	for _, tt := range tests {
		if _, err := Parse(tt.in); !errors.Is(err, tt.want) {
			t.Errorf("Parse(%s) error = %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestSignVerify(t *testing.T) {
	priv := testKey(1)
	s, err := Sign(priv, testRecord(priv))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(s); err != nil {
		t.Fatalf("Verify() = %v", err)
	}
	// Every single-byte change of the record or the signature fails.
	for i := range s.Bytes {
		m := Signed{Bytes: bytes.Clone(s.Bytes), Signature: s.Signature}
		m.Bytes[i] ^= 0x01
		if _, err := Verify(m); err == nil {
			t.Fatalf("Verify() with record byte %d flipped = nil", i)
		}
	}
	for i := range s.Signature {
		m := Signed{Bytes: s.Bytes, Signature: bytes.Clone(s.Signature)}
		m.Signature[i] ^= 0x80
		if _, err := Verify(m); !errors.Is(err, ErrBadSignature) {
			t.Fatalf("Verify() with signature byte %d flipped = %v, want ErrBadSignature", i, err)
		}
	}
	if _, err := Sign(testKey(2), testRecord(priv)); !errors.Is(err, ErrKeyMismatch) {
		t.Errorf("Sign(other key) error = %v, want ErrKeyMismatch", err)
	}
}

func TestIDRoundTrip(t *testing.T) {
	const s = "0190f3a1-7b2c-7d4e-8f00-123456789abc"
	id, err := ParseID(strings.ToUpper(s))
	if err != nil || id.String() != s {
		t.Fatalf("ParseID(%q) = %v, %v", s, id, err)
	}
	for _, bad := range []string{"", "0190f3a17b2c7d4e8f00123456789abc", "0190f3a1-7b2c-7d4e-8f00-123456789abz", "0190f3a1+7b2c-7d4e-8f00-123456789abc"} {
		if _, err := ParseID(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseID(%q) error = %v, want ErrInvalid", bad, err)
		}
	}
}

func batch(t *testing.T, n int) ([]Signed, *merkle.Tree) {
	t.Helper()
	var recs []Signed
	var leaves []merkle.Hash
	for i := 0; i < n; i++ {
		priv := testKey(byte(i + 1))
		r := testRecord(priv)
		r.ID[15] = byte(i)
		s, err := Sign(priv, r)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, s)
		leaves = append(leaves, s.LeafHash())
	}
	return recs, merkle.Build(leaves)
}

func TestCertificate(t *testing.T) {
	recs, tree := batch(t, 5)
	proof, _ := tree.InclusionProof(3)
	cert := &Certificate{Signed: recs[3], Anchor: &Anchor{BatchID: "b1", LeafIndex: 3, TreeSize: 5, AuditPath: proof,
		Root: tree.Root(), TxHash: "0xabc", BlockNumber: 7, Network: "dev"}}
	if _, err := cert.Verify(); err != nil {
		t.Fatalf("Verify() = %v", err)
	}
	w, err := cert.Wire()
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(w)
	got, err := CertificateFromWire(w, limits.Default())
	if err != nil {
		t.Fatalf("CertificateFromWire() = %v (json %s)", err, js)
	}
	if _, err := got.Verify(); err != nil {
		t.Fatalf("round-tripped Verify() = %v", err)
	}

	// A certificate whose summary lies about the record is refused.
	lying := w
	lying.OrgName = "Someone Else"
	if _, err := CertificateFromWire(lying, limits.Default()); !errors.Is(err, ErrCertificate) {
		t.Errorf("CertificateFromWire(lying org) error = %v, want ErrCertificate", err)
	}
	// The wrong leaf index, or another batch's root, fails the anchor.
	bad := *cert
	a := *cert.Anchor
	a.LeafIndex = 2
	bad.Anchor = &a
	if _, err := bad.Verify(); err == nil {
		t.Errorf("Verify(wrong leaf index) = nil")
	}
	var rm *merkle.RootMismatchError
	a.LeafIndex, a.Root = 3, tree.Leaf(0)
	if _, err := bad.Verify(); !errors.As(err, &rm) {
		t.Errorf("Verify(wrong root) error = %v, want RootMismatchError", err)
	}
	// A pending certificate verifies on the signature alone.
	if _, err := (&Certificate{Signed: recs[0]}).Verify(); err != nil {
		t.Errorf("pending Verify() = %v", err)
	}
}

// FuzzParse: parse∘encode is the identity on every accepted input.
func FuzzParse(f *testing.F) {
	good, _ := testRecord(testKey(1)).Encode()
	f.Add(good)
	f.Add(good[:fixedSize+3])
	f.Add([]byte("PVNR\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Parse(b)
		if err != nil {
			return
		}
		out, err := r.Encode()
		if err != nil {
			t.Fatalf("Encode(Parse(b)) error = %v", err)
		}
		if !bytes.Equal(out, b) {
			t.Fatalf("Encode(Parse(b)) = %x, want %x", out, b)
		}
	})
}

// TestParentVersion: a record with a parent is written as version 2 and
// round-trips with its parent; one without stays version 1, byte for byte
// what it was before version 2 existed.
func TestParentVersion(t *testing.T) {
	priv := testKey(1)
	parent := ID{0xab, 0xcd}
	derived := testRecord(priv)
	v1, v2 := bothVersions(t, derived, parent)
	derived.Parent = &parent
	if v1[4] != Version || v2[4] != VersionParent {
		t.Fatalf("versions = %d, %d, want %d, %d", v1[4], v2[4], Version, VersionParent)
	}
	if !bytes.Equal(v2[:4], v1[:4]) || !bytes.Equal(v2[5:len(v1)], v1[5:]) || len(v2) != len(v1)+16 {
		t.Errorf("version 2 = version 1 + parent id expected; got %d bytes vs %d", len(v2), len(v1))
	}
	signed, err := Sign(priv, derived)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Verify(signed)
	if err != nil {
		t.Fatalf("Verify(version 2) = %v", err)
	}
	if got.Parent == nil || *got.Parent != parent {
		t.Errorf("parsed parent = %v, want %v", got.Parent, parent)
	}
	if again, _ := got.Encode(); !bytes.Equal(again, v2) {
		t.Error("Encode(Parse(v2)) != v2")
	}
	if p, err := Parse(v1); err != nil || p.Parent != nil {
		t.Errorf("Parse(v1) parent = %v, err %v; want nil, nil", p.Parent, err)
	}
	zero := testRecord(priv)
	zero.Parent = &ID{}
	if _, err := zero.Encode(); !errors.Is(err, ErrInvalid) {
		t.Errorf("Encode(zero parent) err = %v, want ErrInvalid", err)
	}
}
