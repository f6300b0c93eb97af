package abi

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/limits"
)

// sameAsEncodingJSON fails unless out, decoded into a new T and encoded
// again by encoding/json, is out byte for byte: the module's answers are
// what encoding/json would have written (wasm/internal/wirejson).
func sameAsEncodingJSON[T any](t *testing.T, name string, out []byte) {
	t.Helper()
	var v T
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("%s: %v in %s", name, err, out)
	}
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, want) {
		t.Fatalf("%s:\n got %s\nwant %s", name, out, want)
	}
}

// TestAnswersAreEncodingJSONs: every export's answer, over the test
// pictures and a sample of the bench photos (all formats, watermarked and
// not) and the decide seeds, is byte-identical to encoding/json's.
func TestAnswersAreEncodingJSONs(t *testing.T) {
	lim := limits.Default()
	at := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	files, _ := filepath.Glob("../../../shared/testdata/images/*")
	bench, _ := filepath.Glob("../../../bench/images/*.png")
	if len(bench) > 6 {
		bench = bench[:6]
	}
	jpegs, _ := filepath.Glob("../../../bench/images/*.jpg")
	if len(jpegs) > 6 {
		jpegs = jpegs[:6]
	}
	if testing.Short() {
		bench, jpegs = nil, nil
	}
	files = append(append(files, bench...), jpegs...)
	if len(files) < 5 {
		t.Fatalf("found %d test pictures", len(files))
	}
	type failure struct {
		OK    bool `json:"ok"`
		Error struct {
			Code   string `json:"code"`
			Detail string `json:"detail"`
		} `json:"error"`
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out := Analyze(b, lim, at)
		if bytes.HasPrefix(out, []byte(`{"ok":false`)) {
			sameAsEncodingJSON[failure](t, p, out)
			continue
		}
		sameAsEncodingJSON[analyzeOut](t, p, out)
		sameAsEncodingJSON[inspectOut](t, p, Inspect(b, lim))
		sameAsEncodingJSON[sha256Out](t, p, SHA256(b))
		var a analyzeOut
		json.Unmarshal(out, &a)
		in, _ := json.Marshal(decideIn{Facts: a.Facts, Local: a.Local})
		d := Decide(in, lim)
		sameAsEncodingJSON[DecideOut](t, p, d)
		sameAsEncodingJSON[presentOut](t, p, Present(d))
	}
	seed := seedInput(t)
	d := Decide(seed, lim)
	sameAsEncodingJSON[DecideOut](t, "seed", d)
	if !bytes.Contains(d, []byte(`"authentic":true`)) {
		t.Fatalf("seed decide: %s", d)
	}
	sameAsEncodingJSON[presentOut](t, "seed", Present(d))
	var in decideIn
	json.Unmarshal(seed, &in)
	c := in.Lookup.Candidates[0]
	sig, _ := json.Marshal(signatureIn{Record: c.Record, SignatureHex: c.SignatureHex})
	sameAsEncodingJSON[signatureOut](t, "signature", VerifySignature(sig))
	bad, _ := json.Marshal(signatureIn{Record: c.Record, SignatureHex: hex.EncodeToString(make([]byte, 64))})
	sameAsEncodingJSON[signatureOut](t, "bad signature", VerifySignature(bad))
	proof, _ := json.Marshal(proofIn{Record: c.Record, SignatureHex: c.SignatureHex, Anchor: *c.Anchor})
	sameAsEncodingJSON[proofOut](t, "proof", VerifyProof(proof, lim))
	sameAsEncodingJSON[failure](t, "unknown field", Decide([]byte(`{"facts":{},"lookup":{},"x":"<&>"}`), lim))
}
