package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/origintest/corpus"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/watermark"
)

// Each test of this file reproduces one finding of the "honest verdicts"
// review over HTTP and asserts the answer the rules of
// docs/verification.md now give.

// honestResp is a verify answer with the members the rules are about.
type honestResp struct {
	chainResp
	BlockchainTx     string `json:"blockchain_tx"`
	ClaimedTimestamp string `json:"claimed_timestamp"`
	Resembles        *struct {
		RecordID  string `json:"record_id"`
		Relation  string `json:"relation"`
		ClaimedBy string `json:"claimed_by"`
		Detail    string `json:"detail"`
	} `json:"resembles"`
	raw string
}

func (ts *testServer) verifyHonest(data []byte) honestResp {
	ts.t.Helper()
	ts.verify(data) // the common assertions on the four checks
	v, body := verifyAs[honestResp](ts, data)
	v.raw = string(body)
	return v
}

// notEndorsed asserts the shape of a non-authentic answer that found
// record id: nothing reads as the file's, no check passes, and resembles
// names the record with relation.
func notEndorsed(t *testing.T, what string, v honestResp, id, org, relation string) {
	t.Helper()
	if v.Authentic || v.Signer != nil || v.Origin != nil || v.BlockchainTx != "" || v.RecordID != "" || v.Timestamp != "" {
		t.Errorf("%s: authentic %v signer %+v origin %+v tx %q record %q timestamp %q; want not authentic and none of them:\n%s",
			what, v.Authentic, v.Signer, v.Origin, v.BlockchainTx, v.RecordID, v.Timestamp, v.raw)
	}
	for name, c := range v.Checks {
		if c.Passed {
			t.Errorf("%s: check %s passed (%s), want no check passed for a file that is not authentic", what, name, c.Details)
		}
	}
	if v.Resembles == nil || v.Resembles.RecordID != id || v.Resembles.Relation != relation || v.Resembles.ClaimedBy != org || v.Resembles.Detail == "" {
		t.Errorf("%s: resembles = %+v, want record %s, relation %s, claimed_by %s, a detail:\n%s", what, v.Resembles, id, relation, org, v.raw)
	}
}

// anchoredServer starts a server that anchors every record on its own.
func anchoredServer(t *testing.T) *testServer {
	return startServer(t, "", nil, batchesOf(1))
}

// batchesOf anchors records n at a time, the chain polled every 20 ms:
// with n > 1 a record stays pending until n are waiting.
func batchesOf(n int) serverOpt {
	return func(c *Config, _ *deps) {
		c.Anchor.BatchSize = n
		c.Anchor.PollInterval = 20 * time.Millisecond
	}
}

// transplant embeds payload (hex) into picture with the project's own
// embedder, as an attacker who read the payload from public search would.
func transplant(t *testing.T, picture []byte, payloadHex string) []byte {
	t.Helper()
	p, err := watermark.ParsePayload(payloadHex)
	if err != nil {
		t.Fatal(err)
	}
	return watermarked(t, picture, p)
}

// publicSearch returns the items public search gives for query q.
func (ts *testServer) publicSearch(q string) []map[string]any {
	ts.t.Helper()
	r := ts.do("GET", "/api/v1/content-records/public/search?"+q, "", nil)
	ts.mustStatus(r, 200, "public search")
	var p struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(r.body, &p); err != nil {
		ts.t.Fatalf("public search body %s: %v", r.body, err)
	}
	return p.Items
}

// TestHonestNoEndorsementWithoutAuthenticity (finding 2): the victim's
// public payload embedded into an unrelated photo, and a perceptual-only
// look-alike, are not authentic and read as nobody's: no signer, origin,
// blockchain_tx or passed check; what was found is in resembles.
func TestHonestNoEndorsementWithoutAuthenticity(t *testing.T) {
	ts := anchoredServer(t)
	victim := ts.newSignerOrg("desk@example-news.example", "Example News")
	r := ts.signFile(victim, readTestdata(t, "meadow.jpg"), nil)
	ts.mustStatus(r, 201, "victim signs")
	id := r.header.Get("X-Record-Id")
	ts.waitAnchored(victim, id)

	items := ts.publicSearch("org_name=Example+News")
	if len(items) != 1 {
		t.Fatalf("public search: %d items, want 1", len(items))
	}
	payloadHex, _ := items[0]["watermark_payload_hex"].(string)

	forged := transplant(t, readTestdata(t, "water.jpg"), payloadHex)
	v := ts.verifyHonest(forged)
	notEndorsed(t, "transplanted watermark", v, id, "Example News", "watermark_transplant")
	if bc := v.Checks["blockchain"].Details; !strings.Contains(bc, "record "+id+" is anchored") || !strings.Contains(bc, "this file is not shown to be that record") {
		t.Errorf("transplant: blockchain details = %q, want record %s anchored and this file not shown to be it", bc, id)
	}
	if v.Confidence > 0.5 {
		t.Errorf("transplant: confidence %v, want at most 0.5", v.Confidence)
	}

	v = ts.verifyHonest(unmarkedCopy(t))
	notEndorsed(t, "perceptual look-alike", v, id, "Example News", "perceptual_lookalike")
}

// TestHonestPrivateOriginal (finding 4): the SHA-256 of the signer's
// unwatermarked original is found by the owner's own list, never by
// public search; verifying the original is the service's own evidence:
// authentic below any signed match, not 1, no blockchain pass.
func TestHonestPrivateOriginal(t *testing.T) {
	ts := anchoredServer(t)
	victim := ts.newSignerOrg("desk@example-news.example", "Example News")
	orig := readTestdata(t, "meadow.jpg")
	id, published := ts.signAnchored(victim, orig, "sign")
	origSum, pubSum := sha256.Sum256(orig), sha256.Sum256(published)

	if items := ts.publicSearch("sha256=" + hex.EncodeToString(origSum[:])); len(items) != 0 {
		t.Errorf("public search by the original's SHA-256 = %v, want nothing", items)
	}
	if items := ts.publicSearch("sha256=" + hex.EncodeToString(pubSum[:])); len(items) != 1 || items[0]["id"] != id {
		t.Errorf("public search by the signed file's SHA-256 = %v, want record %s", items, id)
	}
	r := ts.do("GET", "/api/v1/content-records?sha256="+hex.EncodeToString(origSum[:]), victim.apiKey, nil)
	ts.mustStatus(r, 200, "owner's list by the original's SHA-256")
	if !strings.Contains(string(r.body), id) {
		t.Errorf("owner's list by the original's SHA-256 = %s, want record %s", r.body, id)
	}

	v := ts.verifyHonest(orig)
	if !v.Authentic || v.RecordID != id || v.Confidence >= 0.85 || v.Confidence <= 0 {
		t.Errorf("verify(original) authentic %v record %s confidence %v, want authentic %s below 0.85 (every signed match)", v.Authentic, v.RecordID, v.Confidence, id)
	}
	if bc := v.Checks["blockchain"]; bc.Passed || v.BlockchainTx != "" || !strings.Contains(bc.Details, "service's record of the original upload") {
		t.Errorf("verify(original) blockchain = %+v tx %q, want not passed, no tx, and the reason", bc, v.BlockchainTx)
	}
	if sc := v.Checks["sha256"].Details; !strings.Contains(sc, "not covered by the signature") {
		t.Errorf("verify(original) sha256 details = %q, want it to say the original's hash is the service's, not signed", sc)
	}
	// The signed file itself is what the anchored record covers.
	// It is anchored on the embedded chain, not public: 0.98, not 1.0.
	if v := ts.verifyHonest(published); !v.Authentic || v.Confidence != 0.98 || !v.Checks["blockchain"].Passed || v.BlockchainTx == "" {
		t.Errorf("verify(published) authentic %v confidence %v blockchain %+v tx %q, want 0.98 anchored on the local chain", v.Authentic, v.Confidence, v.Checks["blockchain"], v.BlockchainTx)
	}
}

// TestHonestRevocationIsTheRevokers (finding 5): another account signing
// the circulating copy and revoking its own record does not touch the
// victim's verdict; a revoke + re-sign by the same account answers the
// active record whatever the record ids' order.
func TestHonestRevocationIsTheRevokers(t *testing.T) {
	ts, victim, mallory := victimAndMallory(t)

	published, idA := ts.signTestdata(victim, "meadow.jpg", "victim signs")
	circulating := reencode(t, published, 0.9, 80)

	ts.clock.Advance(time.Minute)
	for i, file := range [][]byte{circulating, published} {
		r := ts.signFile(mallory, file, map[string]string{"derivative_of": idA})
		ts.mustStatus(r, 201, "Mallory signs the circulating copy")
		idM := r.header.Get("X-Record-Id")
		r = ts.do("DELETE", "/api/v1/content-records/"+idM, mallory.apiKey, map[string]string{"reason": "photo is staged - withdrawn"})
		ts.mustStatus(r, 200, "Mallory revokes its own record")
		for _, f := range []struct {
			name string
			file []byte
		}{{"circulating copy", circulating}, {"published file", published}} {
			v := ts.verifyHonest(f.file)
			if !v.Authentic || v.RecordID != idA || v.Signer == nil || v.Signer.OrgName != "Example News" || v.Confidence == 0 ||
				strings.Contains(v.raw, "staged") {
				t.Errorf("after Mallory's revocation %d, verify(%s): authentic %v record %s signer %+v confidence %v; want Example News's %s, not revoked:\n%s",
					i, f.name, v.Authentic, v.RecordID, v.Signer, v.Confidence, idA, v.raw)
			}
		}
	}

	// Mallory registers the exact bytes of another circulating copy by
	// hash (nobody held that SHA-256), then revokes: the signed
	// watermark in the picture still answers, as the victim's.
	copy2 := reencode(t, published, 0.8, 75)
	r := ts.registerClaim(mallory, "Mallory Media", uuidN(990), sha256.Sum256(copy2),
		phash.Hash{P64: 0xfedcba9876543210, P256: [4]uint64{9, 9, 9, 9}}, nil, ts.clock.Now())
	ts.mustStatus(r, 201, "Mallory registers a circulating copy's hash")
	r = ts.do("DELETE", "/api/v1/content-records/"+uuidN(990), mallory.apiKey, map[string]string{"reason": "photo is staged - withdrawn"})
	ts.mustStatus(r, 200, "Mallory revokes its registration")
	if v := ts.verifyHonest(copy2); !v.Authentic || v.RecordID != idA || v.Signer == nil || v.Signer.OrgName != "Example News" {
		t.Errorf("verify(copy Mallory registered and revoked): authentic %v record %s signer %+v, want Example News's %s:\n%s",
			v.Authentic, v.RecordID, v.Signer, idA, v.raw)
	}

	// Revoke and re-sign the same picture: the active record answers for
	// the unwatermarked original, whichever id sorts first. Several
	// pictures, so that both id orders occur.
	orders := map[bool]int{}
	for seed := uint64(1); seed <= 12 && (orders[true] == 0 || orders[false] == 0 || seed <= 4); seed++ {
		orig := photo(t, 700+seed, 512, 384)
		r = ts.signFile(victim, orig, nil)
		ts.mustStatus(r, 201, "sign")
		first := r.header.Get("X-Record-Id")
		r = ts.do("DELETE", "/api/v1/content-records/"+first, victim.apiKey, map[string]string{"reason": "wrong caption"})
		ts.mustStatus(r, 200, "revoke")
		r = ts.signFile(victim, orig, nil)
		ts.mustStatus(r, 201, "re-sign")
		second := r.header.Get("X-Record-Id")
		orders[first < second]++
		v := ts.verifyHonest(orig)
		if !v.Authentic || v.RecordID != second {
			t.Errorf("picture %d (revoked id %s, active id %s): verify(original) authentic %v record %q, want the active record:\n%s",
				seed, first, second, v.Authentic, v.RecordID, v.raw)
		}
	}
	t.Logf("revoked id sorted first %d times, second %d times", orders[true], orders[false])
	if orders[true] == 0 || orders[false] == 0 {
		t.Errorf("id orders seen = %v, want both (the test must show the answer does not follow id order)", orders)
	}
}

// registerClaim registers, for s of organisation org, a record of the
// given hashes and claimed timestamp, signed with s's key.
func (ts *testServer) registerClaim(s signer, org, id string, sum [32]byte, ph phash.Hash, payload []byte, at time.Time) response {
	ts.t.Helper()
	rid, err := record.ParseID(id)
	if err != nil {
		ts.t.Fatal(err)
	}
	pub, _ := hex.DecodeString(s.pubHex)
	at = at.UTC().Truncate(time.Millisecond)
	canon, err := (&record.Record{ID: rid, SHA256: sum, PerceptualHash: ph, SignerPublicKey: pub, Timestamp: at,
		OriginType: "camera_image", Org: org, WatermarkPayload: payload}).Encode()
	if err != nil {
		ts.t.Fatal(err)
	}
	sig, _, err := ts.srv.keys.Sign(context.Background(), s.id, s.keyID, canon)
	if err != nil {
		ts.t.Fatal(err)
	}
	body := map[string]any{"record_id": id, "sha256": hex.EncodeToString(sum[:]), "perceptual_hash": ph.String(),
		"signature_hex": hex.EncodeToString(sig), "signer_public_key": s.pubHex,
		"timestamp": at.Format(time.RFC3339Nano), "origin_type": "camera_image"}
	if payload != nil {
		body["watermark_payload_hex"] = hex.EncodeToString(payload)
	}
	return ts.do("POST", "/api/v1/register", s.apiKey, body)
}

// TestHonestRegisterCannotSteal (finding 6): register refuses the
// victim's SHA-256 (signed file or original), payload or perceptual hash
// with a 409 that names nothing; a claimed timestamp is shown as claimed
// beside the time of record; the exact-SHA-256 shortcut passes the
// watermark check only with the payload the service itself embedded.
func TestHonestRegisterCannotSteal(t *testing.T) {
	ts, victim, mallory := victimAndMallory(t)
	orig := readTestdata(t, "meadow.jpg")
	r := ts.signFile(victim, orig, nil)
	ts.mustStatus(r, 201, "victim signs")
	published, idA := r.body, r.header.Get("X-Record-Id")
	r = ts.do("GET", "/api/v1/content-records/"+idA, victim.apiKey, nil)
	ts.mustStatus(r, 200, "victim's record")
	vr := r.json(t)
	victimPH, err := phash.Parse(vr["perceptual_hash"].(string))
	if err != nil {
		t.Fatal(err)
	}
	victimPayload, _ := hex.DecodeString(vr["watermark_payload_hex"].(string))

	pubSum, origSum := sha256.Sum256(published), sha256.Sum256(orig)
	other := sha256.Sum256([]byte("some other file"))
	otherPH := phash.Hash{P64: 0x0123456789abcdef, P256: [4]uint64{5, 6, 7, 8}}
	y2001 := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		sum     [32]byte
		ph      phash.Hash
		payload []byte
	}{
		{"the victim's published SHA-256 with a made-up payload", pubSum, otherPH, []byte{0, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef}},
		{"the victim's unwatermarked original's SHA-256", origSum, otherPH, nil},
		{"the victim's watermark payload", other, otherPH, victimPayload},
		{"the victim's perceptual hash", other, victimPH, nil},
	}
	for i, tt := range tests {
		r := ts.registerClaim(mallory, "Mallory Media", uuidN(900+i), tt.sum, tt.ph, tt.payload, y2001)
		if r.status != 409 || r.problemCode(t) != "duplicate_record" {
			t.Errorf("%s: status %d body %s, want 409 duplicate_record", tt.name, r.status, r.body)
			continue
		}
		for _, private := range []string{idA, "Example News", hex.EncodeToString(origSum[:]), vr["perceptual_hash"].(string)} {
			if strings.Contains(string(r.body), private) {
				t.Errorf("%s: refusal %s names %q", tt.name, r.body, private)
			}
		}
	}

	// The victim's file still verifies as the victim's; the shortcut does
	// not decode it, and the watermark check passes with the payload the
	// service embedded in those bytes (the victim's, never a claimant's).
	v := ts.verifyHonest(published)
	if !v.Authentic || v.RecordID != idA || v.Signer == nil || v.Signer.OrgName != "Example News" {
		t.Errorf("verify(published) = record %s signer %+v authentic %v, want Example News's %s", v.RecordID, v.Signer, v.Authentic, idA)
	}
	if wc := v.Checks["watermark"]; !wc.Passed || !strings.Contains(wc.Details, hex.EncodeToString(victimPayload)+" embedded by the service in this exact file (record "+idA+")") {
		t.Errorf("verify(published) watermark = %+v, want passed: the victim's payload, embedded by the service", wc)
	}

	// A legitimate registration claiming an old signing time: the claim is
	// shown as claimed, the time of record is when the service received it.
	ts.clock.Advance(time.Hour)
	doc := []byte("Mallory's own document, not an image")
	r = ts.registerClaim(mallory, "Mallory Media", uuidN(950), sha256.Sum256(doc), otherPH, nil, y2001)
	ts.mustStatus(r, 201, "register an own document with a claimed 2001 timestamp")
	received := ts.clock.Now().UTC().Format(record.TimeFormat)
	v = ts.verifyHonest(doc)
	if !v.Authentic || v.ClaimedTimestamp != "2001-01-01T00:00:00.000Z" || v.Timestamp != received {
		t.Errorf("verify(registered) authentic %v timestamp %q claimed %q, want time of record %s and claimed 2001-01-01T00:00:00.000Z",
			v.Authentic, v.Timestamp, v.ClaimedTimestamp, received)
	}
	if wc, pc := v.Checks["watermark"], v.Checks["perceptual_hash"]; wc.Passed || pc.Passed ||
		!strings.HasPrefix(wc.Details, "not extracted") || !strings.HasPrefix(pc.Details, "not computed") {
		t.Errorf("verify(registered, undecodable) watermark %+v perceptual %+v, want not extracted / not computed", wc, pc)
	}
	r = ts.do("GET", "/api/v1/content-records/"+uuidN(950)+"/certificate", "", nil)
	ts.mustStatus(r, 200, "certificate")
	var cert struct {
		Timestamp         string `json:"timestamp"`
		TimeOfRecord      string `json:"time_of_record"`
		TimeOfRecordBasis string `json:"time_of_record_basis"`
		ClaimedTimestamp  string `json:"claimed_timestamp"`
	}
	if err := json.Unmarshal(r.body, &cert); err != nil {
		t.Fatal(err)
	}
	if cert.TimeOfRecord != received || cert.TimeOfRecordBasis != "received" || cert.ClaimedTimestamp != "2001-01-01T00:00:00.000Z" {
		t.Errorf("certificate = %s, want time_of_record %s (received) and claimed_timestamp 2001-01-01", r.body, received)
	}
	h, err := newRequest("GET", ts.base+"/api/v1/content-records/"+uuidN(950)+"/certificate", "text/html")
	if err != nil {
		t.Fatal(err)
	}
	html := string(h.body)
	if strings.Contains(html, "Signed at") || !strings.Contains(html, "Claimed signing time") || !strings.Contains(html, "Time of record") {
		t.Errorf("certificate HTML shows the claim as the signing time:\n%s", html)
	}
}

// TestHonestNoMatchNamesNobody (finding 7): a picture that matches
// nothing names no record and no signer, details included.
func TestHonestNoMatchNamesNobody(t *testing.T) {
	ts := startServer(t, "", nil)
	victim := ts.newSignerOrg("desk@example-news.example", "Example News")
	var ids []string
	for _, f := range []string{"meadow.jpg", "water.jpg"} {
		r := ts.signFile(victim, readTestdata(t, f), nil)
		ts.mustStatus(r, 201, "sign "+f)
		ids = append(ids, r.header.Get("X-Record-Id"))
	}
	// A registered record whose 64-bit perceptual hash is the probe's (so
	// the index returns it as a candidate) but whose 256-bit hash is far:
	// the closest record, which the answer used to name.
	probe := photo(t, 4242, 640, 480)
	ph := phashOf(t, probe)
	far := phash.Hash{P64: ph.P64, P256: [4]uint64{^ph.P256[0], ^ph.P256[1], ^ph.P256[2], ^ph.P256[3]}}
	r := ts.registerClaim(victim, "Example News", uuidN(970), sha256.Sum256([]byte("elsewhere")), far, nil, ts.clock.Now())
	ts.mustStatus(r, 201, "register a candidate far from the probe")
	ids = append(ids, uuidN(970))
	noMatch := 0
	for _, tt := range []struct {
		name string
		file []byte
	}{
		{"unrelated picture, a far candidate in the index", probe},
		{"mirrored, re-encoded copy of a signed picture", transform(t, readTestdata(t, "meadow.jpg"), 85, corpus.Mirror)},
		{"heavy crop of a signed picture", transform(t, readTestdata(t, "water.jpg"), 85, corpus.Crop(0.3))},
	} {
		v := ts.verifyHonest(tt.file)
		if v.Authentic || v.Confidence != 0 {
			t.Logf("%s: matched (%s); not a no-match case", tt.name, v.raw)
			continue
		}
		noMatch++
		for _, private := range append([]string{"Example News", "closest"}, ids...) {
			if strings.Contains(v.raw, private) {
				t.Errorf("%s: answer names %q:\n%s", tt.name, private, v.raw)
			}
		}
		if v.Resembles != nil || v.Signer != nil || v.RecordID != "" {
			t.Errorf("%s: resembles %+v signer %+v record %q, want none", tt.name, v.Resembles, v.Signer, v.RecordID)
		}
	}
	if noMatch < 2 {
		t.Errorf("%d of the pictures matched nothing, want at least 2 (the unrelated and the mirrored one)", noMatch)
	}
}

// victimAndMallory starts an origin with two signing organisations:
// Example News, the victim, and Mallory Media, who signs its pictures
// again.
func victimAndMallory(t *testing.T) (*testServer, signer, signer) {
	ts := startServer(t, "", nil)
	return ts, ts.newSignerOrg("desk@example-news.example", "Example News"), ts.newSignerOrg("desk@mallory.example", "Mallory Media")
}
