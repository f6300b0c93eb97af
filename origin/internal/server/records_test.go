package server

import (
	"bytes"
	"encoding/json"
	"image"
	"mime/multipart"
	"strings"
	"testing"

	"golang.org/x/image/draw"

	"github.com/provenant/provenant/origin/internal/testkit"
)

type namedFile struct {
	field, name string
	data        []byte
}

// upload sends a multipart/form-data POST.
func (ts *testServer) upload(path, token string, files []namedFile, fields map[string]string) response {
	ts.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		if err := mw.WriteField(k, v); err != nil {
			ts.t.Fatal(err)
		}
	}
	for _, f := range files {
		w, err := mw.CreateFormFile(f.field, f.name)
		if err != nil {
			ts.t.Fatal(err)
		}
		if _, err := w.Write(f.data); err != nil {
			ts.t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		ts.t.Fatal(err)
	}
	return ts.doRaw("POST", path, token, body.String(), mw.FormDataContentType())
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	return testkit.ReadFile(t, "testdata/"+name)
}

// signer is an account with a signing key and an API key.
type signer struct {
	account
	keyID  string
	pubHex string
	apiKey string
}

func (ts *testServer) newSigner(email string) signer {
	ts.t.Helper()
	a := ts.register(email, "correct horse battery staple")
	r := ts.do("POST", "/api/v1/keys/signing-keys", a.token, map[string]string{
		"name": "Newsroom camera", "origin_type": "camera_image", "device_id": "cam-7",
	})
	ts.mustStatus(r, 201, "create signing key")
	m := r.json(ts.t)
	key, _ := ts.createAPIKey(a.token, map[string]any{"name": "ci"})
	return signer{account: a, keyID: m["id"].(string), pubHex: m["public_key_hex"].(string), apiKey: key}
}

type verifyResp struct {
	Authentic  bool    `json:"authentic"`
	Confidence float64 `json:"confidence"`
	RecordID   string  `json:"record_id"`
	Timestamp  string  `json:"timestamp"`
	Origin     *struct {
		Category, Code, Label string
	} `json:"origin"`
	Signer *struct {
		OrgName   string `json:"org_name"`
		OrgType   string `json:"org_type"`
		DeviceID  string `json:"device_id"`
		PublicKey string `json:"public_key"`
		KeyName   string `json:"key_name"`
	} `json:"signer"`
	Checks map[string]struct {
		Passed  bool   `json:"passed"`
		Details string `json:"details"`
	} `json:"checks"`
}

func (ts *testServer) verify(data []byte) verifyResp {
	ts.t.Helper()
	v, body := verifyAs[verifyResp](ts, data)
	for _, c := range []string{"watermark", "sha256", "perceptual_hash", "blockchain"} {
		if ch, ok := v.Checks[c]; !ok || ch.Details == "" {
			ts.t.Errorf("verify: check %q missing or without details: %s", c, body)
		}
	}
	return v
}

// verifyAs verifies data, expects a 200 and decodes the answer as T (each
// test reads the members it is about); body is the answer as sent.
func verifyAs[T any](ts *testServer, data []byte) (v T, body []byte) {
	ts.t.Helper()
	r := ts.upload("/api/v1/verify", "", []namedFile{{"file", "x.jpg", data}}, nil)
	ts.mustStatus(r, 200, "verify")
	if err := json.Unmarshal(r.body, &v); err != nil {
		ts.t.Fatalf("verify body %s: %v", r.body, err)
	}
	return v, r.body
}

func reencode(t *testing.T, data []byte, scale float64, quality int) []byte {
	t.Helper()
	img := testkit.DecodeJPEG(t, data)
	b := img.Bounds()
	w, h := int(float64(b.Dx())*scale), int(float64(b.Dy())*scale)
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return testkit.EncodeJPEG(t, dst, quality)
}

func TestSignVerifyEndToEnd(t *testing.T) {
	ts := startServer(t, "", nil)
	s := ts.newSigner("photo@example.com")
	orig := readTestdata(t, "meadow.jpg")

	// Sign, JSON answer.
	r := ts.upload("/api/v1/sign?signing_key_id="+s.keyID, s.apiKey, []namedFile{{"file", "meadow.jpg", orig}}, nil)
	ts.mustStatus(r, 201, "sign (json)")
	var sr struct {
		RecordID, SHA256, PerceptualHash string
		WatermarkPayloadHex              string `json:"watermark_payload_hex"`
		SignatureHex                     string `json:"signature_hex"`
		BlockchainStatus                 string `json:"blockchain_status"`
		Certificate                      map[string]any
	}
	if err := json.Unmarshal(bytes.ReplaceAll(r.body, []byte(`"record_id"`), []byte(`"RecordID"`)), &sr); err != nil {
		t.Fatal(err)
	}
	if sr.BlockchainStatus != "pending" || len(sr.SHA256) != 64 || len(sr.WatermarkPayloadHex) != 16 || len(sr.SignatureHex) != 128 {
		t.Errorf("sign response = %s, want pending status, 64-hex sha256, 16-hex payload, 128-hex signature", r.body)
	}
	if sr.Certificate["signer_public_key"] != s.pubHex || sr.Certificate["org_name"] != "Example News" {
		t.Errorf("certificate = %v, want signer_public_key %s and org_name Example News", sr.Certificate, s.pubHex)
	}

	// Sign again with return_file=true: the body is the watermarked JPEG.
	r = ts.upload("/api/v1/sign?signing_key_id="+s.keyID, s.apiKey, []namedFile{{"file", "meadow.jpg", orig}}, map[string]string{"return_file": "true"})
	ts.mustStatus(r, 201, "sign (file)")
	marked := r.body
	if got, want := r.header.Get("X-Content-SHA256"), sha256Hex(marked); got != want {
		t.Errorf("X-Content-SHA256 = %q, want sha256 of the body %q", got, want)
	}
	if ct := r.header.Get("Content-Type"); ct != "image/jpeg" {
		t.Errorf("Content-Type = %q, want image/jpeg", ct)
	}
	id := r.header.Get("X-Record-Id")
	if id == "" || id == sr.RecordID {
		t.Fatalf("X-Record-Id = %q, want a new record id", id)
	}

	// The signer's unmarked original verifies by its original hash. It was
	// signed twice; either record may be the one named.
	v := ts.verify(orig)
	if !v.Authentic || !v.Checks["sha256"].Passed || !strings.Contains(v.Checks["sha256"].Details, "original") {
		t.Errorf("verify(original) = %+v, want authentic by original SHA-256", v)
	}

	// The returned file: authentic, exact match, watermark found.
	v = ts.verify(marked)
	if !v.Authentic || v.RecordID != id || v.Confidence < 0.98 {
		t.Errorf("verify(marked) authentic=%v record=%s confidence=%v, want true %s >= 0.98", v.Authentic, v.RecordID, v.Confidence, id)
	}
	for _, c := range []string{"sha256", "perceptual_hash"} {
		if !v.Checks[c].Passed {
			t.Errorf("verify(marked) check %s = %+v, want passed", c, v.Checks[c])
		}
	}
	// The exact-SHA-256 shortcut does not decode the file: the service
	// embedded the payload in these very bytes, so the check passes and
	// says so.
	if wc := v.Checks["watermark"]; !wc.Passed || !strings.Contains(wc.Details, "embedded by the service in this exact file (record "+id+")") {
		t.Errorf("verify(marked) watermark check = %+v, want passed, embedded by the service", wc)
	}
	if bc := v.Checks["blockchain"]; bc.Passed || !strings.HasPrefix(bc.Details, "pending") {
		t.Errorf("blockchain check = %+v, want pending", bc)
	}
	if v.Signer == nil || v.Signer.OrgName != "Example News" || v.Signer.KeyName != "Newsroom camera" || v.Signer.DeviceID != "cam-7" || v.Signer.PublicKey != s.pubHex {
		t.Errorf("signer = %+v, want the signing key's metadata", v.Signer)
	}
	if v.Origin == nil || v.Origin.Code != "camera_image" {
		t.Errorf("origin = %+v, want camera_image", v.Origin)
	}

	// Re-encoded at q60: watermark and perceptual hash carry it.
	v = ts.verify(reencode(t, marked, 1, 60))
	if !v.Authentic || v.RecordID != id || !v.Checks["watermark"].Passed || !v.Checks["perceptual_hash"].Passed || v.Checks["sha256"].Passed {
		t.Errorf("verify(q60) = %+v, want authentic by watermark + perceptual hash", v)
	}
	t.Logf("q60: %+v", v)
	// Resized to 75% and re-encoded at q60.
	v = ts.verify(reencode(t, marked, 0.75, 60))
	if !v.Authentic || v.RecordID != id || !v.Checks["watermark"].Passed || !v.Checks["perceptual_hash"].Passed {
		t.Errorf("verify(75%% q60) = %+v, want authentic by watermark + perceptual hash", v)
	}

	t.Logf("75%% q60: %+v", v)
	// An unrelated picture.
	v = ts.verify(readTestdata(t, "water.jpg"))
	if v.Authentic || v.Confidence != 0 || v.RecordID != "" {
		t.Errorf("verify(unrelated) = %+v, want not authentic, confidence 0, no record", v)
	}

	// Revoke, then the marked file is no longer authentic and says why.
	r = ts.do("DELETE", "/api/v1/content-records/"+id, s.apiKey, map[string]string{"reason": "published in error"})
	ts.mustStatus(r, 200, "revoke")
	v = ts.verify(marked)
	if v.Authentic || v.Confidence != 0 || !strings.Contains(v.Checks["sha256"].Details, "revoked") {
		t.Errorf("verify(revoked) = %+v, want not authentic and revoked in the details", v)
	}
	r = ts.do("DELETE", "/api/v1/content-records/"+id, s.apiKey, nil)
	ts.mustStatus(r, 409, "revoke twice")

	// Dashboard counters.
	r = ts.do("GET", "/api/v1/dashboard/stats", s.token, nil)
	ts.mustStatus(r, 200, "stats")
	var st struct {
		TotalSigned   int              `json:"total_signed"`
		TotalVerified int              `json:"total_verified"`
		Pending       int              `json:"pending_batch"`
		Anchored      int              `json:"blockchain_anchored"`
		Recent        []map[string]any `json:"recent_records"`
	}
	_ = json.Unmarshal(r.body, &st)
	if st.TotalSigned != 2 || st.TotalVerified != 5 || st.Pending != 2 || st.Anchored != 0 || len(st.Recent) != 2 {
		t.Errorf("stats = %s, want 2 signed, 5 verified (matched), 2 pending, 0 anchored, 2 recent", r.body)
	}
}
