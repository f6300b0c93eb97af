package c2pa

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// selfSigner is a signer good enough for structure tests (its chain fails
// the C2PA profile, which these tests do not look at).
func selfSigner(t *testing.T) Signer {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(selfSignedDER(t, key, "t"))
	if err != nil {
		t.Fatal(err)
	}
	return Signer{Key: key, Chain: []*x509.Certificate{c}}
}

// selfSignedDER is a certificate for key signed by key itself, valid from
// an hour ago to an hour ahead, with nothing but a common name.
func selfSignedDER(t *testing.T, key crypto.Signer, cn string) []byte {
	t.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

// The three hashes writers have used for an ingredient's manifest
// reference are all accepted; anything else is a mismatch.
func TestIngredientManifestHashes(t *testing.T) {
	s := selfSigner(t)
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x00IDAT\x35\xaf\x06\x1e\x00\x00\x00\x00IEND\xae\x42\x60\x82")
	first, _, store1, err := Embed(png, Manifest{Actions: []Action{{Action: "c2pa.created"}}}, s)
	if err != nil {
		t.Fatal(err)
	}
	_, _, store2, err := Embed(first, Manifest{Parent: store1}, s)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := parseManifests(store2)
	if err != nil {
		t.Fatal(err)
	}
	parent, active := ps.manifests[0], ps.active()
	sum := func(b []byte) []byte { h := sha256.Sum256(b); return h[:] }
	base := "self#jumbf=/c2pa/" + parent.label
	tests := []struct {
		name, url string
		hash      []byte
		want      string
	}{
		{"manifest box", base, sum(parent.box.content), ""},
		{"claim CBOR (before 1.2)", base, sum(parent.claimCBOR), ""},
		{"claim box named", base + "/c2pa.claim", sum(parent.claimBox.content), ""},
		{"wrong hash", base, sum([]byte("x")), "ingredient.manifest.mismatch"},
		{"unknown manifest", "self#jumbf=/c2pa/urn:uuid:none", sum(parent.box.content), "ingredient.manifest.missing"},
		{"relative URI", "self#jumbf=c2pa.claim", sum(parent.box.content), "ingredient.manifest.missing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var in Ingredient
			got := ps.checkIngredientManifest(active, hashedURI{URL: tc.url, Alg: "sha256", Hash: tc.hash}, &in)
			if got != tc.want {
				t.Fatalf("code %q, want %q", got, tc.want)
			}
			if tc.want == "" && in.ManifestID != parent.label {
				t.Fatalf("manifest id %q", in.ManifestID)
			}
		})
	}
	// The store written with the parent names it in its ingredient.
	r, err := ps.report(nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Ingredients) != 1 || r.Ingredients[0].ManifestID != parent.label || !strings.HasPrefix(r.Ingredients[0].Relationship, "parentOf") {
		t.Fatalf("ingredients %+v", r.Ingredients)
	}
}

// A claim that references one large assertion thousands of times costs one
// hash of it, and a claim with many hard bindings is not checked against
// the file once per binding.
func TestRepeatedReferencesHashOnce(t *testing.T) {
	s := selfSigner(t)
	label := "urn:uuid:00000000-0000-4000-8000-000000000001"
	big := cborAssertionBox("io.example.big", append([]byte{0x5a, 0x00, 0x10, 0x00, 0x00}, make([]byte, 1<<20)...))
	dh, err := encMode.Marshal(dataHash{Alg: "sha256", Hash: make([]byte, 32), Pad: []byte{}})
	if err != nil {
		t.Fatal(err)
	}
	boxes := [][]byte{big}
	uri := "self#jumbf=/c2pa/" + label + "/c2pa.assertions/"
	bigSum := sha256.Sum256(boxContent(big))
	var refs []hashedURI
	for range 3000 {
		refs = append(refs, hashedURI{URL: uri + "io.example.big", Hash: bigSum[:]})
	}
	for i := range 50 {
		l := "c2pa.hash.data"
		if i > 0 {
			l += "__" + strconv.Itoa(i)
		}
		b := cborAssertionBox(l, dh)
		boxes = append(boxes, b)
		sum := sha256.Sum256(boxContent(b))
		refs = append(refs, hashedURI{URL: uri + l, Hash: sum[:]})
	}
	claim, err := encMode.Marshal(claimV1{ClaimGenerator: "t", Signature: "self#jumbf=/c2pa/" + label + "/c2pa.signature",
		Assertions: refs, Format: "image/png", InstanceID: "x", Alg: "sha256"})
	if err != nil {
		t.Fatal(err)
	}
	sig, err := signClaim(claim, s)
	if err != nil {
		t.Fatal(err)
	}
	store := superBox(uuidStore, "c2pa", superBox(uuidManifest, label,
		superBox(uuidAssertions, "c2pa.assertions", boxes...),
		superBox(uuidClaim, "c2pa.claim", appendBox(nil, "cbor", claim)),
		superBox(uuidSignature, "c2pa.signature", appendBox(nil, "cbor", sig))))
	ps, err := parseManifests(store)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ps.report(make([]byte, 1<<20), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if ps.hashed > 2<<20 {
		t.Errorf("%d bytes hashed for a store of %d", ps.hashed, len(store))
	}
	if !slices.Contains(r.Codes, "assertion.multipleHardBindings") || slices.Contains(r.Codes, "assertion.dataHash.mismatch") {
		t.Errorf("codes %v", r.Codes)
	}
}
