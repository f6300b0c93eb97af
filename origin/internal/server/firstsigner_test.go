package server

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"image"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/testkit"
	"github.com/provenant/provenant/origin/origintest/corpus"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
)

// newSignerOrg is newSigner for an account of organisation org.
func (ts *testServer) newSignerOrg(email, org string) signer {
	ts.t.Helper()
	r := ts.do("POST", "/api/v1/auth/register", "", map[string]string{
		"email": email, "password": "correct horse battery staple", "org_name": org, "org_type": "news_org",
	})
	ts.mustStatus(r, 201, "register "+email)
	m := r.json(ts.t)
	user, _ := m["user"].(map[string]any)
	a := account{email: email, password: "correct horse battery staple"}
	a.token, _ = m["access_token"].(string)
	a.id, _ = user["id"].(string)
	r = ts.do("POST", "/api/v1/keys/signing-keys", a.token, map[string]string{"name": org + " desk", "origin_type": "camera_image"})
	ts.mustStatus(r, 201, "create signing key")
	k := r.json(ts.t)
	key, _ := ts.createAPIKey(a.token, map[string]any{"name": "ci"})
	return signer{account: a, keyID: k["id"].(string), pubHex: k["public_key_hex"].(string), apiKey: key}
}

// signFile signs data as s (fields: extra form fields) and returns the
// response, whose body is the watermarked file on success.
func (ts *testServer) signFile(s signer, data []byte, fields map[string]string) response {
	ts.t.Helper()
	f := map[string]string{"return_file": "true"}
	for k, v := range fields {
		f[k] = v
	}
	return ts.upload("/api/v1/sign?signing_key_id="+s.keyID, s.apiKey, []namedFile{{"file", "photo.jpg", data}}, f)
}

// signTestdata has s sign the testdata picture name and returns the signed
// file and its record id, failing the test (saying what) unless the
// origin answers 201.
func (ts *testServer) signTestdata(s signer, name, what string) ([]byte, string) {
	ts.t.Helper()
	return ts.signed(s, readTestdata(ts.t, name), what)
}

// signed has s sign data and returns the signed file and its record id,
// failing the test (saying what) unless the origin answers 201.
func (ts *testServer) signed(s signer, data []byte, what string) ([]byte, string) {
	ts.t.Helper()
	r := ts.signFile(s, data, nil)
	ts.mustStatus(r, 201, what)
	return r.body, r.header.Get("X-Record-Id")
}

// signPhotos has s sign n synthetic photos (seeds seed, seed+1, ...) and
// returns the signed files and their record ids, in order.
func (ts *testServer) signPhotos(s signer, n int, seed uint64) (files [][]byte, ids []string) {
	ts.t.Helper()
	for i := range n {
		f, id := ts.signed(s, photo(ts.t, seed+uint64(i), 640, 480), "sign photo")
		files, ids = append(files, f), append(ids, id)
	}
	return files, ids
}

// subscribe creates a webhook of s's account to url for events.
func (ts *testServer) subscribe(s signer, url string, events ...string) {
	ts.t.Helper()
	r := ts.do("POST", "/api/v1/webhooks", s.apiKey, map[string]any{"url": url, "events": events})
	ts.mustStatus(r, 201, "create webhook")
}

type signProblem struct {
	Code           string `json:"code"`
	Detail         string `json:"detail"`
	Field          string `json:"field"`
	RecordID       string `json:"record_id"`
	CertificateURL string `json:"certificate_url"`
}

func (r response) signProblem(t *testing.T) signProblem {
	t.Helper()
	var p signProblem
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatalf("problem body %s: %v", r.body, err)
	}
	return p
}

// transform decodes a JPEG, applies f to an RGBA copy and re-encodes it at
// quality q.
func transform(t *testing.T, data []byte, q int, f func(src image.Image) image.Image) []byte {
	t.Helper()
	return testkit.EncodeJPEG(t, f(testkit.DecodeJPEG(t, data)), q)
}

// unmarkedCopy is a copy of the picture with no watermark left in it: the
// same photo re-rendered from the unmarked source (resized, re-encoded),
// as a copier who removed the mark would circulate it. Only its perceptual
// hash ties it to the signed record.
func unmarkedCopy(t *testing.T) []byte {
	return reencode(t, readTestdata(t, "meadow.jpg"), 0.8, 85)
}

// TestWhoSignedFirstAtSign: an upload that is already signed content is
// linked to its record (same account) or refused (another account) unless
// declared a derivative, whatever links it (watermark, hashes).
func TestWhoSignedFirstAtSign(t *testing.T) {
	ts, news, copycat := newsAndCopycat(t)

	r := ts.signFile(news, readTestdata(t, "meadow.jpg"), nil)
	ts.mustStatus(r, 201, "Original News signs photo.jpg")
	published, idA := r.body, r.header.Get("X-Record-Id")
	if p := r.header.Get("X-Parent-Record-Id"); p != "" {
		t.Errorf("first signature: X-Parent-Record-Id = %q, want none", p)
	}
	shared := reencode(t, published, 0.9, 80)

	// Copycat re-signs the shared copy without declaring it: refused.
	r = ts.signFile(copycat, shared, nil)
	ts.mustStatus(r, 409, "Copycat signs the shared copy")
	if p := r.signProblem(t); p.Code != "already_signed" || p.RecordID != idA ||
		p.CertificateURL != "/api/v1/content-records/"+idA+"/certificate" {
		t.Errorf("409 problem = %+v, want already_signed naming record %s and its certificate", p, idA)
	}
	// Nor can it re-sign Original News's exact published bytes.
	r = ts.signFile(copycat, published, nil)
	ts.mustStatus(r, 409, "Copycat signs the published file")

	// Declaring a record the upload is not linked to: 422.
	r = ts.signFile(news, readTestdata(t, "water.jpg"), nil)
	ts.mustStatus(r, 201, "Original News signs another picture")
	idOther := r.header.Get("X-Record-Id")
	r = ts.signFile(copycat, shared, map[string]string{"derivative_of": idOther})
	ts.mustStatus(r, 422, "Copycat declares the wrong parent")
	if p := r.signProblem(t); p.Code != "derivative_mismatch" || p.Field != "derivative_of" {
		t.Errorf("422 problem = %+v, want derivative_mismatch on derivative_of", p)
	}
	r = ts.upload("/api/v1/sign?signing_key_id="+copycat.keyID+"&derivative_of=not-a-uuid", copycat.apiKey,
		[]namedFile{{"file", "photo.jpg", shared}}, nil)
	ts.mustStatus(r, 400, "derivative_of not a UUID")
	if p := r.signProblem(t); p.Code != "validation_failed" || p.Field != "derivative_of" {
		t.Errorf("400 problem = %+v, want validation_failed on derivative_of", p)
	}

	// Declared (here as a query parameter): signed, linked to the parent.
	r = ts.upload("/api/v1/sign?signing_key_id="+copycat.keyID+"&derivative_of="+idA, copycat.apiKey,
		[]namedFile{{"file", "photo.jpg", shared}}, nil)
	ts.mustStatus(r, 201, "Copycat signs the shared copy as a derivative")
	var sr struct {
		RecordID       string   `json:"record_id"`
		ParentRecordID string   `json:"parent_record_id"`
		ParentEvidence []string `json:"parent_evidence"`
	}
	if err := json.Unmarshal(r.body, &sr); err != nil {
		t.Fatal(err)
	}
	if sr.ParentRecordID != idA || len(sr.ParentEvidence) == 0 || sr.ParentEvidence[0] != "watermark" {
		t.Errorf("derivative sign response = %s, want parent_record_id %s linked first by watermark", r.body, idA)
	}

	// The same account re-signing its own crop: a derivative, no refusal.
	r = ts.signFile(news, transform(t, published, 90, corpus.Crop(0.04)), nil)
	ts.mustStatus(r, 201, "Original News signs its own crop")
	if p := r.header.Get("X-Parent-Record-Id"); p != idA {
		t.Errorf("own crop: X-Parent-Record-Id = %q, want %s", p, idA)
	}

	// A copy stripped of its watermark is still linked by its perceptual
	// hash, and the refusal says so.
	stripped := unmarkedCopy(t)
	r = ts.signFile(copycat, stripped, nil)
	ts.mustStatus(r, 409, "Copycat signs a stripped copy")
	if p := r.signProblem(t); p.Code != "already_signed" || p.RecordID != idA ||
		!strings.Contains(p.Detail, "perceptual_hash") || strings.Contains(p.Detail, "watermark") {
		t.Errorf("stripped copy: problem = %+v, want already_signed naming %s by perceptual_hash only", p, idA)
	}
}

type chainResp struct {
	verifyResp
	OriginalRecordID string `json:"original_record_id"`
	Chain            []struct {
		RecordID       string   `json:"record_id"`
		OrgName        string   `json:"org_name"`
		Relation       string   `json:"relation"`
		Evidence       []string `json:"evidence"`
		ParentRecordID string   `json:"parent_record_id"`
		CreatedAt      string   `json:"created_at"`
	} `json:"chain"`
}

func (ts *testServer) verifyChain(data []byte) chainResp {
	ts.t.Helper()
	ts.verify(data) // the common assertions on the four checks
	v, _ := verifyAs[chainResp](ts, data)
	return v
}

// chainString renders a chain as "org:relation[evidence,…] → …".
func (v chainResp) chainString() string {
	var parts []string
	for _, l := range v.Chain {
		parts = append(parts, l.OrgName+":"+l.Relation+"["+strings.Join(l.Evidence, ",")+"]")
	}
	return strings.Join(parts, " → ")
}

// TestWhoSignedFirstAtVerify: the shared copy of Original News's photo
// verifies as Original News's even after Copycat Agency signed it (as a
// declared derivative or by registering its hash), and every answer names
// the original and lists the later claims with what linked them.
func TestWhoSignedFirstAtVerify(t *testing.T) {
	ts, news, copycat := newsAndCopycat(t)

	published, idA := ts.signTestdata(news, "meadow.jpg", "Original News signs photo.jpg")
	shared := reencode(t, published, 0.9, 80)

	ts.clock.Advance(time.Minute)
	r := ts.signFile(copycat, shared, map[string]string{"derivative_of": idA})
	ts.mustStatus(r, 201, "Copycat signs the shared copy as a derivative")
	copied, idB := r.body, r.header.Get("X-Record-Id")

	ts.clock.Advance(time.Minute)
	stripped := unmarkedCopy(t)
	r = ts.signFile(copycat, stripped, map[string]string{"derivative_of": idA})
	ts.mustStatus(r, 201, "Copycat signs a stripped copy as a derivative")
	strippedOut, idS := r.body, r.header.Get("X-Record-Id")

	tests := []struct {
		name          string
		file          []byte
		wantRecord    string
		wantOrg       string
		wantAuthentic bool
		wantChain     string
		wantSHADetail string // in the sha256 check's details
	}{
		{"shared copy (Copycat uploaded it as its original)", shared, idA, "Original News", true,
			"Original News:original[watermark,perceptual_hash] → Copycat Agency:derivative[original_sha256,perceptual_hash,parent_link] → Copycat Agency:derivative[perceptual_hash,parent_link]",
			"the file is the original upload of record " + idB},
		// The exact-SHA-256 shortcut does not decode the file, so the
		// watermark is not extracted and not listed as evidence.
		{"published file", published, idA, "Original News", true,
			"Original News:original[sha256,perceptual_hash] → Copycat Agency:derivative[perceptual_hash,parent_link] → Copycat Agency:derivative[perceptual_hash,parent_link]", ""},
		{"Copycat's declared derivative", copied, idB, "Copycat Agency", true,
			"Original News:original[perceptual_hash] → Copycat Agency:derivative[sha256,perceptual_hash,parent_link] → Copycat Agency:derivative[perceptual_hash,parent_link]", ""},
		// Evidence strength before time: the file is exactly what Copycat
		// uploaded for its declared derivative (the service's word, below
		// signed evidence), which is stronger than Original News's
		// perceptual hash; the chain still names Original News as the
		// original.
		{"stripped copy: Copycat's original upload answers, the chain names the original", stripped, idS, "Copycat Agency", true,
			"Original News:original[perceptual_hash] → Copycat Agency:derivative[perceptual_hash,parent_link] → Copycat Agency:derivative[original_sha256,perceptual_hash,parent_link]",
			"original (unwatermarked) file signed as record " + idS},
		{"Copycat's signed stripped copy", strippedOut, idS, "Copycat Agency", true,
			"Original News:original[perceptual_hash] → Copycat Agency:derivative[perceptual_hash,parent_link] → Copycat Agency:derivative[sha256,perceptual_hash,parent_link]", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := ts.verifyChain(tt.file)
			if v.RecordID != tt.wantRecord || v.Signer == nil || v.Signer.OrgName != tt.wantOrg || v.Authentic != tt.wantAuthentic {
				t.Errorf("verify: record %s signer %+v authentic %v, want %s %s %v", v.RecordID, v.Signer, v.Authentic, tt.wantRecord, tt.wantOrg, tt.wantAuthentic)
			}
			if v.OriginalRecordID != idA {
				t.Errorf("original_record_id = %q, want %s (Original News)", v.OriginalRecordID, idA)
			}
			if got := v.chainString(); got != tt.wantChain {
				t.Errorf("chain = %s\nwant    %s", got, tt.wantChain)
			}
			if !strings.Contains(v.Checks["sha256"].Details, tt.wantSHADetail) {
				t.Errorf("sha256 details = %q, want it to contain %q", v.Checks["sha256"].Details, tt.wantSHADetail)
			}
		})
	}

	// The derivative's certificate shows where it came from.
	r = ts.do("GET", "/api/v1/content-records/"+idB+"/certificate", "", nil)
	ts.mustStatus(r, 200, "certificate (json)")
	var cert struct {
		Record         string `json:"record"`
		ParentRecordID string `json:"parent_record_id"`
		Chain          []struct {
			RecordID string   `json:"record_id"`
			OrgName  string   `json:"org_name"`
			Relation string   `json:"relation"`
			Evidence []string `json:"evidence"`
		} `json:"chain"`
	}
	if err := json.Unmarshal(r.body, &cert); err != nil {
		t.Fatal(err)
	}
	if cert.ParentRecordID != idA || len(cert.Chain) != 2 ||
		cert.Chain[0].RecordID != idA || cert.Chain[0].OrgName != "Original News" || cert.Chain[0].Relation != "original" ||
		cert.Chain[1].RecordID != idB || cert.Chain[1].OrgName != "Copycat Agency" || cert.Chain[1].Relation != "derivative" ||
		len(cert.Chain[1].Evidence) == 0 || cert.Chain[1].Evidence[0] != "watermark" {
		t.Errorf("certificate of the derivative = %s, want parent %s and chain Original News (original) → Copycat Agency (derivative, by watermark)", r.body, idA)
	}
	// The parent link is inside what Copycat's signature covers (version 3:
	// every record signed now carries local signatures, and its parent).
	canon, err := base64.StdEncoding.DecodeString(cert.Record)
	if err != nil {
		t.Fatal(err)
	}
	if rec, err := record.Parse(canon); err != nil || rec.Parent == nil || rec.Parent.String() != idA || canon[4] != record.VersionColour {
		t.Errorf("signed record of the derivative: err %v, version %d, parent %v; want version %d with parent %s", err, canon[4], rec, record.VersionColour, idA)
	}
	h, err := newRequest("GET", ts.base+"/api/v1/content-records/"+idB+"/certificate", "text/html")
	if err != nil {
		t.Fatal(err)
	}
	html := h.body
	// The chain in the shared words, as the widget and the CLI say it.
	for _, want := range []string{"Original News, ", "(original)", "re-signed by Copycat Agency on ", "linked by watermark",
		"First signed by Original News on ", "; this copy signed as a derivative by Copycat Agency on "} {
		if !strings.Contains(string(html), want) {
			t.Errorf("certificate HTML lacks %q:\n%s", want, html)
		}
	}
	// The original's own certificate has no chain.
	r = ts.do("GET", "/api/v1/content-records/"+idA+"/certificate", "", nil)
	ts.mustStatus(r, 200, "certificate of the original")
	if strings.Contains(string(r.body), `"chain"`) || strings.Contains(string(r.body), `"parent_record_id"`) {
		t.Errorf("certificate of the original = %s, want no parent and no chain", r.body)
	}
}

// TestWhoSignedFirstRegisteredCopy: a hash registered later for the exact
// bytes of Original News's shared copy (register takes no picture, so no
// sign-time check applies) is an exact SHA-256 match, yet the watermark in
// the picture names Original News and the registration is listed as a
// re-signed copy.
func TestWhoSignedFirstRegisteredCopy(t *testing.T) {
	ts, news, copycat := newsAndCopycat(t)
	r := ts.signFile(news, readTestdata(t, "meadow.jpg"), nil)
	ts.mustStatus(r, 201, "Original News signs photo.jpg")
	idA := r.header.Get("X-Record-Id")
	shared := reencode(t, r.body, 0.9, 80)

	ts.clock.Advance(time.Minute)
	sum := sha256.Sum256(shared)
	rid, _ := record.ParseID(uuidN(7))
	pub, _ := hex.DecodeString(copycat.pubHex)
	ph := phash.Hash{P64: 1, P256: [4]uint64{1, 2, 3, 4}} // an SDK's hash of a different picture: only the SHA-256 ties it
	at := ts.clock.Now().UTC().Truncate(time.Millisecond)
	canon, err := (&record.Record{ID: rid, SHA256: sum, PerceptualHash: ph, SignerPublicKey: pub, Timestamp: at,
		OriginType: "camera_image", Org: "Copycat Agency"}).Encode()
	if err != nil {
		t.Fatal(err)
	}
	sig, _, err := ts.srv.keys.Sign(context.Background(), copycat.id, copycat.keyID, canon)
	if err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"record_id": uuidN(7), "sha256": hex.EncodeToString(sum[:]), "perceptual_hash": ph.String(),
		"signature_hex": hex.EncodeToString(sig), "signer_public_key": copycat.pubHex,
		"timestamp": at.Format(time.RFC3339Nano), "origin_type": "camera_image"}
	r = ts.do("POST", "/api/v1/register", copycat.apiKey, body)
	ts.mustStatus(r, 201, "Copycat registers the shared copy's hash")

	v := ts.verifyChain(shared)
	if v.RecordID != idA || v.Signer == nil || v.Signer.OrgName != "Original News" || !v.Authentic {
		t.Errorf("verify(shared) record %s signer %+v authentic %v, want %s Original News true", v.RecordID, v.Signer, v.Authentic, idA)
	}
	if sc := v.Checks["sha256"]; sc.Passed || !strings.Contains(sc.Details, "byte-identical to record "+uuidN(7)+" (resigned_copy") {
		t.Errorf("sha256 check = %+v, want not passed for Original News's record and the registered copy named in the details", sc)
	}
	want := "Original News:original[watermark,perceptual_hash] → Copycat Agency:resigned_copy[sha256]"
	if got := v.chainString(); got != want || v.OriginalRecordID != idA {
		t.Errorf("chain = %s (original %s)\nwant    %s (original %s)", got, v.OriginalRecordID, want, idA)
	}

	// A registered file that is not an image still verifies by its hash
	// (it cannot be decoded, so the registered record's facts are used).
	sdk := ts.newSigner("sdk@example.com")
	doc := []byte("a registered document, not an image")
	body, _ = ts.localRecord(sdk, uuidN(8), sha256.Sum256(doc), nil)
	r = ts.do("POST", "/api/v1/register", sdk.apiKey, body)
	ts.mustStatus(r, 201, "register a document")
	if v := ts.verify(doc); v.RecordID != uuidN(8) || !v.Authentic || !v.Checks["sha256"].Passed {
		t.Errorf("verify(registered document) = %+v, want authentic exact match with %s", v, uuidN(8))
	}
}

// TestWhoSignedFirstInBatch: sign-batch applies the sign-time rule to each
// item, and an item declared with derivative_of[i] is linked to its parent.
func TestWhoSignedFirstInBatch(t *testing.T) {
	ts, news, copycat := newsAndCopycat(t)
	r := ts.signFile(news, readTestdata(t, "meadow.jpg"), nil)
	ts.mustStatus(r, 201, "Original News signs meadow.jpg")
	shared, idA := reencode(t, r.body, 0.9, 80), r.header.Get("X-Record-Id")

	batch := "/api/v1/sign-batch?signing_key_id=" + copycat.keyID
	files := []namedFile{{"files", "undeclared.jpg", shared}, {"files", "declared.jpg", shared}}
	r = ts.upload(batch, copycat.apiKey, files, map[string]string{"derivative_of[1]": idA})
	ts.mustStatus(r, 200, "sign-batch with one declared item")
	var br struct {
		Items []struct {
			Status int
			Result *struct {
				ParentRecordID string `json:"parent_record_id"`
			}
			Error *struct {
				Code     string
				RecordID string `json:"record_id"`
			}
		}
	}
	if err := json.Unmarshal(r.body, &br); err != nil || len(br.Items) != 2 {
		t.Fatalf("batch answer %s (%v), want 2 items", r.body, err)
	}
	if it := br.Items[0]; it.Status != 409 || it.Error == nil || it.Error.Code != "already_signed" || it.Error.RecordID != idA {
		t.Errorf("undeclared item = %s, want 409 already_signed naming %s", r.body, idA)
	}
	if it := br.Items[1]; it.Status != 201 || it.Result == nil || it.Result.ParentRecordID != idA {
		t.Errorf("declared item = %s, want 201 with parent_record_id %s", r.body, idA)
	}

	for _, tc := range []struct{ name, field, value string }{
		{"index past the files", "derivative_of[2]", idA},
		{"not a record id", "derivative_of[0]", "not-a-uuid"},
	} {
		r = ts.upload(batch, copycat.apiKey, files, map[string]string{tc.field: tc.value})
		ts.mustStatus(r, 400, tc.name)
		if p := r.signProblem(t); p.Field != tc.field {
			t.Errorf("%s: problem %+v, want field %s", tc.name, p, tc.field)
		}
	}
}

// newsAndCopycat starts an origin with two signing organisations:
// Original News, whose pictures come first, and Copycat Agency, which
// claims them later.
func newsAndCopycat(t *testing.T) (*testServer, signer, signer) {
	ts := startServer(t, "", nil)
	return ts, ts.newSignerOrg("desk@original.example", "Original News"), ts.newSignerOrg("desk@copycat.example", "Copycat Agency")
}
