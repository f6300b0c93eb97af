package client_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/provenant/provenant/client"
	"github.com/provenant/provenant/origin/origintest"
	"github.com/provenant/provenant/shared/receipt"
)

// testPhoto is a deterministic textured JPEG (seed picks the picture),
// large enough to carry a watermark.
func testPhoto(t testing.TB, seed uint64, w, h int) []byte {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	// A few large soft blobs plus fine noise: like a photo, the picture has
	// structure at every scale (the perceptual hash needs the coarse one).
	type blob struct {
		x, y, r float64
		c       [3]float64
	}
	blobs := make([]blob, 12)
	for i := range blobs {
		blobs[i] = blob{rng.Float64() * float64(w), rng.Float64() * float64(h), 40 + rng.Float64()*float64(w)/3,
			[3]float64{rng.Float64() * 255, rng.Float64() * 255, rng.Float64() * 255}}
	}
	for y := range h {
		for x := range w {
			var c [3]float64
			wsum := 0.0
			for _, b := range blobs {
				dx, dy := float64(x)-b.x, float64(y)-b.y
				k := 1 / (1 + (dx*dx+dy*dy)/(b.r*b.r))
				wsum += k
				for i := range c {
					c[i] += k * b.c[i]
				}
			}
			n := rng.Float64()*24 - 12
			img.Set(x, y, color.RGBA{clamp(c[0]/wsum + n), clamp(c[1]/wsum + n), clamp(c[2]/wsum + n), 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 92}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func clamp(v float64) uint8 { return uint8(max(0, min(255, v))) }

// account is a fresh account on a running origin with a session, an API
// key (all scopes) and a service-held signing key.
type account struct {
	origin  *origintest.Origin
	session *client.Session
	jwt     *client.Client
	api     *client.Client
	apiKey  string
	keyID   string
}

func newAccount(t testing.TB, o *origintest.Origin, email string) *account {
	t.Helper()
	ctx := context.Background()
	pub, err := client.New(client.Config{BaseURL: o.URL})
	if err != nil {
		t.Fatal(err)
	}
	s, err := pub.RegisterAccount(ctx, client.RegisterAccountRequest{Email: email, Password: "correct horse battery", OrgName: "Example News", OrgType: "news_org"})
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	jwt := pub.WithToken(s.AccessToken)
	k, err := jwt.CreateAPIKey(ctx, client.CreateAPIKeyRequest{Name: "ci"})
	if err != nil {
		t.Fatalf("api key: %v", err)
	}
	sk, err := jwt.CreateSigningKey(ctx, client.CreateSigningKeyRequest{Name: "desk camera", OriginType: "camera_image", DeviceID: "cam-1"})
	if err != nil {
		t.Fatalf("signing key: %v", err)
	}
	return &account{origin: o, session: s, jwt: jwt, api: pub.WithToken(k.Key), apiKey: k.Key, keyID: sk.ID}
}

func TestAgainstOrigin(t *testing.T) {
	// Nothing anchors during this test, so that the origin's verify and the
	// local one see the same anchoring state.
	o := origintest.Start(t, origintest.Options{BatchInterval: time.Hour})
	a := newAccount(t, o, "alice@example.com")
	ctx := context.Background()
	photo := testPhoto(t, 1, 640, 480)

	// Sign, keeping the signed file.
	var signed bytes.Buffer
	sf, err := a.api.SignFile(ctx, client.SignRequest{File: client.BytesUpload("meadow.jpg", photo), SigningKeyID: a.keyID}, &signed)
	if err != nil {
		t.Fatalf("SignFile: %v", err)
	}
	if sf.RecordID == "" || sf.ContentType != "image/jpeg" || sf.Ext() != ".jpg" || sf.Size != int64(signed.Len()) {
		t.Fatalf("signed file = %+v", sf)
	}

	// The origin's verify and the local verify agree, and say authentic.
	up, err := a.api.Verify(ctx, client.BytesUpload("x.jpg", signed.Bytes()))
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if !up.Authentic || up.RecordID != sf.RecordID {
		t.Fatalf("verify = %+v, want authentic record %s", up, sf.RecordID)
	}
	lv, err := a.api.VerifyLocal(ctx, signed.Bytes(), client.LocalOptions{})
	if err != nil {
		t.Fatalf("VerifyLocal: %v", err)
	}
	if !lv.Response.Authentic || lv.Response.RecordID != sf.RecordID || len(lv.Rejected) != 0 {
		t.Fatalf("local verify = %+v rejected %v", lv.Response, lv.Rejected)
	}
	if lv.Response.Match != up.Match || lv.Response.Confidence != up.Confidence || lv.Response.Checks != up.Checks {
		t.Errorf("local verdict %+v differs from the origin's %+v", lv.Response, *up)
	}
	// An unrelated picture is not authentic, locally or not.
	other := testPhoto(t, 2, 640, 480)
	lo, err := a.api.VerifyLocal(ctx, other, client.LocalOptions{})
	if err != nil || lo.Response.Authentic {
		t.Fatalf("unrelated local verify = %+v, %v", lo, err)
	}

	// Records list (with the All iterator), detail and certificate.
	n := 0
	for r, err := range client.All(ctx, func(ctx context.Context, p client.PageOptions) (*client.Page[client.Record], error) {
		p.Limit = 1
		return a.api.ListRecords(ctx, client.RecordFilter{}, p)
	}) {
		if err != nil {
			t.Fatal(err)
		}
		// Watermark and DownloadURL are members the origin always sent and
		// the SDK once did not read: its record type is the origin's now.
		if r.ID != sf.RecordID || r.SHA256 != sf.SHA256 || r.Watermark != "embedded" || r.DownloadURL == "" {
			t.Errorf("listed %+v", r)
		}
		n++
	}
	if n != 1 {
		t.Errorf("listed %d records, want 1", n)
	}
	rd, err := a.api.Record(ctx, sf.RecordID)
	if err != nil || rd.ID != sf.RecordID || rd.Anchoring.Network == nil || rd.Anchoring.Network.ChainID == 0 {
		t.Fatalf("record detail = %+v, %v; want the anchoring network", rd, err)
	}
	cert, err := a.api.Certificate(ctx, sf.RecordID)
	if err != nil || cert.RecordID != sf.RecordID || cert.Record == "" {
		t.Fatalf("certificate = %+v, %v", cert, err)
	}

	// A JSON sign of another picture, then its revocation.
	sr, err := a.api.Sign(ctx, client.SignRequest{File: client.BytesUpload("other.jpg", other), SigningKeyID: a.keyID})
	if err != nil || sr.RecordID == "" || sr.Certificate.Record == "" || sr.DownloadURL == "" {
		t.Fatalf("Sign = %+v, %v", sr, err)
	}
	rv, err := a.api.RevokeRecord(ctx, sr.RecordID, "test")
	if err != nil || rv.Status != "revoked" {
		t.Fatalf("revoke = %+v, %v", rv, err)
	}
	_, err = a.api.RevokeRecord(ctx, sr.RecordID, "")
	if !client.IsCode(err, "already_revoked") {
		t.Errorf("second revoke: %v, want already_revoked", err)
	}

	// Typed problems from the real origin.
	var perr *client.Error
	_, err = a.api.Sign(ctx, client.SignRequest{File: client.BytesUpload("x.jpg", photo), SigningKeyID: "00000000-0000-4000-8000-000000000000"})
	if !errors.As(err, &perr) || perr.Status != http.StatusNotFound || perr.Code != "not_found" || perr.RequestID == "" {
		t.Errorf("sign with an unknown key: %#v", err)
	}
	_, err = a.api.Me(ctx) // an API key on a JWT-only route
	if !client.IsCode(err, "credential_kind_not_allowed") {
		t.Errorf("Me with an API key: %v", err)
	}
	_, err = a.jwt.CreateSigningKey(ctx, client.CreateSigningKeyRequest{Name: "bad\x00name", OriginType: "nope"})
	if !errors.As(err, &perr) || perr.Code != "validation_failed" || len(perr.Errors) < 2 {
		t.Errorf("invalid signing key: %#v", err)
	}

	// Webhooks (the SSRF guard refuses loopback: a typed field error).
	_, err = a.api.CreateWebhook(ctx, client.CreateWebhookRequest{URL: "https://127.0.0.1/hook"})
	if !errors.As(err, &perr) || perr.Code != "validation_failed" || perr.Field != "url" {
		t.Errorf("loopback webhook: %#v", err)
	}
	hooks, err := a.api.ListWebhooks(ctx, client.PageOptions{})
	if err != nil || len(hooks.Items) != 0 {
		t.Errorf("webhooks = %+v, %v", hooks, err)
	}
	stats, err := a.jwt.DashboardStats(ctx)
	if err != nil || stats.TotalSigned != 2 || stats.Revoked != 1 || len(stats.Daily) != 30 || stats.Daily[29].Signed != 2 {
		t.Errorf("stats = %+v, %v", stats, err)
	}
}

// waitReceipt polls until the record is anchored and its receipt served.
func waitReceipt(t testing.TB, c *client.Client, id string) []byte {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := c.ReceiptBytes(ctx, id)
		if err == nil {
			return b
		}
		if !client.IsCode(err, "record_not_anchored") || time.Now().After(deadline) {
			t.Fatalf("receipt of %s: %v", id, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitAnchored polls until the record's anchoring time is set.
// compromisedDeviceRecord signs the photo of seed locally with a new
// device key of a, waits for the record to be anchored, then revokes the
// key as compromised since its creation, before that anchoring; it
// returns the signed file and the record's id.
func compromisedDeviceRecord(t testing.TB, a *account, seed uint64) ([]byte, string) {
	t.Helper()
	ctx := context.Background()
	pub, priv, _ := ed25519.GenerateKey(nil)
	dk, err := a.jwt.CreateSigningKey(ctx, client.CreateSigningKeyRequest{Name: "field camera", OriginType: "camera_image", PublicKeyHex: hex.EncodeToString(pub)})
	if err != nil {
		t.Fatal(err)
	}
	ls, rec, err := a.api.SignLocal(ctx, client.LocalSignRequest{File: testPhoto(t, seed, 640, 480), Key: priv, SigningKeyID: dk.ID,
		OrgName: a.session.User.OrgName, OriginType: "camera_image"})
	if err != nil {
		t.Fatal(err)
	}
	waitAnchored(t, a.api, rec.ID)
	since := dk.CreatedAt
	if _, err := a.jwt.RevokeSigningKey(ctx, dk.ID, client.RevokeSigningKeyRequest{Reason: "key extracted", CompromisedSince: &since}); err != nil {
		t.Fatal(err)
	}
	return ls.File, rec.ID
}

func waitAnchored(t testing.TB, c *client.Client, id string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := c.Record(context.Background(), id)
		if err != nil {
			t.Fatalf("record %s: %v", id, err)
		}
		if r.AnchoredAt != "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("record %s not anchored: %+v", id, r.Anchoring)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestReceiptAgainstOrigin(t *testing.T) {
	o := origintest.Start(t, origintest.Options{})
	other := origintest.Start(t, origintest.Options{})
	a := newAccount(t, o, "bob@example.com")
	ctx := context.Background()
	sr, err := a.api.Sign(ctx, client.SignRequest{File: client.BytesUpload("p.jpg", testPhoto(t, 7, 640, 480)), SigningKeyID: a.keyID})
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.api.ReceiptBytes(ctx, "00000000-0000-4000-8000-000000000000")
	if !client.IsCode(err, "not_found") {
		t.Errorf("receipt of an unknown record: %v", err)
	}
	b := waitReceipt(t, a.api, sr.RecordID)

	// Offline.
	chk, err := client.VerifyReceipt(ctx, b, nil)
	if err != nil || chk.ChainChecked || chk.Result.Record.ID.String() != sr.RecordID {
		t.Fatalf("offline: %+v, %v", chk, err)
	}
	// On the origin's own chain, through its read-only RPC.
	if o.ChainRPC == "" {
		t.Fatal("origin has no chain RPC")
	}
	chk, err = client.VerifyReceipt(ctx, b, client.NewRPCChain(o.ChainRPC, nil))
	if err != nil || !chk.ChainChecked || chk.Confirmations() < 1 {
		t.Fatalf("on chain: %+v, %v", chk, err)
	}
	// Another chain of the same id (another origin's, once it anchored a
	// record of its own) does not hold the transaction.
	ob := newAccount(t, other, "carol@example.com")
	osr, err := ob.api.Sign(ctx, client.SignRequest{File: client.BytesUpload("q.jpg", testPhoto(t, 8, 640, 480)), SigningKeyID: ob.keyID})
	if err != nil {
		t.Fatal(err)
	}
	waitReceipt(t, ob.api, osr.RecordID)
	_, err = client.VerifyReceipt(ctx, b, client.NewRPCChain(other.ChainRPC, nil))
	if !errors.Is(err, receipt.ErrChain) {
		t.Errorf("on another chain: %v, want receipt.ErrChain", err)
	}
	// A node of another chain id.
	mainnet := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":"0x1"}`)
	}))
	defer mainnet.Close()
	_, err = client.VerifyReceipt(ctx, b, client.NewRPCChain(mainnet.URL, nil))
	if !errors.Is(err, receipt.ErrChain) || !strings.Contains(err.Error(), "chain 1") {
		t.Errorf("on chain 1: %v, want receipt.ErrChain", err)
	}
	// A tampered receipt fails offline.
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["leaf_index"] = m["leaf_index"].(float64) + 1
	bad, _ := json.Marshal(m)
	if _, err := client.VerifyReceipt(ctx, bad, nil); err == nil {
		t.Error("a receipt with another leaf_index verifies")
	}
}

func TestDeviceKeyAgainstOrigin(t *testing.T) {
	o := origintest.Start(t, origintest.Options{})
	a := newAccount(t, o, "dana@example.com")
	ctx := context.Background()
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	dk, err := a.jwt.CreateSigningKey(ctx, client.CreateSigningKeyRequest{Name: "field camera", OriginType: "camera_image", PublicKeyHex: hex.EncodeToString(pub)})
	if err != nil {
		t.Fatalf("device key: %v", err)
	}
	if dk.Custody != "device" || dk.PublicKeyHex != hex.EncodeToString(pub) {
		t.Fatalf("device key = %+v", dk)
	}
	photo := testPhoto(t, 11, 640, 480)
	// The service cannot sign with it.
	_, err = a.api.Sign(ctx, client.SignRequest{File: client.BytesUpload("p.jpg", photo), SigningKeyID: dk.ID})
	var perr *client.Error
	if !errors.As(err, &perr) || perr.Code != "device_key_cannot_sign" {
		t.Fatalf("sign with a device key: %v, want device_key_cannot_sign", err)
	}
	// Signed here, registered hash-only, then authentic at the origin.
	ls, rec, err := a.api.SignLocal(ctx, client.LocalSignRequest{File: photo, Filename: "p.jpg", Key: priv, SigningKeyID: dk.ID,
		OrgName: a.session.User.OrgName, OriginType: "camera_image"})
	if err != nil {
		t.Fatalf("SignLocal: %v", err)
	}
	if rec.Source != "register" || rec.SHA256 != ls.Register.SHA256 || rec.SigningKeyID != dk.ID {
		t.Fatalf("registered = %+v", rec)
	}
	v, err := a.api.Verify(ctx, client.BytesUpload("p.signed.jpg", ls.File))
	if err != nil || !v.Authentic || v.RecordID != rec.ID {
		t.Fatalf("verify of the locally signed file = %+v, %v", v, err)
	}
	lv, err := a.api.VerifyLocal(ctx, ls.File, client.LocalOptions{})
	if err != nil || !lv.Response.Authentic || lv.Response.RecordID != rec.ID {
		t.Fatalf("local verify = %+v, %v", lv, err)
	}
	// Another organisation name breaks the signature the origin checks.
	_, _, err = a.api.SignLocal(ctx, client.LocalSignRequest{File: testPhoto(t, 12, 640, 480), Key: priv, SigningKeyID: dk.ID,
		OrgName: "Someone Else", OriginType: "camera_image"})
	if !client.IsCode(err, "invalid_signature") {
		t.Errorf("wrong org name: %v, want invalid_signature", err)
	}
}

// TestIdempotentRetryAgainstOrigin: the origin signs, the answer is lost
// on the way back (the connection is cut), the client retries with the
// same Idempotency-Key and gets the first record, not a second one.
func TestIdempotentRetryAgainstOrigin(t *testing.T) {
	o := origintest.Start(t, origintest.Options{})
	a := newAccount(t, o, "erin@example.com")
	target, _ := url.Parse(o.URL)
	var mu sync.Mutex
	var keys, replayed []string
	var firstRecord string
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.URL.Path != "/api/v1/sign" {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		keys = append(keys, resp.Request.Header.Get("Idempotency-Key"))
		replayed = append(replayed, resp.Header.Get("Idempotent-Replayed"))
		if len(keys) == 1 {
			firstRecord = resp.Header.Get("X-Record-Id")
			return errors.New("lose the answer")
		}
		return nil
	}
	proxy.ErrorHandler = func(http.ResponseWriter, *http.Request, error) { panic(http.ErrAbortHandler) }
	front := httptest.NewServer(proxy)
	defer front.Close()
	c, err := client.New(client.Config{BaseURL: front.URL, Token: a.apiKey, MinBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var out bytes.Buffer
	sf, err := c.SignFile(ctx, client.SignRequest{File: client.BytesUpload("p.jpg", testPhoto(t, 13, 640, 480)), SigningKeyID: a.keyID}, &out)
	if err != nil {
		t.Fatalf("SignFile through a lossy proxy: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(keys) != 2 || keys[0] == "" || keys[0] != keys[1] {
		t.Fatalf("Idempotency-Keys sent = %q, want the same key twice", keys)
	}
	if firstRecord == "" || sf.RecordID != firstRecord || replayed[1] != "true" {
		t.Errorf("retry answered record %s (replayed %q), the lost answer was %s", sf.RecordID, replayed[1], firstRecord)
	}
	page, err := a.api.ListRecords(ctx, client.RecordFilter{}, client.PageOptions{})
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("records after the retry: %+v, %v; want exactly one", page, err)
	}
	// The kept file downloads and is the one the retry returned.
	var dl bytes.Buffer
	df, err := a.api.DownloadFile(ctx, sf.RecordID, &dl)
	if err != nil || !bytes.Equal(dl.Bytes(), out.Bytes()) || df.SHA256 != sf.SHA256 {
		t.Fatalf("download: %+v, %v (%d bytes, signed %d)", df, err, dl.Len(), out.Len())
	}
}

func TestKeyRevocationAgainstOrigin(t *testing.T) {
	o := origintest.Start(t, origintest.Options{})
	a := newAccount(t, o, "fay@example.com")
	ctx := context.Background()

	// A service key: a record anchored before the revocation stays valid.
	var signed bytes.Buffer
	sf, err := a.api.SignFile(ctx, client.SignRequest{File: client.BytesUpload("a.jpg", testPhoto(t, 41, 640, 480)), SigningKeyID: a.keyID}, &signed)
	if err != nil {
		t.Fatal(err)
	}
	// Revocation is judged against the record's anchoring time, set when
	// the origin sees the batch confirmed (the receipt may be served a
	// moment before).
	waitAnchored(t, a.api, sf.RecordID)
	k, err := a.jwt.RevokeSigningKey(ctx, a.keyID, client.RevokeSigningKeyRequest{Reason: "camera lost"})
	if err != nil || k.RevokedAt == nil || k.RevocationReason != "camera lost" {
		t.Fatalf("revoke = %+v, %v", k, err)
	}
	if _, err := a.jwt.RevokeSigningKey(ctx, a.keyID, client.RevokeSigningKeyRequest{}); !client.IsCode(err, "signing_key_already_revoked") {
		t.Errorf("second revocation: %v", err)
	}
	_, err = a.api.Sign(ctx, client.SignRequest{File: client.BytesUpload("b.jpg", testPhoto(t, 42, 640, 480)), SigningKeyID: a.keyID})
	if !client.IsCode(err, "signing_key_revoked") {
		t.Errorf("sign with a revoked key: %v", err)
	}
	v, err := a.api.Verify(ctx, client.BytesUpload("a.jpg", signed.Bytes()))
	if err != nil || !v.Authentic {
		t.Errorf("a record anchored before the revocation: %+v, %v", v, err)
	}
	rd, err := a.api.Record(ctx, sf.RecordID)
	if err != nil || rd.ID != sf.RecordID || rd.Anchoring.Network == nil || rd.Anchoring.Network.ChainID == 0 {
		t.Fatalf("record detail = %+v, %v; want the anchoring network", rd, err)
	}
	cert, err := a.api.Certificate(ctx, sf.RecordID)
	if err != nil || cert.SigningKeyRevocation == nil || cert.SigningKeyRevocation.Decision != "valid" {
		t.Errorf("certificate revocation = %+v, %v", cert, err)
	}

	// A device key compromised since before its record was anchored: the
	// record is not authentic, and its receipt says so.
	file, recID := compromisedDeviceRecord(t, a, 43)
	v, err = a.api.Verify(ctx, client.BytesUpload("b.jpg", file))
	if err != nil || v.Authentic {
		t.Errorf("a record anchored after the cutoff: %+v, %v", v, err)
	}
	b, err := a.api.ReceiptBytes(ctx, recID)
	if err != nil {
		t.Fatal(err)
	}
	chk, err := client.VerifyReceipt(ctx, b, nil)
	if !errors.Is(err, receipt.ErrKeyRevoked) || chk == nil || !chk.KeyRevoked() {
		t.Errorf("receipt of a record signed with a compromised key: %+v, %v", chk, err)
	}
}

// TestSignBatchAgainstOrigin decodes the origin's sign-batch answer with
// the type both sides share: a signed item carries its result, a refused
// one its problem as an *Error the caller can branch on.
func TestSignBatchAgainstOrigin(t *testing.T) {
	o := origintest.Start(t, origintest.Options{BatchInterval: time.Hour})
	a := newAccount(t, o, "batch@example.com")
	// Bytes that sniff as an MP4 are refused per item: videos are signed
	// one at a time.
	mp4 := append([]byte{0, 0, 0, 0x18}, "ftypisom\x00\x00\x02\x00isomiso2"...)
	res, err := a.api.SignBatch(context.Background(), client.SignBatchRequest{SigningKeyID: a.keyID,
		Files: []client.Upload{client.BytesUpload("p.jpg", testPhoto(t, 21, 640, 480)), client.BytesUpload("v.mp4", mp4)}})
	if err != nil {
		t.Fatalf("SignBatch: %v", err)
	}
	if res.Succeeded != 1 || res.Failed != 1 || len(res.Items) != 2 {
		t.Fatalf("SignBatch = %+v, want one signed and one refused item", res)
	}
	ok, bad := res.Items[0], res.Items[1]
	if ok.Index != 0 || ok.Filename != "p.jpg" || ok.Status != http.StatusCreated || ok.Result == nil || ok.Result.RecordID == "" || ok.Error != nil {
		t.Errorf("signed item = %+v", ok)
	}
	if bad.Index != 1 || bad.Filename != "v.mp4" || bad.Status != http.StatusUnsupportedMediaType || bad.Result != nil || bad.Error == nil {
		t.Fatalf("refused item = %+v", bad)
	}
	var err2 error = bad.Error
	if !client.IsCode(err2, "video_not_in_batch") || bad.Error.Status != http.StatusUnsupportedMediaType {
		t.Errorf("refused item's problem = %+v, want a 415 video_not_in_batch", bad.Error)
	}
}
