package server

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/origintest/corpus"
	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/c2pa/c2patest"
)

func jpegOf(t testing.TB, img image.Image, q int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// unrelated is a textured picture that matches nothing.
func unrelated(t testing.TB, seed uint64, w, h int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := 128 + 50*float64((x*3+y*7)%61)/61 + r.NormFloat64()*12
			c := uint8(max(0, min(255, v)))
			img.Set(x, y, color.RGBA{c, uint8(int(c)*4/5 + 30), 255 - c, 255})
		}
	}
	return jpegOf(t, img, 85)
}

// clientN names a distinct client address per call, so that tests which
// are not about rate limits stay inside every per-IP quota.
var clientSeq atomic.Uint32

func nextClient() string {
	n := clientSeq.Add(1)
	return fmt.Sprintf("198.51.%d.%d", 100+n/250, 1+n%250)
}

// waitAnchored waits until the records are anchored on the origin's
// embedded chain, so that verification goes through the Merkle proofs.
func waitAnchored(t *testing.T, origin string, s signer, ids ...string) {
	deadline := time.Now().Add(90 * time.Second)
	for _, id := range ids {
		for {
			r := doJSON(t, "GET", origin+"/api/v1/content-records/"+id, s.APIKey, nil)
			mustStatus(t, r, 200, "record")
			if r.json(t)["blockchain_status"] == "anchored" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("record %s not anchored in time", id)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// TestVerifyEqualsOrigin: for signed, re-encoded, cropped, unrelated,
// unsigned-original and revoked files, POST /api/v1/verify through the
// edge answers byte for byte what the origin's own verify answers, with
// the wasm engine and with the native one.
func TestVerifyEqualsOrigin(t *testing.T) {
	origin, _ := startOrigin(t, "--trusted-proxies", "127.0.0.1/32", "--batch-size", "2")
	edges := map[string]string{}
	for _, eng := range []string{"wasm", "native"} {
		edges[eng], _ = startEdge(t, origin, edgeOpts{engine: eng})
	}
	s := newSigner(t, origin, "desk@edge.example")
	orig := testImage(t, "meadow.jpg")
	signedA, idA := s.sign(t, origin, orig)
	signedB, idB := s.sign(t, origin, testImage(t, "water.jpg"))
	waitAnchored(t, origin, s, idA, idB)
	r := doJSON(t, "DELETE", origin+"/api/v1/content-records/"+idB, s.APIKey, map[string]string{"reason": "published in error"})
	mustStatus(t, r, 200, "revoke")

	// Key revocation, decided from the lookup candidate's key state: a
	// service key retired right after signing (the record stays valid by
	// the service's time of signing), and a key revoked with
	// compromised_since before its record's anchoring (not authentic).
	retired := newSigner(t, origin, "retired@edge.example")
	signedD, idD := retired.sign(t, origin, unrelated(t, 21, 640, 480))
	mustStatus(t, doJSON(t, "DELETE", origin+"/api/v1/keys/signing-keys/"+retired.KeyID, retired.Token, nil), 200, "retire key")
	stolen := newSigner(t, origin, "stolen@edge.example")
	since := time.Now().UTC().Add(-time.Second).Format(time.RFC3339Nano)
	signedC, idC := stolen.sign(t, origin, unrelated(t, 22, 640, 480))
	waitAnchored(t, origin, stolen, idC)
	waitAnchored(t, origin, retired, idD)
	mustStatus(t, doJSON(t, "DELETE", origin+"/api/v1/keys/signing-keys/"+stolen.KeyID, stolen.Token,
		map[string]string{"reason": "laptop stolen", "compromised_since": since}), 200, "revoke key")

	// A picture with another signer's C2PA manifest: reported, not trusted.
	camera, _, _, err := c2pa.Embed(unrelated(t, 9, 640, 480), c2pa.Manifest{ClaimGenerator: "Camera/1.0", Format: "image/jpeg",
		Actions: []c2pa.Action{{Action: "c2pa.created", DigitalSourceType: "http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture"}}},
		c2patest.NewSigner(t, c2patest.CertOptions{Org: "Third Party Camera"}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name      string
		file      []byte
		authentic bool
		// c2pa is the c2pa member's trusted value, "" when the file
		// carries no manifest.
		c2pa string
	}{
		{"signed", signedA, true, "true"},
		{"third-party manifest", camera, false, "false"},
		{"re-encoded", corpus.Reencode(signedA, 0.7, 80), true, ""},
		{"cropped", corpus.Transform(signedA, 90, corpus.Crop(0.08)), true, ""},
		{"unsigned original", orig, true, ""},
		{"unrelated", unrelated(t, 7, 640, 480), false, ""},
		{"revoked", signedB, false, "true"},
		{"key compromised before anchoring", signedC, false, "true"},
		{"key retired after signing", signedD, true, "true"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want, answers := verifyEverywhere(t, origin, edges, tt.file)
			for eng, got := range answers {
				if !strings.HasPrefix(got.header.Get("X-Verified-By"), "edge "+eng) {
					t.Fatalf("%s: X-Verified-By %q: the edge did not verify it itself", eng, got.header.Get("X-Verified-By"))
				}
				for _, h := range []string{"Access-Control-Allow-Origin", "Access-Control-Expose-Headers", "Cache-Control", "Content-Type"} {
					if got.header.Get(h) != want.header.Get(h) {
						t.Errorf("%s: %s %q, the origin sends %q", eng, h, got.header.Get(h), want.header.Get(h))
					}
				}
				if got.header.Get("X-Request-Id") == "" {
					t.Errorf("%s: no X-Request-Id", eng)
				}
			}
			if a, _ := want.json(t)["authentic"].(bool); a != tt.authentic {
				t.Errorf("authentic = %v, want %v: %.300s", a, tt.authentic, want.body)
			}
			c, _ := want.json(t)["c2pa"].(map[string]any)
			if got := fmt.Sprint(c["trusted"]); (tt.c2pa == "" && c != nil) || (tt.c2pa != "" && got != tt.c2pa) {
				t.Errorf("c2pa member %v, want trusted %q", c, tt.c2pa)
			}
		})
	}

	// The edge counts the verification at the origin (the lookup's report).
	stats := func() float64 {
		r := doJSON(t, "GET", origin+"/api/v1/dashboard/stats", s.Token, nil)
		mustStatus(t, r, 200, "stats")
		n, _ := r.json(t)["total_verified"].(float64)
		return n
	}
	before := stats()
	mustStatus(t, upload(t, edges["wasm"]+"/api/v1/verify", nextClient(), "", signedA, nil), 200, "edge verify")
	if after := stats(); after != before+1 {
		t.Errorf("total_verified %v -> %v after a verify at the edge, want +1", before, after)
	}

	// A file the core refuses goes to the origin, whose problem is the answer.
	r = upload(t, edges["wasm"]+"/api/v1/verify", nextClient(), "", []byte("%PDF-1.7 not a picture"), nil)
	if r.status != 415 && r.status != 422 && r.status != 400 {
		t.Fatalf("a PDF: status %d, want the origin's refusal; %s", r.status, r.body)
	}
	if r.header.Get("X-Request-Id") == "" || r.header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("a PDF: headers %v, want the origin's problem", r.header)
	}
}

// TestVerifyRateLimit: the 61st verify from one client IP within a minute
// is refused at the edge (429, Retry-After, RateLimit headers) while
// another client IP is still served.
func TestVerifyRateLimit(t *testing.T) {
	origin, _ := startOrigin(t, "--trusted-proxies", "127.0.0.1/32", "--limit-verify", "1000")
	edge, _ := startEdge(t, origin, edgeOpts{engine: "native"})
	send := func(client string) response { return plainVerify(t, edge, client) }
	for i := 1; i <= 60; i++ {
		if r := send("203.0.113.7"); r.status == 429 {
			t.Fatalf("request %d refused: %s", i, r.body)
		}
	}
	r := send("203.0.113.7")
	mustStatus(t, r, 429, "61st verify")
	if m := r.json(t); m["code"] != "rate_limited" || r.header.Get("Retry-After") == "" ||
		!strings.Contains(r.header.Get("RateLimit-Policy"), `"verify";q=60;w=60`) || !strings.Contains(r.header.Get("RateLimit"), "r=0") {
		t.Errorf("61st verify: headers %v body %s", r.header, r.body)
	}
	if r := send("203.0.113.8"); r.status == 429 {
		t.Errorf("another client refused: %s", r.body)
	}
}

// TestOriginSeesClients: with the edge trusted by the origin, two clients
// behind one edge have separate buckets at the origin.
func TestOriginSeesClients(t *testing.T) {
	origin, _ := startOrigin(t, "--trusted-proxies", "127.0.0.1/32", "--limit-verify", "3")
	edge, _ := startEdge(t, origin, edgeOpts{engine: "native"})
	send := func(client string) response { return plainVerify(t, edge, client) }
	for i := 0; i < 3; i++ {
		mustStatus(t, send("203.0.113.7"), 415, "forwarded verify")
	}
	r := send("203.0.113.7")
	mustStatus(t, r, 429, "4th forwarded verify of one client at the origin")
	if r.header.Get("X-Request-Id") == "" {
		t.Errorf("429 without the origin's request id: the edge refused it, not the origin")
	}
	mustStatus(t, send("203.0.113.8"), 415, "another client behind the same edge")
}

// TestOutOfMemory: a file that needs more memory than one instance may
// use fails that request with a 503 problem, and the next request is
// verified on a fresh instance.
func TestOutOfMemory(t *testing.T) {
	origin, _ := startOrigin(t, "--trusted-proxies", "127.0.0.1/32")
	edge, _ := startEdge(t, origin, edgeOpts{memoryBytes: 24 << 20, instances: 1})
	// A PNG: a JPEG's luminance is decoded at reduced size for
	// verification, so only a PNG this size still needs the memory.
	img := image.NewRGBA(image.Rect(0, 0, 4000, 3000))
	for y := 0; y < 3000; y++ {
		for x := 0; x < 4000; x++ {
			img.Set(x, y, color.RGBA{uint8(x / 16), uint8(y / 12), 128, 255})
		}
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	r := upload(t, edge+"/api/v1/verify", nextClient(), "", buf.Bytes(), nil)
	mustStatus(t, r, 503, "12 MP in a 24 MiB instance")
	if m := r.json(t); m["code"] != "verifier_failed" || !strings.Contains(m["detail"].(string), "memory") {
		t.Errorf("problem %s, want verifier_failed about memory", r.body)
	}
	r = upload(t, edge+"/api/v1/verify", nextClient(), "", unrelated(t, 4, 320, 240), nil)
	mustStatus(t, r, 200, "the next verify")
}

// TestHotSwapUnderLoad: the verifier module is swapped several times
// while verifications run; every request is answered 200.
func TestHotSwapUnderLoad(t *testing.T) {
	origin, _ := startOrigin(t, "--trusted-proxies", "127.0.0.1/32")
	edge, srv := startEdge(t, origin, edgeOpts{instances: 2})
	file := unrelated(t, 5, 480, 360)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var ok, failed atomic.Int64
	var firstErr atomic.Value
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				r := upload(t, edge+"/api/v1/verify", nextClient(), "", file, nil)
				if r.status == 200 {
					ok.Add(1)
				} else {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, fmt.Sprintf("%d %s", r.status, r.body))
				}
			}
		}()
	}
	names := map[string]bool{}
	for i := 0; i < 3; i++ {
		time.Sleep(300 * time.Millisecond)
		name, err := srv.Reload(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		names[name] = true
	}
	time.Sleep(300 * time.Millisecond)
	close(stop)
	wg.Wait()
	if failed.Load() != 0 {
		t.Fatalf("%d of %d requests failed during swaps; first: %v", failed.Load(), ok.Load()+failed.Load(), firstErr.Load())
	}
	if ok.Load() < 3 {
		t.Fatalf("only %d requests ran during the swaps", ok.Load())
	}
	t.Logf("%d verifications across 3 swaps", ok.Load())
}

// TestOriginDown: with the origin stopped, a proxied request and a verify
// are answered 503 problem+json quickly, never left hanging.
func TestOriginDown(t *testing.T) {
	origin, stop := startOrigin(t)
	edge, _ := startEdge(t, origin, edgeOpts{engine: "native"})
	mustStatus(t, do(t, "GET", edge+"/health", nil, nil), 200, "health through the edge")
	stop()
	for _, tt := range []struct {
		name string
		r    func() response
	}{
		{"proxied", func() response { return do(t, "GET", edge+"/api/v1/auth/me", nil, nil) }},
		{"verify", func() response {
			return upload(t, edge+"/api/v1/verify", nextClient(), "", unrelated(t, 9, 320, 240), nil)
		}},
	} {
		r := tt.r()
		mustStatus(t, r, 503, tt.name+" with the origin down")
		if r.header.Get("Content-Type") != "application/problem+json" || r.json(t)["code"] != "origin_unavailable" || r.header.Get("Retry-After") == "" {
			t.Errorf("%s: %v %s", tt.name, r.header, r.body)
		}
	}
}

// plainVerify posts a one-byte text body to the edge's verify route from
// client (an X-Forwarded-For entry): a body the edge hands to the origin
// (it is not multipart), cheap, and counted against the client's quota
// before the body is looked at.
func plainVerify(t testing.TB, edge, client string) response {
	t.Helper()
	return do(t, "POST", edge+"/api/v1/verify", map[string]string{"Content-Type": "text/plain", "X-Forwarded-For": client}, strings.NewReader("x"))
}

// verifyEverywhere verifies file at the origin and at each edge (by
// engine) and fails t unless every answer is 200 with the origin's body,
// byte for byte. It returns the origin's answer and the edges'.
func verifyEverywhere(t *testing.T, origin string, edges map[string]string, file []byte) (response, map[string]response) {
	t.Helper()
	want := upload(t, origin+"/api/v1/verify", nextClient(), "", file, nil)
	mustStatus(t, want, 200, "origin verify")
	got := make(map[string]response, len(edges))
	for eng, edge := range edges {
		r := upload(t, edge+"/api/v1/verify", nextClient(), "", file, nil)
		mustStatus(t, r, 200, eng+" edge verify")
		if !bytes.Equal(r.body, want.body) {
			t.Errorf("%s edge answer\n%s\norigin answer\n%s", eng, r.body, want.body)
		}
		got[eng] = r
	}
	return want, got
}
