package abi

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/merkle"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/present"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/wire"
)

// seedInput is a decide input with one signed, anchored candidate whose
// SHA-256 is the file's.
func seedInput(t testing.TB) []byte {
	t.Helper()
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{3}, 32))
	id, _ := record.ParseID("0190f3a1-7b2c-7d4e-8f00-123456789abc")
	ph := phash.Hash{P64: 0x1234, P256: [4]uint64{1, 2, 3, 4}}
	rec := &record.Record{ID: id, SHA256: [32]byte{0xaa}, PerceptualHash: ph, SignerPublicKey: priv.Public().(ed25519.PublicKey),
		Timestamp: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC), OriginType: "camera_image", Org: "Example",
		WatermarkPayload: []byte{1, 2, 3, 4, 5, 6, 7, 8}}
	sg, err := record.Sign(priv, rec)
	if err != nil {
		t.Fatal(err)
	}
	tree := merkle.Build([]merkle.Hash{sg.LeafHash(), merkle.LeafHash([]byte("b"))})
	path, _ := tree.InclusionProof(0)
	a := &wire.Anchor{LeafIndex: 0, TreeSize: 2, MerkleRoot: tree.Root().String(), TxHash: "0x01", BlockNumber: 3}
	for _, h := range path {
		a.AuditPath = append(a.AuditPath, h.String())
	}
	in := map[string]any{
		"facts": wire.Facts{SHA256: hex.EncodeToString(rec.SHA256[:]), PerceptualHash: ph.String(),
			Watermark: wire.WatermarkFacts{Found: true, Payload: "0102030405060708", Strength: 8}},
		"lookup": wire.LookupResponse{Candidates: []wire.LookupCandidate{{
			RecordID: id.String(), Record: base64.StdEncoding.EncodeToString(sg.Bytes), SignatureHex: hex.EncodeToString(sg.Signature),
			SignerPublicKey: hex.EncodeToString(rec.SignerPublicKey), Source: "sign", Status: wire.RecordActive,
			CreatedAt: "2026-11-22T12:00:00Z", Anchor: a, AnchorState: wire.AnchorVerified, RootConfirmed: true,
		}}},
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecideSeed(t *testing.T) {
	out := Decide(seedInput(t), limits.Default())
	var got struct {
		OK     bool                `json:"ok"`
		Result wire.VerifyResponse `json:"result"`
		Match  string              `json:"match"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if !got.OK || !got.Result.Authentic || got.Match != "exact" || !got.Result.Checks.Blockchain.Passed {
		t.Errorf("decide = %s, want an authentic exact anchored verdict", out)
	}
}

// FuzzDecide: any input gives one JSON document, ok or a bad_input
// error, the same on every call, and a verdict that passes every check
// is never given without a candidate.
func FuzzDecide(f *testing.F) {
	f.Add(seedInput(f))
	f.Add([]byte(`{"facts":{},"lookup":{"candidates":[]}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		lim := limits.Default()
		var res wire.VerifyResponse
		out, ok := resultDoc(t, func() []byte { return Decide(in, lim) }, "result", &res, codeBadInput)
		if ok && res.Authentic && res.RecordID == "" {
			t.Fatalf("authentic without a record: %s", out)
		}
	})
}

// resultDoc runs call twice and checks that it gives the same bytes, one
// JSON result document: {"ok":true,...} with the payload under key,
// which goes into payload, or {"ok":false,"error":{"code":...}} with one
// of the codes. It returns the output and its "ok".
func resultDoc(t *testing.T, call func() []byte, key string, payload any, codes ...string) ([]byte, bool) {
	t.Helper()
	out := call()
	var got struct {
		OK    *bool `json:"ok"`
		Error *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(out, &got); err != nil || got.OK == nil || json.Unmarshal(out, &fields) != nil {
		t.Fatalf("output %q is not a result document: %v", out, err)
	}
	if !*got.OK && (got.Error == nil || !slices.Contains(codes, got.Error.Code)) {
		t.Fatalf("failure %s, want one of %v", out, codes)
	}
	if again := call(); !bytes.Equal(again, out) {
		t.Fatalf("not deterministic:\n%s\n%s", out, again)
	}
	if *got.OK {
		if err := json.Unmarshal(fields[key], payload); err != nil {
			t.Fatalf("%s in %s: %v", key, out, err)
		}
	}
	return out, *got.OK
}

// FuzzPresent: any input gives one JSON document, ok or a bad_input
// error, the same on every call; a presentation keeps the wording rules
// for the verdict it was given.
func FuzzPresent(f *testing.F) {
	f.Add([]byte(`{"authentic":true,"match":"reencoded","checks":{"blockchain":{"passed":false,"details":"pending: record r is not anchored yet"}}}`))
	f.Add([]byte(`{"verify":{"authentic":false,"match":"exact","resembles":{"record_id":"r","relation":"revoked"}},"record_only":true}`))
	f.Add([]byte(`{"authentic":false,"match":"none","chain":[{"record_id":"a","relation":"original"},{"record_id":"b","relation":"derivative","created_at":"x"}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		var p present.Presentation
		out, ok := resultDoc(t, func() []byte { return Present(in) }, "presentation", &p, codeBadInput)
		if ok && (len(p.Checks) != 4 || p.Headline == "") {
			t.Fatalf("presentation %s lacks its headline or a check", out)
		}
	})
}

// FuzzDecide's seeds include a candidate whose signing key was revoked.
func TestDecideRevokedKeySeed(t *testing.T) {
	var in map[string]any
	if err := json.Unmarshal(seedInput(t), &in); err != nil {
		t.Fatal(err)
	}
	lk := in["lookup"].(map[string]any)
	c := lk["candidates"].([]any)[0].(map[string]any)
	c["signing_key"] = map[string]string{"custody": "service", "revoked_at": "2026-11-23T00:00:00Z", "compromised_since": "2026-11-22T00:00:00Z"}
	b, _ := json.Marshal(in)
	out := Decide(b, limits.Default())
	if !bytes.Contains(out, []byte(`"authentic":false`)) || !bytes.Contains(out, []byte(`"rule":"compromised_anchor_time"`)) {
		t.Errorf("decide with the key compromised before the anchoring: %s", out)
	}
}

// TestAnalyzeHashed: with the file's own digest the output is analyze's
// byte for byte; a digest that is not the file's is taken as given (the
// host answers for it, docs/widget.md), so the facts name that digest
// and nothing else changes; an input too short to hold one is refused.
func TestAnalyzeHashed(t *testing.T) {
	file, err := os.ReadFile("../../../shared/testdata/images/photo.jpg")
	if err != nil {
		t.Fatal(err)
	}
	lim, at := limits.Default(), time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	sum := sha256.Sum256(file)
	other := sha256.Sum256([]byte("another file"))
	want := Analyze(file, lim, at)
	wantOther := bytes.Replace(want, []byte(hex.EncodeToString(sum[:])), []byte(hex.EncodeToString(other[:])), 1)
	for _, tt := range []struct {
		name string
		in   []byte
		want []byte
	}{
		{"the file's digest", append(sum[:], file...), want},
		{"another digest", append(other[:], file...), wantOther},
		{"no file", sum[:], []byte(`"code":"invalid_image"`)},
		{"short", sum[:DigestSize-1], []byte(`"code":"bad_input"`)},
		{"nil", nil, []byte(`"code":"bad_input"`)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := AnalyzeHashed(tt.in, lim, at)
			if tt.want[0] == '{' && !bytes.Equal(got, tt.want) || tt.want[0] != '{' && !bytes.Contains(got, tt.want) {
				t.Errorf("got %.300s\nwant %.300s", got, tt.want)
			}
		})
	}
	if bytes.Equal(want, wantOther) {
		t.Fatal("the analyze output does not name the file's digest")
	}
}
