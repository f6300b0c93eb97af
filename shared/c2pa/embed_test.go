package c2pa_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/c2pa/c2patest"
)

// A store larger than one APP11 segment is split into JPEG XT continuation
// segments that both readers put back together.
func TestLargeStoreSpansSegments(t *testing.T) {
	s := c2patest.NewSigner(t, c2patest.CertOptions{})
	big := make([]byte, 150_000)
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	m := testManifest("image/jpeg")
	m.Assertions = append(m.Assertions, c2pa.Assertion{Label: "io.provenant.blob", Data: big})
	out, id, store := mustEmbed(t, testJPEG(t), m, s)
	if n := bytes.Count(out, []byte{0xff, 0xeb}); n < 3 {
		t.Fatalf("store of %d bytes in %d APP11 markers, want >= 3", len(store), n)
	}
	r, err := c2pa.Read(out, time.Now())
	if err != nil || r.State != "valid" || r.ActiveManifest != id {
		t.Fatalf("Read: %v %+v", err, r)
	}
	res := c2patest.ReadBytes(t, out, ".jpg")
	if !res.Validation.IsValid || res.ActiveManifest != id {
		t.Fatalf("reader: %v", res.Failures())
	}
}

// Embedding into a file that already carries a store replaces it; the
// bytes outside the store are the input's.
func TestEmbedReplaces(t *testing.T) {
	s := c2patest.NewSigner(t, c2patest.CertOptions{})
	for _, file := range [][]byte{testJPEG(t), testPNG(t)} {
		format := "image/png"
		if file[0] == 0xff {
			format = "image/jpeg"
		}
		first, _, _ := mustEmbed(t, file, testManifest(format), s)
		second, id, _ := mustEmbed(t, first, testManifest(format), s)
		r, err := c2pa.Read(second, time.Now())
		if err != nil || r.State != "valid" || r.ActiveManifest != id || len(r.Ingredients) != 0 {
			t.Fatalf("%s: %v %+v", format, err, r)
		}
		stripped, err := c2pa.Strip(second)
		if err != nil || !bytes.Equal(stripped, file) {
			t.Fatalf("%s: strip after re-embed differs from the input (%v)", format, err)
		}
	}
}

func TestEd25519Signer(t *testing.T) {
	ca := c2patest.NewCA(t, "Provenant Test CA")
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s := c2pa.Signer{Key: priv, Chain: []*x509.Certificate{ca.Issue(t, pub, c2patest.CertOptions{Org: "Ed Org"}), ca.Cert}}
	out, _, _ := mustEmbed(t, testPNG(t), testManifest("image/png"), s)
	r, err := c2pa.Read(out, time.Now())
	if err != nil || r.State != "valid" || r.Signer != "Ed Org / Ed Org claim signer" {
		t.Fatalf("%v %+v", err, r)
	}
	res := c2patest.ReadBytes(t, out, ".png")
	if !res.Validation.IsValid {
		t.Fatalf("reader: %v", res.Failures())
	}
}

func TestReadCodes(t *testing.T) {
	good := c2patest.NewSigner(t, c2patest.CertOptions{})
	jpg := testJPEG(t)
	embed := func(t *testing.T, s c2pa.Signer) []byte {
		out, _, _ := mustEmbed(t, jpg, testManifest("image/jpeg"), s)
		return out
	}
	tests := []struct {
		name string
		file func(t *testing.T) []byte
		want string
	}{
		{"no EKU", func(t *testing.T) []byte {
			return embed(t, c2patest.NewSigner(t, c2patest.CertOptions{NoEKU: true}))
		}, "signingCredential.invalid"},
		{"expired", func(t *testing.T) []byte {
			return embed(t, c2patest.NewSigner(t, c2patest.CertOptions{
				NotBefore: time.Now().Add(-48 * time.Hour), NotAfter: time.Now().Add(-24 * time.Hour)}))
		}, "signingCredential.expired"},
		{"assertion changed", func(t *testing.T) []byte {
			out := embed(t, good)
			i := bytes.Index(out, []byte("r-123"))
			out[i+4] = '4' // same length: structure intact, hash not
			return out
		}, "assertion.hashedURI.mismatch"},
		{"claim changed", func(t *testing.T) []byte {
			out := embed(t, good)
			i := bytes.Index(out, []byte("photo"))
			out[i] = 'P'
			return out
		}, "claimSignature.mismatch"},
		{"image changed", func(t *testing.T) []byte {
			out := embed(t, good)
			out[len(out)-3] ^= 0x80
			return out
		}, "assertion.dataHash.mismatch"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := c2pa.Read(tc.file(t), time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if r.State != "invalid" || !slices.Contains(r.Codes, tc.want) {
				t.Fatalf("state %s codes %v, want %s", r.State, r.Codes, tc.want)
			}
		})
	}
}

func TestReadStore(t *testing.T) {
	s := c2patest.NewSigner(t, c2patest.CertOptions{})
	out, id, store := mustEmbed(t, testJPEG(t), testManifest("image/jpeg"), s)
	r, err := c2pa.ReadStore(store, nil, time.Now())
	if err != nil || r.State != "valid" || r.ActiveManifest != id {
		t.Fatalf("structure only: %v %+v", err, r)
	}
	if r, err = c2pa.ReadStore(store, out, time.Now()); err != nil || r.State != "valid" {
		t.Fatalf("with its file: %v %+v", err, r)
	}
	// The same store against a re-encoded copy (what a resolver gets back
	// from a stripped file) no longer matches its hard binding.
	changed := bytes.Clone(out)
	changed[len(changed)-3] ^= 0x80
	r, err = c2pa.ReadStore(store, changed, time.Now())
	if err != nil || r.State != "invalid" || !slices.Contains(r.Codes, "assertion.dataHash.mismatch") {
		t.Fatalf("against another file: %v %+v", err, r)
	}
	if len(r.SoftBindings) != 1 || r.SoftBindings[0].Alg != "io.provenant.watermark.1" || !bytes.Equal(r.SoftBindings[0].Value, []byte{1, 2, 3, 4}) {
		t.Fatalf("soft bindings %+v", r.SoftBindings)
	}
	if !bytes.Contains(r.Assertions["io.provenant.record"], []byte("r-123")) {
		t.Fatalf("custom assertion %x", r.Assertions["io.provenant.record"])
	}
	if len(r.Actions) != 2 || r.Actions[1].Action != "c2pa.watermarked" || !r.Actions[0].When.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Fatalf("actions %+v", r.Actions)
	}
}

func TestErrors(t *testing.T) {
	s := c2patest.NewSigner(t, c2patest.CertOptions{})
	jpg, png := testJPEG(t), testPNG(t)
	out, _, store := mustEmbed(t, jpg, testManifest("image/jpeg"), s)
	truncatedStore := bytes.Clone(out)
	i := bytes.Index(truncatedStore, []byte("jumb"))
	truncatedStore[i-1]++ // the store box claims one byte more than it has
	wrongCert := c2patest.NewSigner(t, c2patest.CertOptions{})
	wrongCert.Chain = s.Chain
	tests := []struct {
		name string
		run  func() error
		want error
	}{
		{"read gif", func() error { _, err := c2pa.Read([]byte("GIF89a..."), time.Now()); return err }, c2pa.ErrUnsupportedFormat},
		{"read no manifest", func() error { _, err := c2pa.Read(jpg, time.Now()); return err }, c2pa.ErrNoManifest},
		{"read png no manifest", func() error { _, err := c2pa.Read(png, time.Now()); return err }, c2pa.ErrNoManifest},
		{"read truncated jpeg", func() error { _, err := c2pa.Read(jpg[:20], time.Now()); return err }, c2pa.ErrBadFile},
		{"read bad store length", func() error { _, err := c2pa.Read(truncatedStore, time.Now()); return err }, c2pa.ErrMalformed},
		{"store garbage", func() error { _, err := c2pa.ReadStore([]byte("garbage garbage garbage"), nil, time.Now()); return err }, c2pa.ErrMalformed},
		{"store empty", func() error { _, err := c2pa.ReadStore(nil, nil, time.Now()); return err }, c2pa.ErrNoManifest},
		{"store truncated", func() error { _, err := c2pa.ReadStore(store[:len(store)-1], nil, time.Now()); return err }, c2pa.ErrMalformed},
		{"embed no key", func() error { _, _, _, err := c2pa.Embed(jpg, testManifest("image/jpeg"), c2pa.Signer{}); return err }, c2pa.ErrSigner},
		{"embed key not the leaf's", func() error {
			_, _, _, err := c2pa.Embed(jpg, testManifest("image/jpeg"), wrongCert)
			return err
		}, c2pa.ErrSigner},
		{"embed bad parent", func() error {
			m := testManifest("image/jpeg")
			m.Parent = []byte("not a store")
			_, _, _, err := c2pa.Embed(jpg, m, s)
			return err
		}, c2pa.ErrMalformed},
		{"embed gif", func() error { _, _, _, err := c2pa.Embed([]byte("GIF89a"), testManifest(""), s); return err }, c2pa.ErrUnsupportedFormat},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.run(); !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
		})
	}
	// Extract and Strip of a file without a store.
	if b, err := c2pa.Extract(jpg); b != nil || err != nil {
		t.Fatalf("Extract of a plain JPEG: %v %v", b, err)
	}
	if b, err := c2pa.Strip(png); err != nil || !bytes.Equal(b, png) {
		t.Fatalf("Strip of a plain PNG: %v", err)
	}
	// Stores beyond MaxStoreBytes, read or written.
	huge := make([]byte, c2pa.MaxStoreBytes+1)
	m := testManifest("image/png")
	m.Assertions = append(m.Assertions, c2pa.Assertion{Label: "io.provenant.huge", Data: huge})
	if _, _, _, err := c2pa.Embed(png, m, s); !errors.Is(err, c2pa.ErrTooLarge) {
		t.Errorf("Embed of an oversized store: %v", err)
	}
	bigPNG := append(bytes.Clone(png[:33]), binary.BigEndian.AppendUint32(nil, uint32(len(huge)))...)
	bigPNG = append(append(append(bigPNG, "caBX"...), huge...), 0, 0, 0, 0)
	bigPNG = append(bigPNG, png[33:]...)
	if _, err := c2pa.Read(bigPNG, time.Now()); !errors.Is(err, c2pa.ErrTooLarge) || !errors.Is(err, c2pa.ErrMalformed) {
		t.Errorf("Read of an oversized caBX: %v", err)
	}
	if _, err := c2pa.ReadStore(huge, nil, time.Now()); !errors.Is(err, c2pa.ErrTooLarge) {
		t.Errorf("ReadStore of an oversized store: %v", err)
	}
	for _, label := range []string{"", "c2pa.hash.data", "a/b"} {
		m := testManifest("image/jpeg")
		m.Assertions = []c2pa.Assertion{{Label: label, Data: 1}}
		if _, _, _, err := c2pa.Embed(jpg, m, s); err == nil || !strings.Contains(err.Error(), "label") {
			t.Errorf("custom label %q accepted: %v", label, err)
		}
	}
}

// TestReadJudgesCredentialsAtTheGivenTime: the reader never reads a clock;
// the same bytes judged at the same time give the same report, and the
// signing credential's validity is judged at the time the caller passes.
func TestReadJudgesCredentialsAtTheGivenTime(t *testing.T) {
	now := time.Now().Truncate(time.Second) // certificates hold whole seconds
	nb, na := now.Add(-time.Hour), now.Add(time.Hour)
	s := c2patest.NewSigner(t, c2patest.CertOptions{NotBefore: nb, NotAfter: na})
	out, _, _ := mustEmbed(t, testJPEG(t), testManifest("image/jpeg"), s)
	tests := []struct {
		name    string
		at      time.Time
		expired bool
	}{
		{"inside the leaf's validity", now, false},
		{"at NotBefore", nb, false},
		{"at NotAfter", na, false},
		{"a second before NotBefore", nb.Add(-time.Second), true},
		{"a second after NotAfter", na.Add(time.Second), true},
		{"ten years later", now.AddDate(10, 0, 0), true},
	}
	for _, tc := range tests {
		r, err := c2pa.Read(out, tc.at)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		again, _ := c2pa.Read(out, tc.at)
		if r.State != again.State || !slices.Equal(r.Codes, again.Codes) {
			t.Errorf("%s: two reads at the same time differ: %v %v / %v %v", tc.name, r.State, r.Codes, again.State, again.Codes)
		}
		if got := slices.Contains(r.Codes, "signingCredential.expired"); got != tc.expired || (r.State == "valid") == tc.expired {
			t.Errorf("%s: state %s codes %v, want expired=%v", tc.name, r.State, r.Codes, tc.expired)
		}
	}
}
