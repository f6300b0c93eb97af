// Package corpus builds the verification conformance corpus against a
// running origin: accounts that sign, revoke records, revoke and retire
// keys, register device-signed records and sign derivatives, and the files
// to verify (signed, re-encoded, cropped, edited, composite, transplanted,
// unrelated, originals, small pictures without a watermark, pending), so
// that every surface that verifies a file (the origin's POST /verify, the
// core natively and in the WebAssembly module, the edge with each engine,
// the browser, the CLI and the SDK) can be checked to give the same
// verdict in the same words: each surface's answer reduced by [Summarize]
// must equal the golden row of its case (testdata/corpus.golden.json,
// [Golden]).
//
// It is test support: nothing in a production binary imports it.
package corpus

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"maps"
	mrand "math/rand/v2"
	"net/http"
	"strings"
	"time"

	"golang.org/x/image/draw"

	"github.com/provenant/provenant/internal/formdata"
	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/present"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/watermark"
	"github.com/provenant/provenant/shared/wire"
)

// Origin is the origin the corpus is built on.
type Origin struct {
	// URL is its base URL.
	URL string
	// Images holds the named test pictures the corpus signs: meadow.jpg
	// and water.jpg (origin/internal/server/testdata).
	Images map[string][]byte
	// Advance moves the origin's clock forward (a fake clock's Advance, or
	// time.Sleep for a real one); the key-compromise cases need anchoring
	// times a known distance apart.
	Advance func(time.Duration)
	// Decorate, if set, adjusts every request (a client address for a
	// rate limiter that trusts X-Forwarded-For).
	Decorate func(*http.Request)
	// Tag makes the accounts' e-mail addresses unique per build.
	Tag string
	// ThirdPartyC2PA signs the C2PA manifests of another signer (a camera
	// maker's certificate this origin does not trust), for the files that
	// carry one; c2patest.NewSigner makes one in a test.
	ThirdPartyC2PA c2pa.Signer
}

// Case is one file of the corpus.
type Case struct {
	Name string
	File []byte
	// Pending is true when the record the file matches is not anchored:
	// its blockchain check is "pending" on every surface.
	Pending bool
	// NotAnImage is true for a registered file that is not a picture: only
	// the origin's /verify answers it (by its SHA-256); the core refuses it.
	NotAnImage bool
}

// Corpus is what Build made.
type Corpus struct {
	Cases []Case
	// Roles names each record the corpus created ("a1", "b2", …), so that
	// answers from different runs compare without their random ids.
	Roles map[string]string
}

//go:embed testdata/corpus.golden.json
var golden embed.FS

// GoldenPath is the golden table's path inside this package's directory.
const GoldenPath = "testdata/corpus.golden.json"

// Golden returns the golden rows by case name.
func Golden() (map[string]Row, error) {
	b, err := golden.ReadFile(GoldenPath)
	if err != nil {
		return nil, err
	}
	var m map[string]Row
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("corpus: golden: %w", err)
	}
	return m, nil
}

// Row is a verify answer reduced to what every surface must agree on:
// the verdict, the match, which record (by role) answers or is
// resembled, the key-revocation rule, each check's tri-state and the
// presentation's headline and tone.
type Row struct {
	Authentic bool   `json:"authentic"`
	Match     string `json:"match"`
	// Record is the role of the record answering (authentic) or found
	// (resembles), "" when none.
	Record   string `json:"record"`
	Relation string `json:"relation,omitempty"`
	KeyRule  string `json:"key_rule,omitempty"`
	KeyValid *bool  `json:"key_valid,omitempty"`
	// Checks maps each check to passed, failed or not_applicable.
	Checks   map[string]present.State `json:"checks"`
	Headline string                   `json:"headline"`
	Tone     present.Tone             `json:"tone"`
	// Chain lists the chain's records by role and relation, oldest first.
	Chain []string `json:"chain,omitempty"`
	// C2PA is "" when the file carries no manifest, else "trusted" or
	// "untrusted" (the verify answer's c2pa.trusted).
	C2PA string `json:"c2pa,omitempty"`
}

// Summarize reduces v to its Row, naming records by roles.
func Summarize(v wire.VerifyResponse, roles map[string]string) Row {
	p := present.Present(v, present.Options{})
	r := Row{Authentic: v.Authentic, Match: v.Match, Headline: p.Headline, Tone: p.Tone, Checks: map[string]present.State{}}
	role := func(id string) string {
		if id == "" {
			return ""
		}
		if n, ok := roles[id]; ok {
			return n
		}
		return "unknown"
	}
	r.Record = role(v.RecordID)
	if v.Resembles != nil {
		r.Record, r.Relation = role(v.Resembles.RecordID), v.Resembles.Relation
	}
	if k := v.KeyRevocation; k != nil {
		valid := k.Valid()
		r.KeyRule, r.KeyValid = k.Rule, &valid
	}
	for _, c := range p.Checks {
		r.Checks[c.Name] = c.State
	}
	for _, l := range v.Chain {
		r.Chain = append(r.Chain, role(l.RecordID)+":"+l.Relation)
	}
	if v.C2PA != nil {
		r.C2PA = map[bool]string{true: "trusted", false: "untrusted"}[v.C2PA.Trusted]
	}
	return r
}

// Diff describes how got differs from want ("" when equal). For a
// pending case the blockchain check may be not_applicable or passed: a
// batch may close while surfaces are compared.
func Diff(c Case, want, got Row) string {
	if c.Pending {
		got.Checks = cloneChecks(got.Checks)
		got.Checks[wire.CheckBlockchain] = want.Checks[wire.CheckBlockchain]
	}
	w, _ := json.Marshal(want)
	g, _ := json.Marshal(got)
	if bytes.Equal(w, g) {
		return ""
	}
	return fmt.Sprintf("got  %s\nwant %s", g, w)
}

func cloneChecks(m map[string]present.State) map[string]present.State {
	out := make(map[string]present.State, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

type client struct {
	o   Origin
	ctx context.Context
	// pending counts records signed since the last flush.
	pending int
	filler  *account
	roles   map[string]string
}

type account struct {
	token, keyID, apiKey, org string
	priv                      ed25519.PrivateKey // device keys only
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (c *client) do(method, path, token, contentType string, body io.Reader) (response, error) {
	req, err := http.NewRequestWithContext(c.ctx, method, c.o.URL+path, body)
	if err != nil {
		return response{}, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.o.Decorate != nil {
		c.o.Decorate(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: b}, err
}

func (c *client) json(method, path, token string, in any, want int, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	r, err := c.do(method, path, token, "application/json", body)
	if err != nil {
		return err
	}
	if r.status != want {
		return fmt.Errorf("%s %s: %d %s", method, path, r.status, r.body)
	}
	if out != nil {
		return json.Unmarshal(r.body, out)
	}
	return nil
}

func (c *client) account(name, org string, devicePub ed25519.PublicKey) (*account, error) {
	var reg struct {
		AccessToken string `json:"access_token"`
	}
	email := fmt.Sprintf("%s-%s@corpus.example", name, c.o.Tag)
	if err := c.json("POST", "/api/v1/auth/register", "", map[string]string{"email": email, "password": "correct horse battery staple",
		"org_name": org, "org_type": "news_org"}, 201, &reg); err != nil {
		return nil, err
	}
	a := &account{token: reg.AccessToken, org: org}
	kin := map[string]string{"name": name + " key", "origin_type": "camera_image"}
	if devicePub != nil {
		kin["public_key_hex"] = hex.EncodeToString(devicePub)
	}
	var k struct {
		ID string `json:"id"`
	}
	if err := c.json("POST", "/api/v1/keys/signing-keys", a.token, kin, 201, &k); err != nil {
		return nil, err
	}
	var ak struct {
		Key string `json:"key"`
	}
	if err := c.json("POST", "/api/v1/keys/api-keys", a.token, map[string]any{"name": "corpus"}, 201, &ak); err != nil {
		return nil, err
	}
	a.keyID, a.apiKey = k.ID, ak.Key
	return a, nil
}

// sign signs file with a's key and returns the signed output and record id.
func (c *client) sign(a *account, role string, file []byte, fields map[string]string) ([]byte, string, error) {
	form := map[string]string{"return_file": "true"}
	maps.Copy(form, fields)
	body, ct := formdata.File("file", role+".jpg", file, form)
	r, err := c.do("POST", "/api/v1/sign?signing_key_id="+a.keyID, a.apiKey, ct, bytes.NewReader(body))
	if err != nil {
		return nil, "", err
	}
	if r.status != 201 {
		return nil, "", fmt.Errorf("sign %s: %d %s", role, r.status, r.body)
	}
	id := r.header.Get("X-Record-Id")
	c.pending++
	if role != "" {
		c.roles[id] = role
	}
	return r.body, id, nil
}

// register signs picture on a's device (the SDK's local signing: embed,
// encode, hash, canonical version 1 record) and registers it; a nil
// picture registers doc, a file that is not an image, by its hashes.
func (c *client) register(a *account, role string, picture, doc []byte, payload uint64) ([]byte, string, error) {
	var out []byte
	var ph phash.Hash
	var wm []byte
	if picture != nil {
		img, err := jpeg.Decode(bytes.NewReader(picture))
		if err != nil {
			return nil, "", err
		}
		marked, err := watermark.Embed(img, watermark.Payload(payload))
		if err != nil {
			return nil, "", err
		}
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, marked, &jpeg.Options{Quality: 92}); err != nil {
			return nil, "", err
		}
		out = buf.Bytes()
		dec, err := imagex.Decode(out, limits.Default())
		if err != nil {
			return nil, "", err
		}
		if ph, err = phash.Compute(imagex.ToLuma(dec.Image)); err != nil {
			return nil, "", err
		}
		wm = binary.BigEndian.AppendUint64(nil, payload)
	} else {
		out = doc
		ph = phash.Hash{P64: binary.BigEndian.Uint64(doc[:8]) | 1, P256: [4]uint64{payload, 2, 3, 4}}
	}
	var idb [16]byte
	_, _ = rand.Read(idb[:])
	idb[6], idb[8] = idb[6]&0x0f|0x40, idb[8]&0x3f|0x80
	ts := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rec := &record.Record{ID: record.ID(idb), SHA256: sha256.Sum256(out), PerceptualHash: ph, SignerPublicKey: a.priv.Public().(ed25519.PublicKey),
		Timestamp: ts, OriginType: "camera_image", Org: a.org, WatermarkPayload: wm}
	sg, err := record.Sign(a.priv, rec)
	if err != nil {
		return nil, "", err
	}
	req := map[string]any{"record_id": rec.ID.String(), "sha256": hex.EncodeToString(rec.SHA256[:]), "perceptual_hash": ph.String(),
		"signature_hex": hex.EncodeToString(sg.Signature), "signing_key_id": a.keyID, "timestamp": ts.Format(record.TimeFormat)}
	if wm != nil {
		req["watermark_payload_hex"] = hex.EncodeToString(wm)
	}
	if err := c.json("POST", "/api/v1/register", a.apiKey, req, 201, nil); err != nil {
		return nil, "", err
	}
	c.pending++
	c.roles[rec.ID.String()] = role
	return out, rec.ID.String(), nil
}

// recordInfo reads a record's anchoring state and payload.
type recordInfo struct {
	BlockchainStatus    string `json:"blockchain_status"`
	AnchoredAt          string `json:"anchored_at"`
	WatermarkPayloadHex string `json:"watermark_payload_hex"`
}

func (c *client) info(a *account, id string) (recordInfo, error) {
	var ri recordInfo
	err := c.json("GET", "/api/v1/content-records/"+id, a.apiKey, nil, 200, &ri)
	return ri, err
}

// flush completes the open batch (batches of two: a filler record when
// one is waiting) and waits until ids are anchored.
func (c *client) flush(owners map[string]*account) error {
	if c.pending%2 == 1 {
		if _, _, err := c.sign(c.filler, "", Photo(uint64(9000+len(c.roles)), 320, 240), nil); err != nil {
			return err
		}
	}
	c.pending = 0
	deadline := time.Now().Add(90 * time.Second)
	for id, a := range owners {
		for {
			ri, err := c.info(a, id)
			if err != nil {
				return err
			}
			if ri.BlockchainStatus == wire.StatusAnchored {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("record %s not anchored in time", id)
			}
			time.Sleep(25 * time.Millisecond)
		}
	}
	return nil
}

// Build creates the corpus's accounts and records on o and returns the
// files to verify. The origin must anchor in batches of two records
// (--batch-size 2) and close no batch by time during the build (a batch
// interval of minutes): the corpus controls which records are anchored.
func Build(ctx context.Context, o Origin) (*Corpus, error) {
	c := &client{o: o, ctx: ctx, roles: map[string]string{}}
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	var out *Corpus
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				e, ok := r.(error)
				if !ok {
					panic(r)
				}
				err = e
			}
		}()
		out = c.build(must)
		return nil
	}()
	return out, err
}

func (c *client) build(must func(error)) *Corpus {
	o := c.o
	acct := func(name, org string, pub ed25519.PublicKey) *account {
		a, err := c.account(name, org, pub)
		must(err)
		return a
	}
	var err error
	c.filler = acct("filler", "Filler Desk", nil)
	A := acct("a", "Corpus News", nil)
	B := acct("b", "Compromised Wire", nil)
	C := acct("c", "Rotating Desk", nil)
	D := acct("d", "Derivative Agency", nil)
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	F := acct("f", "Field Camera Co", pub)
	F.priv = priv
	G := acct("g", "Pending Press", nil)

	sign := func(a *account, role string, file []byte, fields map[string]string) ([]byte, string) {
		b, id, err := c.sign(a, role, file, fields)
		must(err)
		return b, id
	}
	meadow, water := o.Images["meadow.jpg"], o.Images["water.jpg"]
	a1, a1id := sign(A, "a1", meadow, nil)
	a2, a2id := sign(A, "a2", water, nil)
	a3, a3id := sign(A, "a3", Photo(301, 640, 480), nil)
	a4, a4id := sign(A, "a4", Photo(302, 120, 90), nil)
	must(c.flush(map[string]*account{a1id: A, a2id: A, a3id: A, a4id: A}))
	must(c.json("DELETE", "/api/v1/content-records/"+a3id, A.apiKey, map[string]string{"reason": "published in error"}, 200, nil))

	// A key compromised between two anchorings.
	b1, b1id := sign(B, "b1", Photo(303, 640, 480), nil)
	must(c.flush(map[string]*account{b1id: B}))
	ri, err := c.info(B, b1id)
	must(err)
	t1, err := time.Parse(time.RFC3339Nano, ri.AnchoredAt)
	must(err)
	o.Advance(2 * time.Second)
	b2, b2id := sign(B, "b2", Photo(304, 640, 480), nil)
	must(c.flush(map[string]*account{b2id: B}))
	since := t1.Add(time.Second).UTC().Format(time.RFC3339Nano)
	must(c.json("DELETE", "/api/v1/keys/signing-keys/"+B.keyID, B.token, map[string]string{"reason": "laptop stolen", "compromised_since": since}, 200, nil))

	// A service key retired right after signing, while pending.
	c1, c1id := sign(C, "c1", Photo(305, 640, 480), nil)
	o.Advance(time.Second)
	must(c.json("DELETE", "/api/v1/keys/signing-keys/"+C.keyID, C.token, nil, 200, nil))
	must(c.flush(map[string]*account{c1id: C}))

	// A derivative another organisation signed of A's picture.
	d1, d1id := sign(D, "d1", Reencode(a1, 0.85, 88), map[string]string{"derivative_of": a1id})
	must(c.flush(map[string]*account{d1id: D}))

	// Device-signed records: one anchored before the key's retirement,
	// one retired while pending; and a registered file that is no image.
	reg := func(role string, pic, doc []byte, payload uint64) ([]byte, string) {
		b, id, err := c.register(F, role, pic, doc, payload)
		must(err)
		return b, id
	}
	f1, f1id := reg("f1", Photo(306, 640, 480), nil, 0x1111_2222_3333_4444)
	docFile := []byte("Field report, not a picture: " + o.Tag)
	_, f3id := reg("f3", nil, docFile, 0x5555)
	must(c.flush(map[string]*account{f1id: F, f3id: F}))
	o.Advance(time.Second)
	f2, f2id := reg("f2", Photo(307, 640, 480), nil, 0x6666_7777_8888_9999)
	o.Advance(time.Second)
	must(c.json("DELETE", "/api/v1/keys/signing-keys/"+F.keyID, F.token, nil, 200, nil))
	o.Advance(time.Second)
	must(c.flush(map[string]*account{f2id: F}))

	// Left pending: the last record, alone in its batch.
	g1, _ := sign(G, "g1", Photo(308, 640, 480), nil)

	ai, err := c.info(A, a1id)
	must(err)
	transplanted := transplant(Photo(401, 640, 480), ai.WatermarkPayloadHex)
	camera := func(file []byte) []byte {
		out, _, _, err := c2pa.Embed(file, c2pa.Manifest{ClaimGenerator: "Camera/1.0", Format: "image/jpeg",
			Actions: []c2pa.Action{{Action: "c2pa.created", DigitalSourceType: "http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture"}}},
			o.ThirdPartyC2PA)
		must(err)
		return out
	}

	cases := []Case{
		{Name: "a1 signed", File: a1},
		{Name: "a1 re-encoded 70% q80", File: Reencode(a1, 0.7, 80)},
		{Name: "a1 re-encoded 85% q85", File: Reencode(a1, 0.85, 85)},
		{Name: "a1 re-encoded 100% q70", File: Reencode(a1, 1, 70)},
		{Name: "a1 thumbnail 20%", File: Reencode(a1, 0.2, 85)},
		{Name: "a1 as PNG", File: toPNG(a1)},
		{Name: "a1 mirrored", File: Transform(a1, 85, Mirror)},
		{Name: "a1 cropped 8%", File: Transform(a1, 90, Crop(0.08))},
		{Name: "a1 cropped 15%", File: Transform(a1, 90, Crop(0.15))},
		{Name: "a1 edited", File: Transform(a1, 90, paint(0.35, 0.35, 0.25))},
		{Name: "a1 composite", File: Transform(a1, 90, composite)},
		{Name: "meadow unsigned original", File: meadow},
		{Name: "a2 signed", File: a2},
		{Name: "a2 re-encoded 60% q75", File: Reencode(a2, 0.6, 75)},
		{Name: "a2 cropped 10%", File: Transform(a2, 90, Crop(0.10))},
		{Name: "a2 edited", File: Transform(a2, 90, paint(0.1, 0.5, 0.3))},
		{Name: "a2 grey", File: Transform(a2, 85, grey)},
		{Name: "water unsigned original", File: water},
		{Name: "a3 revoked record", File: a3},
		{Name: "a3 revoked record re-encoded", File: Reencode(a3, 0.7, 80)},
		{Name: "a4 small, no watermark", File: a4},
		{Name: "a4 small re-encoded", File: Reencode(a4, 1, 80)},
		{Name: "b1 anchored before compromise", File: b1},
		{Name: "b1 anchored before compromise, re-encoded", File: Reencode(b1, 0.7, 80)},
		{Name: "b1 anchored before compromise, cropped", File: Transform(b1, 90, Crop(0.08))},
		{Name: "b2 anchored after compromise", File: b2},
		{Name: "b2 anchored after compromise, re-encoded", File: Reencode(b2, 0.7, 80)},
		{Name: "c1 key retired after signing", File: c1},
		{Name: "c1 key retired after signing, re-encoded", File: Reencode(c1, 0.7, 80)},
		{Name: "d1 derivative", File: d1},
		{Name: "d1 derivative re-encoded", File: Reencode(d1, 0.9, 90)},
		{Name: "f1 registered, anchored before retirement", File: f1},
		{Name: "f1 registered, re-encoded", File: Reencode(f1, 0.7, 80)},
		{Name: "f2 registered, retired while pending, anchored after", File: f2},
		{Name: "f2 registered, retired while pending, anchored after, re-encoded", File: Reencode(f2, 0.7, 80)},
		{Name: "f3 registered, not an image", File: docFile, NotAnImage: true},
		{Name: "g1 pending", File: g1, Pending: true},
		{Name: "g1 pending, re-encoded", File: Reencode(g1, 0.7, 80), Pending: true},
		{Name: "watermark transplanted", File: transplanted},
		{Name: "a3 revoked record, cropped", File: Transform(a3, 90, Crop(0.08))},
		{Name: "d1 derivative, cropped", File: Transform(d1, 90, Crop(0.08))},
		{Name: "g1 pending, cropped", File: Transform(g1, 90, Crop(0.08)), Pending: true},
		{Name: "third-party C2PA, unrelated picture", File: camera(Photo(405, 640, 480))},
		{Name: "third-party C2PA, a2 re-encoded", File: camera(Reencode(a2, 0.8, 85))},
		{Name: "unrelated 640x480", File: Photo(402, 640, 480)},
		{Name: "unrelated 1024x768", File: Photo(403, 1024, 768)},
		{Name: "unrelated 200x200", File: Photo(404, 200, 200)},
	}
	return &Corpus{Cases: cases, Roles: c.roles}
}

// Photo is a deterministic synthetic photograph (smooth gradients and
// noise), JPEG quality 85.
func Photo(seed uint64, w, h int) []byte {
	r := mrand.New(mrand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	fx, fy := 1+r.Float64()*6, 1+r.Float64()*6
	tri := func(x float64) float64 { x -= float64(int(x)); return 4*x*(1-x)*2 - 1 }
	c8 := func(v float64) uint8 { return uint8(min(max(v, 0), 255)) }
	// A few discs of their own brightness at places of their own, so that
	// two seeds are different pictures under every mirror, turn and crop
	// too (gradients alone can resemble each other turned), as
	// look-before-mark requires of unrelated pictures.
	type disc struct{ cx, cy, r2, dv float64 }
	discs := make([]disc, 6)
	for i := range discs {
		rad := (0.06 + r.Float64()*0.12) * float64(min(w, h))
		discs[i] = disc{r.Float64() * float64(w), r.Float64() * float64(h), rad * rad, (r.Float64()*2 - 1) * 90}
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := 128 + 60*tri(float64(x)/float64(w)*fx+float64(y)/float64(h)*fy) + r.NormFloat64()*12
			for _, d := range discs {
				if dx, dy := float64(x)-d.cx, float64(y)-d.cy; dx*dx+dy*dy < d.r2 {
					v += d.dv
				}
			}
			img.Set(x, y, color.RGBA{c8(v), c8(v*0.8 + 30), c8(255 - v), 255})
		}
	}
	return encode(img, 85)
}

func encode(img image.Image, q int) []byte {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func decode(b []byte) image.Image {
	img, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		panic(err)
	}
	return img
}

// Reencode scales a JPEG by scale and encodes it at quality q.
func Reencode(b []byte, scale float64, q int) []byte {
	img := decode(b)
	r := img.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, max(int(float64(r.Dx())*scale), 1), max(int(float64(r.Dy())*scale), 1)))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, r, draw.Src, nil)
	return encode(dst, q)
}

// Transform applies f to a JPEG and encodes the result at quality q.
func Transform(b []byte, q int, f func(image.Image) image.Image) []byte {
	return encode(f(decode(b)), q)
}

// Crop keeps the centre, frac of each side cut off.
func Crop(frac float64) func(image.Image) image.Image {
	return func(src image.Image) image.Image {
		b := src.Bounds()
		dx, dy := int(float64(b.Dx())*frac), int(float64(b.Dy())*frac)
		r := image.Rect(b.Min.X+dx, b.Min.Y+dy, b.Max.X-dx, b.Max.Y-dy)
		dst := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
		draw.Draw(dst, dst.Bounds(), src, r.Min, draw.Src)
		return dst
	}
}

// paint covers a square (side s, top left at x, y, fractions of the
// picture) with a flat colour: an edit of part of the picture.
func paint(x, y, s float64) func(image.Image) image.Image {
	return func(src image.Image) image.Image {
		b := src.Bounds()
		dst := image.NewRGBA(b)
		draw.Draw(dst, b, src, b.Min, draw.Src)
		side := int(s * float64(min(b.Dx(), b.Dy())))
		r := image.Rect(int(x*float64(b.Dx())), int(y*float64(b.Dy())), 0, 0)
		r.Max = r.Min.Add(image.Pt(side, side))
		draw.Draw(dst, r, image.NewUniform(color.RGBA{200, 30, 30, 255}), image.Point{}, draw.Src)
		return dst
	}
}

// composite pastes the picture, halved, onto a larger unrelated scene.
func composite(src image.Image) image.Image {
	bg := decode(Photo(77, 1200, 900))
	dst := image.NewRGBA(bg.Bounds())
	draw.Draw(dst, dst.Bounds(), bg, image.Point{}, draw.Src)
	b := src.Bounds()
	r := image.Rect(100, 100, 100+b.Dx()/2, 100+b.Dy()/2)
	draw.CatmullRom.Scale(dst, r, src, b, draw.Src, nil)
	return dst
}

// Mirror is src flipped left to right.
func Mirror(src image.Image) image.Image {
	b := src.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			dst.Set(b.Dx()-1-x, y, src.At(b.Min.X+x, b.Min.Y+y))
		}
	}
	return dst
}

func grey(src image.Image) image.Image {
	b := src.Bounds()
	dst := image.NewGray(b)
	draw.Draw(dst, b, src, b.Min, draw.Src)
	return dst
}

func toPNG(b []byte) []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, decode(b)); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// transplant embeds another record's payload (hex) into picture.
func transplant(picture []byte, payloadHex string) []byte {
	p, err := watermark.ParsePayload(strings.TrimSpace(payloadHex))
	if err != nil {
		panic(err)
	}
	marked, err := watermark.Embed(decode(picture), p)
	if err != nil {
		panic(err)
	}
	return encode(marked, 92)
}
