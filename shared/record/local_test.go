package record

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"image"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/internal/phototest"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/localsig"
)

// Golden encodings of testRecord(testKey(1)) as version 1 and, with parent
// ab cd 00…, version 2, and the version 1 signature, captured before
// version 3 existed: records signed before keep their bytes and verify.
const (
	goldenV1    = "50564e52010190f3a17b2c7d4e8f00123456789abc010203000000000000000000000000000000000000000000000000000000000000000000deadbeef00000000000000010000000000000002000000000000000300000000000000048a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c000001a2033c19bb0c63616d6572615f696d6167650c4578616d706c65204e65777308cafebabe00010203"
	goldenV2    = "50564e52020190f3a17b2c7d4e8f00123456789abc010203000000000000000000000000000000000000000000000000000000000000000000deadbeef00000000000000010000000000000002000000000000000300000000000000048a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c000001a2033c19bb0c63616d6572615f696d6167650c4578616d706c65204e65777308cafebabe00010203abcd0000000000000000000000000000"
	goldenV1Sig = "8dd5a333cbb15603e48ffc11e67019d97e2ae34301eff075a8a45734ae17dc56e87d2cde6c3210ef94d00ec868899b601a72d3c3696dfc5147123849dd53f708"
)

func TestVersions1And2Unchanged(t *testing.T) {
	priv := testKey(1)
	r := testRecord(priv)
	v1, v2 := bothVersions(t, r, ID{0xab, 0xcd})
	if got := hex.EncodeToString(v1); got != goldenV1 {
		t.Errorf("version 1 encoding changed:\n got %s\nwant %s", got, goldenV1)
	}
	s, err := Sign(priv, r)
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(s.Signature); got != goldenV1Sig {
		t.Errorf("version 1 signature changed: got %s", got)
	}
	if got := hex.EncodeToString(v2); got != goldenV2 {
		t.Errorf("version 2 encoding changed:\n got %s\nwant %s", got, goldenV2)
	}
	for _, g := range []string{goldenV1, goldenV2} {
		b, _ := hex.DecodeString(g)
		rec, err := Parse(b)
		if err != nil {
			t.Fatalf("Parse(golden) = %v", err)
		}
		if rec.LocalSig != nil {
			t.Errorf("golden record has local signatures")
		}
	}
}

// testPhoto is the core's test photo, decoded.
func testPhoto(t testing.TB) image.Image {
	t.Helper()
	return phototest.Decode(t, "photo.jpg")
}

// testGrid is the encoded luminance grid of testPhoto.
func testGrid(t testing.TB) []byte {
	t.Helper()
	g, err := localsig.Compute(imagex.ToLuma(testPhoto(t))).Encode()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestLocalVersion(t *testing.T) {
	priv := testKey(1)
	grid := testGrid(t)
	parent := ID{0xab}
	for _, tt := range []struct {
		name   string
		parent *ID
	}{{"no parent", nil}, {"parent", &parent}} {
		t.Run(tt.name, func(t *testing.T) {
			r := testRecord(priv)
			r.Parent, r.LocalSig = tt.parent, grid
			s, got := signAndVerify(t, priv, r, VersionLocal)
			if !bytes.Equal(got.LocalSig, grid) || (got.Parent == nil) != (tt.parent == nil) || (got.Parent != nil && *got.Parent != *tt.parent) {
				t.Errorf("round trip lost the grid or the parent: parent %v", got.Parent)
			}
			if g, err := got.Grid(); err != nil || g == nil {
				t.Errorf("Grid() = %v, %v", g, err)
			}
			// The grid is covered by the signature.
			tampered := Signed{Bytes: bytes.Clone(s.Bytes), Signature: s.Signature}
			tampered.Bytes[len(tampered.Bytes)-1] ^= 1
			if _, err := Verify(tampered); err == nil {
				t.Error("a changed grid still verifies")
			}
		})
	}
	bad := testRecord(priv)
	bad.LocalSig = []byte{1, 2, 3}
	if _, err := bad.Encode(); !errors.Is(err, ErrInvalid) {
		t.Errorf("Encode(bad grid) = %v, want ErrInvalid", err)
	}
}

// TestColourVersion: a record with colour local signatures is version 4,
// round-trips, and its signature covers the grid; a colour grid under a
// version 3 byte (or a luminance grid under 4) is malformed.
func TestColourVersion(t *testing.T) {
	priv := testKey(1)
	img := testPhoto(t)
	cb, cr := imagex.Chroma(img)
	grid, err := localsig.ComputeColour(imagex.ToLuma(img), cb, cr).Encode()
	if err != nil {
		t.Fatal(err)
	}
	r := testRecord(priv)
	r.LocalSig = grid
	s, got := signAndVerify(t, priv, r, VersionColour)
	if g, err := got.Grid(); err != nil || g.Format != localsig.FormatColour || !bytes.Equal(got.LocalSig, grid) {
		t.Fatalf("Grid() = %v, %v", g, err)
	}
	if len(s.Bytes) > limits.MaxRecordBytes {
		t.Errorf("record of %d bytes > %d", len(s.Bytes), limits.MaxRecordBytes)
	}
	tampered := Signed{Bytes: bytes.Clone(s.Bytes), Signature: s.Signature}
	tampered.Bytes[len(tampered.Bytes)-1] ^= 1
	if _, err := Verify(tampered); err == nil {
		t.Error("a changed colour grid still verifies")
	}
	wrong := bytes.Clone(s.Bytes)
	wrong[4] = VersionLocal
	if _, err := Parse(wrong); !errors.Is(err, ErrMalformed) {
		t.Errorf("colour grid in a version 3 record: %v, want ErrMalformed", err)
	}
	r.LocalSig = testGrid(t)
	v3, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	v3[4] = VersionColour
	if _, err := Parse(v3); !errors.Is(err, ErrMalformed) {
		t.Errorf("luminance grid in a version 4 record: %v, want ErrMalformed", err)
	}
}

// signAndVerify signs r, checks the record was written as version want,
// and returns the signed record with what Verify reads back from it.
func signAndVerify(t *testing.T, priv ed25519.PrivateKey, r *Record, want byte) (Signed, *Record) {
	t.Helper()
	s, err := Sign(priv, r)
	if err != nil {
		t.Fatal(err)
	}
	if s.Bytes[4] != want {
		t.Fatalf("version = %d, want %d", s.Bytes[4], want)
	}
	got, err := Verify(s)
	if err != nil {
		t.Fatalf("Verify(v%d) = %v", want, err)
	}
	return s, got
}
