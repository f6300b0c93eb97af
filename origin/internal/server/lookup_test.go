package server

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/provenant/provenant/origin/origintest/corpus"
	"github.com/provenant/provenant/shared/wire"
	"github.com/provenant/provenant/wasm/wasmtest"
)

// verifierModule builds the WebAssembly verifier from this checkout once
// per test binary (go build caches the compile).
var verifierModule = sync.OnceValues(wasmtest.BuildFromCheckout)

// c2paModule builds the C2PA module the same way.
var c2paModule = sync.OnceValues(wasmtest.BuildC2PAFromCheckout)

// modulesFS is the build directory `make wasm` writes: both modules.
func modulesFS(t testing.TB) fstest.MapFS {
	t.Helper()
	m, err := verifierModule()
	if err != nil {
		t.Fatal(err)
	}
	c, err := c2paModule()
	if err != nil {
		t.Fatal(err)
	}
	return fstest.MapFS{"verifier.wasm": {Data: m}, "c2pa.wasm": {Data: c}}
}

func wasmVerifier(t *testing.T) *wasmtest.Module {
	t.Helper()
	b, err := verifierModule()
	if err != nil {
		t.Fatal(err)
	}
	m, err := wasmtest.Load(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(context.Background()) })
	return m
}

// browserVerify is what the widget does with a file: analyze in the
// module, POST the facts to the lookup, decide in the module. It returns
// the verify response and the decide summary.
func (ts *testServer) browserVerify(m *wasmtest.Module, file []byte, report bool) (wire.VerifyResponse, string) {
	v, match, _ := ts.browserVerifyC2PA(m, file, report)
	return v, match
}

// browserVerifyC2PA is browserVerify, saying also whether the C2PA
// module was loaded. As in the worker, a file that may carry a manifest
// is looked up with c2pa_manifest first: the origin answers the c2pa
// member of its own signed output, and only another file's manifest is
// read by the C2PA module (then looked up again when it names a record).
// A counted verification (report) reads the manifest first.
func (ts *testServer) browserVerifyC2PA(m *wasmtest.Module, file []byte, report bool) (wire.VerifyResponse, string, bool) {
	t := ts.t
	t.Helper()
	ctx := context.Background()
	out, err := m.Call(ctx, "analyze", file)
	if err != nil {
		t.Fatal(err)
	}
	var an struct {
		OK       bool        `json:"ok"`
		Facts    wire.Facts  `json:"facts"`
		Local    *wire.Probe `json:"local"`
		Manifest bool        `json:"c2pa_manifest"`
	}
	if err := json.Unmarshal(out, &an); err != nil || !an.OK {
		t.Fatalf("analyze: %s (%v)", out, err)
	}
	// The C2PA module, loaded only for a file that may carry a manifest.
	var c2pa *wasmtest.Module
	loadC2PA := func() (*wasmtest.Module, error) {
		if c2pa == nil {
			b, err := c2paModule()
			if err != nil {
				return nil, err
			}
			if c2pa, err = wasmtest.Load(ctx, b); err != nil {
				return nil, err
			}
			t.Cleanup(func() { c2pa.Close(context.Background()) })
		}
		return c2pa, nil
	}
	if err := wasmtest.AddC2PA(ctx, an.Manifest && report, loadC2PA, file, &an.Facts); err != nil {
		t.Fatal(err)
	}
	unread := an.Manifest && !report
	lookup := func(extra map[string]any) wire.LookupResponse {
		req := map[string]any{"sha256": an.Facts.SHA256, "perceptual_hash": an.Facts.PerceptualHash,
			"watermark": an.Facts.Watermark, "format": an.Facts.Format, "width": an.Facts.Width, "height": an.Facts.Height}
		for k, v := range extra {
			req[k] = v
		}
		if an.Facts.C2PA != nil {
			// The widget posts analyze's facts unchanged, the manifest's
			// summary included.
			req["c2pa"] = an.Facts.C2PA
		}
		r := ts.do("POST", "/api/v1/verify/lookup", "", req)
		ts.mustStatus(r, 200, "lookup")
		var lr wire.LookupResponse
		if err := json.Unmarshal(r.body, &lr); err != nil {
			t.Fatal(err)
		}
		return lr
	}
	var dec struct {
		OK       bool                `json:"ok"`
		Result   wire.VerifyResponse `json:"result"`
		Match    string              `json:"match"`
		Rejected []json.RawMessage   `json:"rejected"`
	}
	decide := func(lr wire.LookupResponse) {
		in, err := json.Marshal(map[string]any{"facts": an.Facts, "lookup": lr, "local": an.Local})
		if err != nil {
			t.Fatal(err)
		}
		out, err := m.Call(ctx, "decide", in)
		if err != nil {
			t.Fatal(err)
		}
		dec.Result = wire.VerifyResponse{}
		if err := json.Unmarshal(out, &dec); err != nil || !dec.OK {
			t.Fatalf("decide: %s (%v)", out, err)
		}
		if len(dec.Rejected) != 0 {
			t.Errorf("decide rejected candidates of an honest origin: %s", out)
		}
	}
	extra := map[string]any{}
	switch {
	case report:
		extra["report"] = true
	case unread:
		extra["c2pa_manifest"] = true
	}
	lr := lookup(extra)
	decide(lr)
	if unread && dec.Result.C2PA == nil {
		if err := wasmtest.AddC2PA(ctx, true, loadC2PA, file, &an.Facts); err != nil {
			t.Fatal(err)
		}
		if c := an.Facts.C2PA; c != nil && c.ValidationState == "valid" && c.RecordID != "" {
			lr = lookup(nil)
			decide(lr)
		}
	}
	if err := wasmtest.SetC2PAMember(ctx, loadC2PA, an.Facts, lr.C2PACA, &dec.Result); err != nil {
		t.Fatal(err)
	}
	return dec.Result, dec.Match, c2pa != nil
}

func (ts *testServer) verifyWire(file []byte) wire.VerifyResponse {
	ts.t.Helper()
	r := ts.upload("/api/v1/verify", "", []namedFile{{"file", "x.jpg", file}}, nil)
	ts.mustStatus(r, 200, "verify")
	var v wire.VerifyResponse
	if err := json.Unmarshal(r.body, &v); err != nil {
		ts.t.Fatalf("verify body %s: %v", r.body, err)
	}
	return v
}

// TestBrowserVerdictEqualsOrigin: for signed, re-encoded, cropped,
// unrelated, unsigned-original, revoked and third-party C2PA files, the
// verdict the WebAssembly module computes from its own facts and the
// lookup answer is the origin's POST /api/v1/verify response, member for
// member, the c2pa member included; the C2PA module is loaded only for
// the manifest of a file that is not the service's own signed output.
func TestBrowserVerdictEqualsOrigin(t *testing.T) {
	ts := startServer(t, "", nil, batchesOf(2))
	m := wasmVerifier(t)
	s := ts.newSignerOrg("desk@lookup.example", "Lookup News")
	orig := readTestdata(t, "meadow.jpg")
	r := ts.signFile(s, orig, nil)
	ts.mustStatus(r, 201, "sign meadow")
	signedA, idA := r.body, r.header.Get("X-Record-Id")
	r = ts.signFile(s, readTestdata(t, "water.jpg"), nil)
	ts.mustStatus(r, 201, "sign water")
	signedB, idB := r.body, r.header.Get("X-Record-Id")
	// The two records close a batch: wait until both are anchored so that
	// the proofs go through the module's Merkle check.
	ts.waitAnchored(s, idA, idB)
	r = ts.do("DELETE", "/api/v1/content-records/"+idB, s.apiKey, map[string]string{"reason": "published in error"})
	ts.mustStatus(r, 200, "revoke")
	camera := cameraManifest(t, photo(t, 8, 640, 480))

	for _, tt := range []struct {
		name      string
		file      []byte
		match     string
		authentic bool
		recordID  string
		// resembles is the record a not-authentic answer names as found.
		resembles string
		// c2pa: the file carries a manifest; c2paModule: the C2PA module
		// must read it (it is not the service's own signed output).
		c2pa, c2paModule bool
	}{
		{"signed file", signedA, "exact", true, idA, "", true, false},
		{"re-encoded and resized", reencode(t, signedA, 0.7, 80), "reencoded", true, idA, "", false, false},
		{"cropped", transform(t, signedA, 90, corpus.Crop(0.08)), "crop", true, idA, "", false, false}, // the local signatures show it is part of the signed picture
		{"unsigned original", orig, "exact", true, idA, "", false, false},
		{"unrelated", photo(t, 7, 640, 480), "none", false, "", "", false, false},
		{"revoked", signedB, "exact", false, "", idB, true, false},
		{"third-party C2PA", camera, "none", false, "", "", true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := ts.verifyWire(tt.file)
			got, match, loaded := ts.browserVerifyC2PA(m, tt.file, false)
			if (got.C2PA != nil) != tt.c2pa || loaded != tt.c2paModule {
				t.Errorf("c2pa member %+v, C2PA module loaded %v; want a member %v, loaded %v", got.C2PA, loaded, tt.c2pa, tt.c2paModule)
			}
			if !reflect.DeepEqual(got, want) {
				gj, _ := json.MarshalIndent(got, "", " ")
				wj, _ := json.MarshalIndent(want, "", " ")
				t.Fatalf("module verdict\n%s\norigin verdict\n%s", gj, wj)
			}
			t.Logf("match %s, authentic %v, record %s", match, got.Authentic, got.RecordID)
			if got.Authentic != tt.authentic || (tt.match != "" && match != tt.match) || (tt.recordID != "" && got.RecordID != tt.recordID) {
				t.Errorf("authentic %v, match %s, record %s; want %v, %s, %s", got.Authentic, match, got.RecordID, tt.authentic, tt.match, tt.recordID)
			}
			if tt.resembles != "" && (got.Resembles == nil || got.Resembles.RecordID != tt.resembles) {
				t.Errorf("resembles %+v, want record %s", got.Resembles, tt.resembles)
			}
		})
	}
}

// TestLookupEndpoint: the lookup's contract over HTTP: strict JSON with
// field-level problems, candidates carrying checkable evidence, its own
// rate-limit bucket, and report=true counting like verify.
func TestLookupEndpoint(t *testing.T) {
	ts := startServer(t, "", nil)
	s := ts.newSignerOrg("desk@facts.example", "Facts Daily")
	signed, id := ts.signTestdata(s, "meadow.jpg", "sign")
	m := wasmVerifier(t)
	out, err := m.Call(context.Background(), "analyze", signed)
	if err != nil {
		t.Fatal(err)
	}
	var an struct {
		Facts wire.Facts `json:"facts"`
	}
	if err := json.Unmarshal(out, &an); err != nil {
		t.Fatal(err)
	}
	good := map[string]any{"sha256": an.Facts.SHA256, "perceptual_hash": an.Facts.PerceptualHash, "watermark": an.Facts.Watermark}

	r := ts.do("POST", "/api/v1/verify/lookup", "", good)
	ts.mustStatus(r, 200, "lookup")
	if p := r.header.Get("RateLimit-Policy"); p == "" || !strings.Contains(p, "120") {
		t.Errorf("RateLimit-Policy = %q, want the lookup's own 120/min bucket", p)
	}
	var lr wire.LookupResponse
	if err := json.Unmarshal(r.body, &lr); err != nil {
		t.Fatal(err)
	}
	if len(lr.Candidates) != 1 {
		t.Fatalf("candidates = %s, want the signed record", r.body)
	}
	c := lr.Candidates[0]
	if c.RecordID != id || c.Record == "" || len(c.SignatureHex) != 128 || c.SignerPublicKey != s.pubHex || c.Source != "sign" ||
		c.Status != wire.RecordActive || c.AnchorState == "" || c.Signer.OrgName != "Facts Daily" || c.Origin.Code != "camera_image" || c.CreatedAt == "" {
		t.Errorf("candidate = %+v, want record %s with its bytes, signature, key %s, display fields and state", c, id, s.pubHex)
	}

	for _, tt := range []struct {
		name        string
		contentType string
		body        string
		status      int
		code        string
		field       string
	}{
		{"short sha256", "application/json", `{"sha256":"abcd","perceptual_hash":"` + an.Facts.PerceptualHash + `"}`, 400, "validation_failed", "sha256"},
		{"bad perceptual hash", "application/json", `{"sha256":"` + an.Facts.SHA256 + `","perceptual_hash":"zz"}`, 400, "validation_failed", "perceptual_hash"},
		{"payload without found", "application/json", `{"sha256":"` + an.Facts.SHA256 + `","perceptual_hash":"` + an.Facts.PerceptualHash + `","watermark":{"found":false,"payload":"00"}}`, 400, "validation_failed", "watermark"},
		{"unknown member", "application/json", `{"sha256":"` + an.Facts.SHA256 + `","perceptual_hash":"` + an.Facts.PerceptualHash + `","file":"x"}`, 400, "unknown_field", ""},
		{"not JSON", "text/plain", `{}`, 415, "unsupported_media_type", ""},
		{"too large", "application/json", `{"sha256":"` + strings.Repeat("a", 40000) + `"}`, 413, "body_too_large", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := ts.doRaw("POST", "/api/v1/verify/lookup", "", tt.body, tt.contentType)
			if r.status != tt.status {
				t.Fatalf("status = %d, want %d (%s)", r.status, tt.status, r.body)
			}
			if code := r.problemCode(t); code != tt.code {
				t.Errorf("code = %q, want %q", code, tt.code)
			}
			if f, _ := r.json(t)["field"].(string); tt.field != "" && f != tt.field {
				t.Errorf("field = %q, want %q", f, tt.field)
			}
		})
	}

	verified := func() float64 {
		r := ts.do("GET", "/api/v1/dashboard/stats", s.token, nil)
		ts.mustStatus(r, 200, "stats")
		n, _ := r.json(t)["total_verified"].(float64)
		return n
	}
	before := verified()
	ts.do("POST", "/api/v1/verify/lookup", "", good)
	if got := verified(); got != before {
		t.Errorf("total_verified %v -> %v after a lookup without report, want unchanged", before, got)
	}
	good["report"] = true
	ts.mustStatus(ts.do("POST", "/api/v1/verify/lookup", "", good), 200, "lookup report")
	if got := verified(); got != before+1 {
		t.Errorf("total_verified %v -> %v after a lookup with report, want +1", before, got)
	}
}
