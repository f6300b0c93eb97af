package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/ratelimit"
	"github.com/provenant/provenant/origin/internal/httpapi"
	"github.com/provenant/provenant/origin/internal/testkit"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
)

func readBomb(t *testing.T, name string) []byte {
	t.Helper()
	return testkit.ReadFile(t, "../../../shared/testdata/bombs/"+name)
}

// photo returns a small photo-like JPEG (smooth gradients plus noise), a
// different picture for every seed.
func photo(t testing.TB, seed uint64, w, h int) []byte {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	fx, fy := 1+r.Float64()*6, 1+r.Float64()*6
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := 128 + 60*sinApprox(float64(x)/float64(w)*fx+float64(y)/float64(h)*fy) + r.NormFloat64()*12
			img.Set(x, y, color.RGBA{clampU8(v), clampU8(v*0.8 + 30), clampU8(255 - v), 255})
		}
	}
	return testkit.EncodeJPEG(t, img, 85)
}

func sinApprox(x float64) float64 {
	x -= float64(int(x))
	return 4*x*(1-x)*2 - 1
}

func clampU8(v float64) uint8 { return uint8(min(max(v, 0), 255)) }

// localRecord builds the canonical bytes of a record as an SDK would and
// has them signed with s's key through the in-process key service (the
// server API never exports private keys).
func (ts *testServer) localRecord(s signer, id string, sum [32]byte, payload []byte) (map[string]any, record.Signed) {
	ts.t.Helper()
	rid, err := record.ParseID(id)
	if err != nil {
		ts.t.Fatal(err)
	}
	pub, _ := hex.DecodeString(s.pubHex)
	// Distinct sums are distinct pictures: the 256-bit hash spreads over
	// every bit (register refuses hashes near another account's record).
	ph := phash.Hash{P64: uint64(sum[0])<<56 | uint64(sum[1])<<48, P256: [4]uint64{binary.BigEndian.Uint64(sum[8:]),
		binary.BigEndian.Uint64(sum[16:]), binary.BigEndian.Uint64(sum[24:]), uint64(sum[2])}}
	ts0 := ts.clock.Now().UTC().Truncate(time.Millisecond)
	rec := &record.Record{ID: rid, SHA256: sum, PerceptualHash: ph, SignerPublicKey: pub, Timestamp: ts0,
		OriginType: "camera_image", Org: "Example News", WatermarkPayload: payload}
	canon, err := rec.Encode()
	if err != nil {
		ts.t.Fatal(err)
	}
	sig, _, err := ts.srv.keys.Sign(context.Background(), s.id, s.keyID, canon)
	if err != nil {
		ts.t.Fatal(err)
	}
	body := map[string]any{
		"record_id": id, "sha256": hex.EncodeToString(sum[:]), "perceptual_hash": ph.String(),
		"signature_hex": hex.EncodeToString(sig), "signer_public_key": s.pubHex,
		"timestamp": ts0.Format(time.RFC3339Nano), "origin_type": "camera_image",
	}
	if payload != nil {
		body["watermark_payload_hex"] = hex.EncodeToString(payload)
	}
	return body, record.Signed{Bytes: canon, Signature: sig}
}

func uuidN(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }

func TestRegisterByHash(t *testing.T) {
	ts := startServer(t, "", nil)
	s := ts.newSigner("sdk@example.com")
	other := ts.newSigner("other@example.com")
	file := []byte("pre-signed file bytes")
	sum := sha256.Sum256(file)
	body, signed := ts.localRecord(s, uuidN(1), sum, []byte{1, 2, 3, 4, 5, 6, 7, 8})

	forged := map[string]any{}
	for k, v := range body {
		forged[k] = v
	}
	sig, _ := hex.DecodeString(body["signature_hex"].(string))
	sig[10] ^= 0x01 // a well-formed signature, one bit off
	forged["signature_hex"] = hex.EncodeToString(sig)
	tampered := map[string]any{}
	for k, v := range body {
		tampered[k] = v
	}
	tampered["origin_type"] = "ai_generated_image" // signature covers the origin type

	tests := []struct {
		name  string
		token string
		body  map[string]any
		want  int
		code  string
	}{
		{"forged signature", s.apiKey, forged, 422, "invalid_signature"},
		{"field changed after signing", s.apiKey, tampered, 422, "invalid_signature"},
		{"another account's key", other.apiKey, body, 404, "not_found"},
		{"valid", s.apiKey, body, 201, ""},
		{"duplicate", s.apiKey, body, 409, "duplicate_record"},
	}
	for _, tt := range tests {
		r := ts.do("POST", "/api/v1/register", tt.token, tt.body)
		if r.status != tt.want {
			t.Errorf("%s: status %d, want %d; body %s", tt.name, r.status, tt.want, r.body)
			continue
		}
		if tt.code != "" {
			if got := r.problemCode(t); got != tt.code {
				t.Errorf("%s: code %q, want %q", tt.name, got, tt.code)
			}
		}
	}
	// The registered record round-trips: the stored canonical bytes and
	// signature are exactly what the SDK made, and the file verifies... by
	// hash only (it is not an image), so look it up in the registry.
	r := ts.do("GET", "/api/v1/content-records/"+uuidN(1), s.apiKey, nil)
	ts.mustStatus(r, 200, "get registered")
	m := r.json(t)
	if m["canonical_record"] == nil || m["signature_hex"] != hex.EncodeToString(signed.Signature) || m["source"] != "register" {
		t.Errorf("registered record = %s, want the SDK's signature and source register", r.body)
	}
	cert := ts.do("GET", "/api/v1/content-records/"+uuidN(1)+"/certificate", "", nil)
	ts.mustStatus(cert, 200, "certificate")
	var c struct {
		Record       string `json:"record"`
		SignatureHex string `json:"signature_hex"`
	}
	_ = json.Unmarshal(cert.body, &c)
	if c.SignatureHex != hex.EncodeToString(signed.Signature) {
		t.Errorf("certificate signature = %s, want the registered one", c.SignatureHex)
	}
}

func TestSignBatchWithCorruptFile(t *testing.T) {
	ts := startServer(t, "", nil)
	s := ts.newSigner("batch@example.com")
	files := []namedFile{
		{"files", "a.jpg", photo(t, 1, 384, 288)},
		{"files", "broken.jpg", readBomb(t, "jpeg-truncated.jpg")},
		{"files", "b.jpg", photo(t, 2, 384, 288)},
	}
	r := ts.upload("/api/v1/sign-batch?signing_key_id="+s.keyID, s.apiKey, files, nil)
	ts.mustStatus(r, 200, "sign-batch")
	var br struct {
		Succeeded, Failed int
		Items             []struct {
			Index  int
			Status int
			Result *struct {
				RecordID string `json:"record_id"`
			}
			Error *struct{ Code string }
		}
	}
	if err := json.Unmarshal(r.body, &br); err != nil {
		t.Fatal(err)
	}
	if br.Succeeded != 2 || br.Failed != 1 || len(br.Items) != 3 {
		t.Fatalf("batch = %s, want 2 succeeded and 1 failed", r.body)
	}
	wantStatus := []int{201, 422, 201}
	for i, it := range br.Items {
		if it.Status != wantStatus[i] {
			t.Errorf("item %d status %d, want %d", i, it.Status, wantStatus[i])
		}
	}
	if br.Items[1].Error == nil || br.Items[1].Error.Code != "corrupt_image" {
		t.Errorf("item 1 error = %+v, want corrupt_image", br.Items[1].Error)
	}
	if br.Items[0].Result == nil || br.Items[2].Result == nil {
		t.Fatalf("items 0 and 2 lack results: %s", r.body)
	}
	// JWT is not accepted for sign-batch (spec: API key only).
	r = ts.upload("/api/v1/sign-batch?signing_key_id="+s.keyID, s.token, files[:1], nil)
	if r.status != 401 {
		t.Errorf("sign-batch with JWT: status %d, want 401", r.status)
	}
	// Too many files.
	many := make([]namedFile, httpapi.MaxBatchItems+1)
	for i := range many {
		many[i] = namedFile{"files", "x.jpg", []byte("x")}
	}
	r = ts.upload("/api/v1/sign-batch?signing_key_id="+s.keyID, s.apiKey, many, nil)
	if r.status != 400 || r.problemCode(t) != "too_many_files" {
		t.Errorf("batch of %d: status %d body %s, want 400 too_many_files", len(many), r.status, r.body)
	}
}

func TestListPaginationWhileInserting(t *testing.T) {
	ts := startServer(t, "", nil)
	s := ts.newSigner("pages@example.com")
	n := 0
	add := func() string {
		n++
		sum := sha256.Sum256([]byte(fmt.Sprint("file", n)))
		body, _ := ts.localRecord(s, uuidN(n), sum, nil)
		ts.clock.Advance(time.Millisecond)
		ts.mustStatus(ts.do("POST", "/api/v1/register", s.apiKey, body), 201, "register")
		return uuidN(n)
	}
	initial := map[string]bool{}
	for range 23 {
		initial[add()] = true
	}
	seen := map[string]int{}
	// A new record arrives between pages.
	for _, id := range ts.pagedIDs("/api/v1/content-records", s.apiKey, 5, func() { add() }) {
		seen[id]++
	}
	for id := range initial {
		if seen[id] != 1 {
			t.Errorf("record %s seen %d times, want exactly once", id, seen[id])
		}
	}
	for id, c := range seen {
		if c != 1 {
			t.Errorf("record %s seen %d times", id, c)
		}
	}
	// Filters: sha256, origin_type, date range.
	sum := sha256.Sum256([]byte("file3"))
	r := ts.do("GET", "/api/v1/content-records?sha256="+hex.EncodeToString(sum[:]), s.apiKey, nil)
	ts.mustStatus(r, 200, "filter sha256")
	if got := strings.Count(string(r.body), `"record_id"`); got != 1 || !strings.Contains(string(r.body), uuidN(3)) {
		t.Errorf("sha256 filter = %s, want only %s", r.body, uuidN(3))
	}
	r = ts.do("GET", "/api/v1/content-records?origin_type=ai_generated_image", s.apiKey, nil)
	if got := strings.Count(string(r.body), `"record_id"`); got != 0 {
		t.Errorf("origin_type filter matched %d records, want 0", got)
	}
	from := t0.Add(5 * time.Millisecond).Format(time.RFC3339Nano)
	to := t0.Add(8 * time.Millisecond).Format(time.RFC3339Nano)
	r = ts.do("GET", "/api/v1/content-records?from="+from+"&to="+to, s.apiKey, nil)
	if got := strings.Count(string(r.body), `"record_id"`); got != 3 {
		t.Errorf("date range [5ms, 8ms) matched %d records, want 3: %s", got, r.body)
	}
	r = ts.do("GET", "/api/v1/content-records?blockchain_status=bogus", s.apiKey, nil)
	if r.status != 400 {
		t.Errorf("bad blockchain_status: status %d, want 400", r.status)
	}
}

func TestSignRateLimit(t *testing.T) {
	ts := startServer(t, "", nil)
	s := ts.newSigner("busy@example.com")
	other := ts.newSigner("calm@example.com")
	// Requests without a signing_key_id are refused by the handler (400)
	// after the limiter counted them, which keeps this test fast.
	for i := 0; i < 100; i++ {
		r := ts.upload("/api/v1/sign", s.apiKey, nil, nil)
		if r.status != 400 {
			t.Fatalf("request %d: status %d, want 400; body %s", i+1, r.status, r.body)
		}
	}
	r := ts.upload("/api/v1/sign", s.apiKey, nil, nil)
	if r.status != 429 || r.problemCode(t) != "rate_limited" {
		t.Fatalf("101st sign: status %d body %s, want 429 rate_limited", r.status, r.body)
	}
	if r.header.Get("Retry-After") == "" || !strings.Contains(r.header.Get("RateLimit-Policy"), `"sign";q=100;w=60`) || r.header.Get("RateLimit") == "" {
		t.Errorf("429 headers = %v, want Retry-After, RateLimit-Policy sign q=100 w=60, RateLimit", r.header)
	}
	if r := ts.upload("/api/v1/sign", other.apiKey, nil, nil); r.status != 400 {
		t.Errorf("another key: status %d, want 400 (own quota)", r.status)
	}
	ts.clock.Advance(time.Minute)
	if r := ts.upload("/api/v1/sign", s.apiKey, nil, nil); r.status != 400 {
		t.Errorf("after a minute: status %d, want 400 (quota refilled)", r.status)
	}
}

func TestUploadErrors(t *testing.T) {
	lim := limits.Default()
	lim.MaxUploadBytes = 200 << 10
	ts := startServer(t, "", nil, func(c *Config, _ *deps) {
		c.ImageLimits = lim
		c.MaxRequestBodySize = 1 << 20
		c.Limits = httpapi.Limits{Verify: ratelimit.Policy{Name: "verify", Quota: 1000, Window: time.Minute}}
	})
	s := ts.newSigner("errors@example.com")
	big := bytes.Repeat([]byte{0xFF}, 300<<10)
	tests := []struct {
		name        string
		files       []namedFile
		fields      map[string]string
		contentType string // raw body instead of multipart when set
		raw         string
		want        int
		code        string
	}{
		{name: "zero-byte file", files: []namedFile{{"file", "a.jpg", nil}}, want: 400, code: "empty_file"},
		{name: "non-image", files: []namedFile{{"file", "a.png", readBomb(t, "html-named.png")}}, want: 415, code: "unsupported_image_format"},
		{name: "truncated jpeg", files: []namedFile{{"file", "a.jpg", readBomb(t, "jpeg-truncated.jpg")}}, want: 422, code: "corrupt_image"},
		{name: "too many pixels", files: []namedFile{{"file", "a.png", readBomb(t, "png-100000x100000.png")}}, want: 422, code: "too_many_pixels"},
		{name: "file over the upload cap", files: []namedFile{{"file", "a.jpg", big}}, want: 413, code: "body_too_large"},
		{name: "body over the server cap", files: []namedFile{{"file", "a.jpg", bytes.Repeat([]byte{1}, 2<<20)}}, want: 413, code: "body_too_large"},
		{name: "missing file", fields: map[string]string{}, want: 400, code: "validation_failed"},
		{name: "unknown field", files: []namedFile{{"file", "a.jpg", []byte{1}}}, fields: map[string]string{"colour": "red"}, want: 400, code: "unknown_field"},
		{name: "two files", files: []namedFile{{"file", "a.jpg", []byte{1}}, {"file", "b.jpg", []byte{1}}}, want: 400, code: "too_many_files"},
		{name: "not multipart", contentType: "application/json", raw: `{}`, want: 415, code: "unsupported_media_type"},
		{name: "malformed multipart", contentType: "multipart/form-data; boundary=xyz", raw: "--xyz\r\nnonsense", want: 400, code: "malformed_multipart"},
	}
	for _, tt := range tests {
		for _, path := range []string{"/api/v1/verify", "/api/v1/sign?signing_key_id=" + s.keyID} {
			var r response
			if tt.contentType != "" {
				r = ts.doRaw("POST", path, s.apiKey, tt.raw, tt.contentType)
			} else {
				r = ts.upload(path, s.apiKey, tt.files, tt.fields)
			}
			if r.status != tt.want {
				t.Errorf("%s %s: status %d, want %d; body %s", tt.name, path, r.status, tt.want, r.body)
				continue
			}
			if got := r.problemCode(t); got != tt.code {
				t.Errorf("%s %s: code %q, want %q", tt.name, path, got, tt.code)
			}
		}
	}
	// A JSON route keeps its own 64 KiB cap while bodies are streamed.
	r := ts.do("POST", "/api/v1/auth/login", "", `{"email":"`+strings.Repeat("a", 100<<10)+`"}`)
	if r.status != 413 {
		t.Errorf("large JSON body: status %d, want 413", r.status)
	}
	// And still works.
	r = ts.do("POST", "/api/v1/auth/login", "", map[string]string{"email": "errors@example.com", "password": "correct horse battery staple"})
	ts.mustStatus(r, 200, "login after uploads")
}

func TestOwnerChecks(t *testing.T) {
	ts := startServer(t, "", nil)
	a := ts.newSigner("alice@example.com")
	b := ts.newSigner("bob@example.com")
	img := photo(t, 7, 384, 288)
	r := ts.upload("/api/v1/sign?signing_key_id="+a.keyID, a.apiKey, []namedFile{{"file", "a.jpg", img}}, nil)
	ts.mustStatus(r, 201, "alice signs")
	id := r.json(t)["record_id"].(string)

	tests := []struct {
		name string
		do   func() response
		want int
	}{
		{"bob signs with alice's key", func() response {
			return ts.upload("/api/v1/sign?signing_key_id="+a.keyID, b.apiKey, []namedFile{{"file", "a.jpg", img}}, nil)
		}, 404},
		{"bob batch-signs with alice's key", func() response {
			return ts.upload("/api/v1/sign-batch?signing_key_id="+a.keyID, b.apiKey, []namedFile{{"files", "a.jpg", img}}, nil)
		}, 404},
		{"bob reads alice's record", func() response { return ts.do("GET", "/api/v1/content-records/"+id, b.apiKey, nil) }, 404},
		{"bob revokes alice's record", func() response { return ts.do("DELETE", "/api/v1/content-records/"+id, b.apiKey, nil) }, 404},
		{"alice reads her record", func() response { return ts.do("GET", "/api/v1/content-records/"+id, a.apiKey, nil) }, 200},
	}
	for _, tt := range tests {
		if r := tt.do(); r.status != tt.want {
			t.Errorf("%s: status %d, want %d; body %s", tt.name, r.status, tt.want, r.body)
		}
	}
	r = ts.do("GET", "/api/v1/content-records", b.apiKey, nil)
	ts.mustStatus(r, 200, "bob lists")
	if strings.Contains(string(r.body), id) {
		t.Errorf("bob's list contains alice's record: %s", r.body)
	}
	r = ts.do("GET", "/api/v1/dashboard/stats", b.token, nil)
	if !strings.Contains(string(r.body), `"total_signed":0`) {
		t.Errorf("bob's stats = %s, want total_signed 0", r.body)
	}
	// A read-only key cannot sign or revoke.
	ro, _ := ts.createAPIKey(a.token, map[string]any{"name": "ro", "scopes": []string{"read"}})
	if r := ts.upload("/api/v1/sign?signing_key_id="+a.keyID, ro, []namedFile{{"file", "a.jpg", img}}, nil); r.status != 403 {
		t.Errorf("sign with read-only key: status %d, want 403", r.status)
	}
	if r := ts.do("DELETE", "/api/v1/content-records/"+id, ro, nil); r.status != 403 {
		t.Errorf("revoke with read-only key: status %d, want 403", r.status)
	}
}

func TestPublicRegistryAndCertificate(t *testing.T) {
	ts := startServer(t, "", nil)
	s := ts.newSigner("registry@example.com")
	evil := ts.register("evil@example.com", "correct horse battery staple")
	_ = evil
	r := ts.upload("/api/v1/sign?signing_key_id="+s.keyID, s.apiKey, []namedFile{{"file", "secret-name.jpg", photo(t, 9, 384, 288)}}, nil)
	ts.mustStatus(r, 201, "sign")
	sr := r.json(t)
	id, sha := sr["record_id"].(string), sr["sha256"].(string)

	for _, q := range []string{"sha256=" + sha, "org_name=example%20news", "origin_type=camera_image", "from=2026-03-04&to=2026-03-04", ""} {
		r := ts.do("GET", "/api/v1/content-records/public/search?"+q, "", nil)
		ts.mustStatus(r, 200, "public search "+q)
		if !strings.Contains(string(r.body), id) {
			t.Errorf("public search %q = %s, want record %s", q, r.body, id)
		}
		for _, private := range []string{"owner", "signing_key_id", "original_sha256", "secret-name", s.id, "original_filename"} {
			if strings.Contains(string(r.body), private) {
				t.Errorf("public search %q leaks %q: %s", q, private, r.body)
			}
		}
	}
	r = ts.do("GET", "/api/v1/content-records/public/search?org_name=nobody", "", nil)
	if strings.Contains(string(r.body), id) {
		t.Errorf("org_name=nobody matched the record")
	}
	// The router sends /public/search to the search, not to /{id}: with no
	// credentials /{id} would be 401.
	r = ts.do("GET", "/api/v1/content-records/public/search", "", nil)
	ts.mustStatus(r, 200, "public search routing")
	r = ts.do("GET", "/api/v1/content-records/"+id, "", nil)
	ts.mustStatus(r, 401, "record detail without credentials")

	// Certificate JSON verifies offline.
	r = ts.do("GET", "/api/v1/content-records/"+id+"/certificate", "", nil)
	ts.mustStatus(r, 200, "certificate json")
	var c struct {
		Record       string `json:"record"`
		SignatureHex string `json:"signature_hex"`
		SHA256       string `json:"sha256"`
	}
	_ = json.Unmarshal(r.body, &c)
	if c.SHA256 != sha || c.Record == "" {
		t.Errorf("certificate = %s, want sha256 %s and the canonical record", r.body, sha)
	}
	if r := ts.do("GET", "/api/v1/content-records/"+uuidN(42)+"/certificate", "", nil); r.status != 404 {
		t.Errorf("unknown certificate: status %d, want 404", r.status)
	}
}

func TestCertificateHTMLEscapes(t *testing.T) {
	ts := startServer(t, "", nil)
	const evilOrg = `<script>alert("x")</script>`
	r := ts.do("POST", "/api/v1/auth/register", "", map[string]string{
		"email": "evil@example.com", "password": "correct horse battery staple", "org_name": evilOrg, "org_type": "individual",
	})
	ts.mustStatus(r, 201, "register")
	tok := r.json(t)["access_token"].(string)
	r = ts.do("POST", "/api/v1/keys/signing-keys", tok, map[string]string{"name": `<img src=x onerror=alert(1)>`, "origin_type": "camera_image"})
	ts.mustStatus(r, 201, "signing key")
	keyID := r.json(t)["id"].(string)
	r = ts.upload("/api/v1/sign?signing_key_id="+keyID, tok, []namedFile{{"file", "a.jpg", photo(t, 3, 384, 288)}}, nil)
	ts.mustStatus(r, 201, "sign with JWT")
	id := r.json(t)["record_id"].(string)

	req := func(accept string) response {
		t.Helper()
		rq, _ := newRequest("GET", ts.base+"/api/v1/content-records/"+id+"/certificate", accept)
		return rq
	}
	h := req("text/html,application/xhtml+xml;q=0.9,*/*;q=0.8")
	if ct := h.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("Content-Type = %q, want text/html", ct)
	}
	body := string(h.body)
	if strings.Contains(body, "<script>") || strings.Contains(body, "<img src=x") {
		t.Errorf("HTML certificate contains unescaped markup: %s", body)
	}
	if !strings.Contains(body, "&lt;script&gt;") {
		t.Errorf("HTML certificate lacks the escaped org name: %s", body)
	}
	if j := req("application/json"); !strings.HasPrefix(j.header.Get("Content-Type"), "application/json") {
		t.Errorf("Accept: application/json got %q", j.header.Get("Content-Type"))
	}
}

func newRequest(method, url, accept string) (response, error) {
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		return response{}, err
	}
	req.Header.Set("Accept", accept)
	return exchange(req)
}
