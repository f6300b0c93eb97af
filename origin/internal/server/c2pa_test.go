package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"image/png"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/c2pa/c2patest"
	"github.com/provenant/provenant/shared/c2pa/sniff"
	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/wire"
)

// signC2PA signs data through the origin with return_file=true and
// returns the signed file, its record id and its manifest id.
func (ts *testServer) signC2PA(s signer, name string, data []byte, fields map[string]string) ([]byte, string, string) {
	ts.t.Helper()
	f := map[string]string{"return_file": "true"}
	for k, v := range fields {
		f[k] = v
	}
	r := ts.upload("/api/v1/sign?signing_key_id="+s.keyID, s.apiKey, []namedFile{{"file", name, data}}, f)
	ts.mustStatus(r, 201, "sign "+name)
	return r.body, r.header.Get("X-Record-Id"), r.header.Get("X-C2PA-Manifest-Id")
}

// ownManifest reads the manifest the origin wrote into the signed file
// and fails the test (naming what was signed) unless it is there and
// valid.
func ownManifest(t *testing.T, what string, file []byte) *c2pa.Report {
	t.Helper()
	rep, err := c2pa.Read(file, time.Now())
	if err != nil || rep.State != "valid" {
		t.Fatalf("signed %s manifest: %+v %v", what, rep, err)
	}
	return rep
}

// verifyC2PA verifies data and returns the answer's c2pa member.
func (ts *testServer) verifyC2PA(data []byte, name string) (*wire.C2PA, []byte) {
	ts.t.Helper()
	r := ts.upload("/api/v1/verify", "", []namedFile{{"file", name, data}}, nil)
	ts.mustStatus(r, 200, "verify")
	var v wire.VerifyResponse
	if err := json.Unmarshal(r.body, &v); err != nil {
		ts.t.Fatal(err)
	}
	return v.C2PA, r.body
}

// TestC2PASignedJPEG: a signed JPEG carries a Provenant manifest the
// independent reader validates, with our actions, soft bindings and
// record link; the record's SHA-256 is that of the file with its
// manifest; verify reports the manifest as ours and trusted by this
// origin's CA, which GET /api/v1/c2pa/ca.pem serves; c2pa=false writes
// no manifest.
func TestC2PASignedJPEG(t *testing.T) {
	ts := startServer(t, "", nil)
	s := ts.newSigner("c2pa@example.com")
	marked, id, manifestID := ts.signC2PA(s, "meadow.jpg", readTestdata(t, "meadow.jpg"), nil)

	rep := ownManifest(t, "JPEG", marked)
	if got := manifestID; got != rep.ActiveManifest {
		t.Errorf("X-C2PA-Manifest-Id %q, want the active manifest %q", got, rep.ActiveManifest)
	}
	if rep.State != "valid" || !strings.HasPrefix(rep.ClaimGenerator, "Provenant/") || !strings.Contains(rep.Signer, "Example News") {
		t.Fatalf("manifest report %+v, want valid, Provenant, signed for Example News", rep)
	}
	res := c2patest.ReadBytes(t, marked, ".jpg")
	if res.Validation == nil || !res.Validation.IsValid || res.ActiveManifest != rep.ActiveManifest {
		t.Fatalf("independent reader: valid=%v active=%q, want valid %q: %v\n%s", res.Validation != nil && res.Validation.IsValid,
			res.ActiveManifest, rep.ActiveManifest, res.Failures(), res.Raw)
	}
	if !res.Has("assertion.dataHash.match") {
		t.Errorf("independent reader did not match the hard binding:\n%s", res.Raw)
	}
	m := res.Manifest(rep.ActiveManifest)
	for _, want := range []struct{ label, contains string }{
		{"c2pa.actions", `"c2pa.created"`},
		{"c2pa.actions", `"c2pa.watermarked"`},
		{"c2pa.actions", `digitalsourcetype/digitalCapture`},
		{"c2pa.soft-binding", facts.AlgWatermark},
		{"c2pa.soft-binding", facts.AlgPHash},
		{facts.RecordAssertion, id},
		{facts.RecordAssertion, "/api/v1/content-records/" + id + "/certificate"},
	} {
		// Repeated labels get the __n suffix (c2pa.soft-binding__1).
		if !slices.ContainsFunc(m.Assertions, func(a c2patest.ReaderAssertion) bool {
			return (a.Label == want.label || strings.HasPrefix(a.Label, want.label+"__")) && strings.Contains(string(a.Content), want.contains)
		}) {
			t.Errorf("reader found no %s assertion with %s", want.label, want.contains)
		}
	}

	// The CA that issued the signer's certificate is served for readers
	// to trust.
	r := ts.do("GET", "/api/v1/c2pa/ca.pem", "", nil)
	ts.mustStatus(r, 200, "CA certificate")
	b, _ := pem.Decode(r.body)
	if b == nil || len(rep.Chain) < 2 || !bytes.Equal(b.Bytes, rep.Chain[1].Raw) || rep.Chain[0].CheckSignatureFrom(rep.Chain[1]) != nil {
		t.Fatalf("ca.pem is not the CA of the manifest's chain")
	}

	c, body := ts.verifyC2PA(marked, "meadow.jpg")
	if c == nil || c.ValidationState != "valid" || !c.Ours || !c.Trusted || c.RecordID != id || c.ActiveManifest != rep.ActiveManifest ||
		!slices.ContainsFunc(c.Actions, func(a wire.C2PAAction) bool { return a.Action == "c2pa.watermarked" }) {
		t.Fatalf("verify c2pa member = %+v, want valid, ours, trusted, record %s\n%s", c, id, body)
	}

	// One changed byte of image data: the manifest no longer validates.
	// The byte is the last step of the first quantisation table, so the
	// file still decodes whatever its entropy-coded data is (a bit flipped
	// there can break the Huffman code, and verify answers corrupt_image
	// before it reads the manifest).
	flipped := slices.Clone(marked)
	errStopWalk := errors.New("table changed")
	if _, err := sniff.WalkJPEG(flipped, func(seg sniff.Segment) error {
		if seg.Marker != 0xdb || len(seg.Payload) < 65 || seg.Payload[0]>>4 != 0 {
			return nil
		}
		if q := &seg.Payload[64]; *q < 255 {
			*q++
		} else {
			*q--
		}
		return errStopWalk
	}); !errors.Is(err, errStopWalk) {
		t.Fatalf("no 8-bit quantisation table in the signed file (walk: %v)", err)
	}
	if c, body := ts.verifyC2PA(flipped, "flipped.jpg"); c == nil || c.ValidationState != "invalid" || c.Trusted || c.Ours ||
		!slices.Contains(c.ValidationCodes, "assertion.dataHash.mismatch") {
		t.Fatalf("verify of a changed file: c2pa = %+v, want invalid with assertion.dataHash.mismatch\n%s", c, body)
	}

	// Opting out: no manifest, no c2pa member.
	plain, _, noID := ts.signC2PA(s, "meadow.jpg", readTestdata(t, "water.jpg"), map[string]string{"c2pa": "false"})
	if st, err := c2pa.Extract(plain); err != nil || st != nil || noID != "" {
		t.Fatalf("c2pa=false output carries a manifest store (%d bytes, %v)", len(st), err)
	}
	if c, body := ts.verifyC2PA(plain, "plain.jpg"); c != nil {
		t.Fatalf("verify of a file without manifest has a c2pa member: %s", body)
	}
	r = ts.upload("/api/v1/sign?signing_key_id="+s.keyID, s.apiKey, []namedFile{{"file", "x.jpg", readTestdata(t, "water.jpg")}}, map[string]string{"c2pa": "maybe"})
	if r.status != 400 || r.problemCode(t) != "validation_failed" {
		t.Fatalf("c2pa=maybe: %d %s, want 400 validation_failed", r.status, r.body)
	}
}

// TestC2PASignedPNG: PNG outputs carry the manifest too (caBX chunk).
func TestC2PASignedPNG(t *testing.T) {
	ts := startServer(t, "", nil)
	s := ts.newSigner("png@example.com")
	img, err := png.Decode(bytes.NewReader(pngOf(t, readTestdata(t, "water.jpg"))))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	out, id, _ := ts.signC2PA(s, "water.png", buf.Bytes(), nil)
	ownManifest(t, "PNG", out)
	if res := c2patest.ReadBytes(t, out, ".png"); res.Validation == nil || !res.Validation.IsValid {
		t.Fatalf("independent reader refuses the signed PNG: %v\n%s", res.Failures(), res.Raw)
	}
	if c, body := ts.verifyC2PA(out, "water.png"); c == nil || !c.Ours || c.RecordID != id {
		t.Fatalf("verify c2pa = %+v\n%s", c, body)
	}
}

// TestC2PAKeepsIncomingCredentials: a file carrying a third-party
// manifest (made by the independent reader's own signing code) keeps it
// as the parentOf ingredient of ours; verify of the third-party file
// reports its manifest, valid but not trusted by this origin.
func TestC2PAKeepsIncomingCredentials(t *testing.T) {
	ts := startServer(t, "", nil)
	s := ts.newSigner("camera@example.com")
	camera := c2patest.NewCA(t, "Third Party Camera").Signer(t, c2patest.CertOptions{Org: "Third Party Camera"})
	in, label := c2patest.ThirdParty(t, readTestdata(t, "meadow.jpg"), ".jpg", camera)

	c, body := ts.verifyC2PA(in, "camera.jpg")
	if c == nil || c.ValidationState != "valid" || c.Trusted || c.Ours || c.ActiveManifest != label {
		t.Fatalf("verify of the camera file: c2pa = %+v, want valid, not trusted, not ours\n%s", c, body)
	}

	out, _, _ := ts.signC2PA(s, "camera.jpg", in, nil)
	rep := ownManifest(t, "file", out)
	if !slices.ContainsFunc(rep.Ingredients, func(i c2pa.Ingredient) bool {
		return i.Relationship == "parentOf" && i.ManifestID == label
	}) {
		t.Fatalf("ingredients %+v, want the camera's manifest %s as parentOf", rep.Ingredients, label)
	}
	res := c2patest.ReadBytes(t, out, ".jpg")
	if !res.Validation.IsValid || res.Manifest(label) == nil || res.ActiveManifest != rep.ActiveManifest {
		t.Fatalf("independent reader: valid=%v manifests=%d, want ours active over the camera's: %v\n%s",
			res.Validation.IsValid, len(res.Manifests), res.Failures(), res.Raw)
	}
	if a := res.Manifest(rep.ActiveManifest).Assertion("c2pa.actions"); a == nil || !strings.Contains(string(a.Content), `"c2pa.opened"`) ||
		!strings.Contains(string(a.Content), `"c2pa.watermarked"`) {
		t.Fatalf("actions %v, want c2pa.opened then c2pa.watermarked", a)
	}
}

// TestC2PASoftBindingResolution: a signed file stripped of its metadata
// and re-encoded resolves through matches/byContent to its manifest id,
// and manifests/{id} serves the store written into the signed file, which
// validates against it; byBinding resolves the watermark payload and the
// perceptual hash alike; refusals are problems.
func TestC2PASoftBindingResolution(t *testing.T) {
	ts := startServer(t, "", nil)
	s := ts.newSigner("sbr@example.com")
	marked, _, _ := ts.signC2PA(s, "meadow.jpg", readTestdata(t, "meadow.jpg"), nil)
	rep := ownManifest(t, "JPEG", marked)
	stripped := reencode(t, marked, 0.8, 80) // decoded and encoded anew: no metadata survives
	if st, _ := c2pa.Extract(stripped); st != nil {
		t.Fatal("the re-encoded copy still carries a manifest")
	}

	type matches struct {
		Matches []struct {
			ManifestID      string `json:"manifestId"`
			SimilarityScore int    `json:"similarityScore"`
		} `json:"matches"`
	}
	r := ts.doRaw("POST", "/api/v1/c2pa/matches/byContent", "", string(stripped), "image/jpeg")
	ts.mustStatus(r, 200, "byContent")
	var ms matches
	if err := json.Unmarshal(r.body, &ms); err != nil {
		t.Fatal(err)
	}
	if len(ms.Matches) == 0 || ms.Matches[0].ManifestID != rep.ActiveManifest || ms.Matches[0].SimilarityScore != 100 {
		t.Fatalf("byContent = %s, want %s first with score 100 (watermark)", r.body, rep.ActiveManifest)
	}

	r = ts.do("GET", "/api/v1/c2pa/manifests/"+url.PathEscape(rep.ActiveManifest), "", nil)
	ts.mustStatus(r, 200, "manifest")
	if ct := r.header.Get("Content-Type"); ct != "application/c2pa" {
		t.Errorf("manifest Content-Type %q, want application/c2pa", ct)
	}
	inFile, err := c2pa.Extract(marked)
	if err != nil || !bytes.Equal(r.body, inFile) {
		t.Fatalf("served store (%d bytes) is not the one in the signed file (%d bytes)", len(r.body), len(inFile))
	}
	if sr, err := c2pa.ReadStore(r.body, marked, time.Now()); err != nil || sr.State != "valid" || sr.ActiveManifest != rep.ActiveManifest {
		t.Fatalf("served store against the signed file: %+v %v", sr, err)
	}
	if sr, err := c2pa.ReadStore(r.body, nil, time.Now()); err != nil || sr.State != "valid" {
		t.Fatalf("served store alone (structure and signature): %+v %v", sr, err)
	}

	for _, sb := range rep.SoftBindings {
		q := "alg=" + url.QueryEscape(sb.Alg) + "&value=" + url.QueryEscape(base64.StdEncoding.EncodeToString(sb.Value))
		r = ts.do("GET", "/api/v1/c2pa/matches/byBinding?"+q, "", nil)
		ts.mustStatus(r, 200, "byBinding "+sb.Alg)
		ms = matches{}
		if err := json.Unmarshal(r.body, &ms); err != nil {
			t.Fatal(err)
		}
		if len(ms.Matches) != 1 || ms.Matches[0].ManifestID != rep.ActiveManifest {
			t.Errorf("byBinding %s = %s, want %s", sb.Alg, r.body, rep.ActiveManifest)
		}
	}
	if len(rep.SoftBindings) != 2 {
		t.Errorf("soft bindings %+v, want watermark and perceptual hash", rep.SoftBindings)
	}

	r = ts.do("GET", "/api/v1/c2pa/services/supportedAlgorithms", "", nil)
	ts.mustStatus(r, 200, "supportedAlgorithms")
	if want := `{"watermarks":[{"alg":"` + facts.AlgWatermark + `"}],"fingerprints":[{"alg":"` + facts.AlgPHash + `"}]}`; string(r.body) != want {
		t.Errorf("supportedAlgorithms = %s, want %s", r.body, want)
	}

	for _, tc := range []struct {
		method, path, body string
		status             int
		code               string
	}{
		{"GET", "/api/v1/c2pa/matches/byBinding?alg=org.example.other&value=AAAA", "", 400, "unsupported_algorithm"},
		{"GET", "/api/v1/c2pa/matches/byBinding?alg=" + facts.AlgWatermark + "&value=AAAA", "", 400, "validation_failed"},
		{"GET", "/api/v1/c2pa/matches/byBinding?alg=" + facts.AlgWatermark + "&value=%21%21", "", 400, "validation_failed"},
		{"GET", "/api/v1/c2pa/matches/byBinding?alg=" + facts.AlgWatermark, "", 400, "validation_failed"},
		{"GET", "/api/v1/c2pa/matches/byBinding?alg=" + facts.AlgWatermark + "&value=AAAAAAAAAAA%3D&maxResults=0", "", 400, "validation_failed"},
		{"GET", "/api/v1/c2pa/matches/byBinding?alg=x&value=AAAA&extra=1", "", 400, "unknown_parameter"},
		{"GET", "/api/v1/c2pa/manifests/urn:c2pa:00000000-0000-0000-0000-000000000000", "", 404, "manifest_not_found"},
		{"POST", "/api/v1/c2pa/matches/byContent", "", 400, "empty_file"},
		{"POST", "/api/v1/c2pa/matches/byContent", "not an image", 415, "unsupported_image_format"},
	} {
		r := ts.doRaw(tc.method, tc.path, "", tc.body, "application/octet-stream")
		if r.status != tc.status || r.problemCode(t) != tc.code {
			t.Errorf("%s %s: %d %s, want %d %s", tc.method, tc.path, r.status, r.body, tc.status, tc.code)
		}
	}

	// A copy that matches nothing resolves to no manifest.
	r = ts.doRaw("POST", "/api/v1/c2pa/matches/byContent", "", string(readTestdata(t, "water.jpg")), "image/jpeg")
	ts.mustStatus(r, 200, "byContent unknown")
	if string(r.body) != `{"matches":[]}` {
		t.Errorf("byContent of an unknown picture = %s, want no match", r.body)
	}
}

// TestC2PAUnreadableUpload: an upload whose manifest store cannot be read
// is refused (never silently stripped), signs with c2pa=false, and
// verifies with the store reported malformed.
func TestC2PAUnreadableUpload(t *testing.T) {
	ts := startServer(t, "", nil)
	s := ts.newSigner("broken@example.com")
	in := cameraManifest(t, readTestdata(t, "water.jpg"))
	// The store's box claims more bytes than the segments carry.
	j := bytes.Index(in, []byte("jumb"))
	in[j-1] ^= 0x40
	if c, body := ts.verifyC2PA(in, "broken.jpg"); c == nil || c.ValidationState != "invalid" || !slices.Contains(c.ValidationCodes, "claim.malformed") {
		t.Fatalf("verify of a broken store: c2pa = %+v\n%s", c, body)
	}
	r := ts.upload("/api/v1/sign?signing_key_id="+s.keyID, s.apiKey, []namedFile{{"file", "broken.jpg", in}}, nil)
	if r.status != 422 || r.problemCode(t) != "c2pa_unreadable" {
		t.Fatalf("sign of a broken store: %d %s, want 422 c2pa_unreadable", r.status, r.body)
	}
	out, _, _ := ts.signC2PA(s, "broken.jpg", in, map[string]string{"c2pa": "false"})
	if st, _ := c2pa.Extract(out); st != nil {
		t.Fatal("c2pa=false output carries a store")
	}
}
