package httpapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
	"golang.org/x/crypto/chacha20poly1305"

	"github.com/provenant/provenant/origin/internal/blobs"
	"github.com/provenant/provenant/origin/internal/content"
	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/webhooks"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/wire"
)

// Idempotency-Key (docs/api.md, "Idempotent requests"): a client that
// retries a write with the same key gets the response of the first
// success, once, whatever happens to the connection in between.
const (
	// IdempotencyTTL is how long a key's stored response is replayed.
	IdempotencyTTL = 24 * time.Hour
	// maxIdempotencyKey bounds the header's length.
	maxIdempotencyKey = 255
	// maxStoredBody: larger response bodies (a signed file) are replayed
	// from the blob store by reference instead of being stored twice.
	maxStoredBody = 256 << 10
	// idemSweep bounds how many expired keys one new key deletes.
	idemSweep = 64
)

// Problem codes of idempotent requests.
const (
	// CodeIdempotencyKeyReused (422): the key was used for a different
	// request (other route, query, body or credential's request) within
	// 24 hours.
	CodeIdempotencyKeyReused = "idempotency_key_reused"
	// CodeInvalidIdempotencyKey (400): the header is empty, longer than
	// 255 characters or not visible ASCII.
	CodeInvalidIdempotencyKey = "invalid_idempotency_key"
)

// Key layout (prefix "idem/", owned by this file):
//
//	idem/k/<entry id hex>                 created nanos (8 bytes BE) ‖ sealed response
//	idem/t/<created nanos hex>/<entry id> expiry index
const (
	pfxIdemEntry = "idem/k/"
	pfxIdemTime  = "idem/t/"
)

// replayHeaders are the response headers a replay repeats.
var replayHeaders = []string{"Content-Type", "Location", "Content-Disposition", "Cache-Control",
	"X-Record-Id", "X-Content-SHA256", "X-Original-SHA256", "X-Perceptual-Hash", "X-Watermark-Payload",
	"X-Signature", "X-Blockchain-Status", "X-Parent-Record-Id"}

// idemEntry is what is stored for a key, sealed (see seal).
type idemEntry struct {
	Fingerprint string            `json:"fp"`
	Status      int               `json:"status"`
	Headers     map[string]string `json:"headers"`
	Body        []byte            `json:"body,omitempty"`
	// BodyBlob names a blob (its SHA-256) holding the body, for a signed
	// file answered inline.
	BodyBlob  string    `json:"body_blob,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// idempotency serializes requests per (credential, key) in this process
// (one process owns a data directory) and remembers successful responses
// in the store.
type idempotency struct {
	st  store.Store
	now func() time.Time
	// wall is the leases' clock; nil means time.Now.
	wall  func() time.Time
	mu    sync.Mutex
	locks map[string]*idemLock
}

type idemLock struct {
	mu   sync.Mutex
	refs int
}

func (i *idempotency) lock(id string) func() {
	i.mu.Lock()
	l := i.locks[id]
	if l == nil {
		l = &idemLock{}
		i.locks[id] = l
	}
	l.refs++
	i.mu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		i.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(i.locks, id)
		}
		i.mu.Unlock()
	}
}

// idemSecrets derives, from the credential and the client's key, the
// entry's lookup id and the key that seals its stored response. The
// client's key itself is never stored: a copy of the database does not
// reveal stored responses (they can hold a new API key or webhook secret)
// without the key the client holds.
func idemSecrets(cred, key string) (id string, seal [32]byte) {
	h := sha256.New()
	h.Write([]byte("provenant idempotency id v1\x00" + cred + "\x00" + key))
	id = hex.EncodeToString(h.Sum(nil))
	seal = sha256.Sum256([]byte("provenant idempotency seal v1\x00" + cred + "\x00" + key))
	return id, seal
}

func sealEntry(k [32]byte, e idemEntry) ([]byte, error) {
	plain, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	return sealBytes(k, plain)
}

// sealBytes encrypts plain under k (XChaCha20-Poly1305, random nonce
// first).
func sealBytes(k [32]byte, plain []byte) ([]byte, error) {
	aead, err := chacha20poly1305.NewX(k[:])
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, chacha20poly1305.NonceSizeX)
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return aead.Seal(nonce, nonce, plain, nil), nil
}

func openEntry(k [32]byte, b []byte) (idemEntry, error) {
	var e idemEntry
	plain, err := openBytes(k, b)
	if err != nil {
		return e, fmt.Errorf("httpapi: idempotency entry: %w", err)
	}
	return e, json.Unmarshal(plain, &e)
}

// openBytes decrypts what sealBytes sealed under k.
func openBytes(k [32]byte, b []byte) ([]byte, error) {
	aead, err := chacha20poly1305.NewX(k[:])
	if err != nil {
		return nil, err
	}
	if len(b) < chacha20poly1305.NonceSizeX {
		return nil, errors.New("sealed value too short")
	}
	return aead.Open(nil, b[:chacha20poly1305.NonceSizeX], b[chacha20poly1305.NonceSizeX:], nil)
}

func validIdempotencyKey(k string) bool {
	if k == "" || len(k) > maxIdempotencyKey {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// fingerprintKey is the ctx user value where DecodeJSON and readUpload
// leave the digest of what they read (see noteBody, noteParts).
type fingerprintKey struct{}

// noteBody records the digest of a JSON body as read by the handler.
func noteBody(ctx *fasthttp.RequestCtx, body []byte) {
	s := sha256.Sum256(body)
	ctx.SetUserValue(fingerprintKey{}, "json:"+hex.EncodeToString(s[:]))
}

// partDigest is one multipart part's contribution to a fingerprint.
func partDigest(name, filename string, sum [32]byte) string {
	return name + "\x00" + filename + "\x00" + hex.EncodeToString(sum[:])
}

// noteParts records the digest of a multipart form as parsed by the
// handler: every part by name, file name and content hash, in a canonical
// order, so a retry that encodes the same form with another boundary has
// the same fingerprint.
func noteParts(ctx *fasthttp.RequestCtx, parts []string) {
	slices.Sort(parts)
	s := sha256.Sum256([]byte(strings.Join(parts, "\n")))
	ctx.SetUserValue(fingerprintKey{}, "multipart:"+hex.EncodeToString(s[:]))
}

// requestFingerprint identifies a request: method, route, the sorted
// query arguments and the body's digest as the handler noted it.
func requestFingerprint(ctx *fasthttp.RequestCtx, route string, body string) string {
	var q []string
	ctx.QueryArgs().VisitAll(func(k, v []byte) { q = append(q, string(k)+"="+string(v)) })
	slices.Sort(q)
	s := sha256.Sum256([]byte(string(ctx.Method()) + "\n" + route + "\n" + strings.Join(q, "&") + "\n" + body))
	return hex.EncodeToString(s[:])
}

// bodyDigest reads a request body the handler will not see (a replay or a
// reuse check) and computes the digest the handler's reading would have
// noted. maxBody bounds what is read.
func bodyDigest(ctx *fasthttp.RequestCtx, maxBody int64) (string, error) {
	mt, params, _ := mime.ParseMediaType(string(ctx.Request.Header.ContentType()))
	r, err := requestBody(ctx, maxBody)
	if err != nil {
		return "", err
	}
	if mt == "multipart/form-data" && params["boundary"] != "" {
		mr := multipart.NewReader(r, params["boundary"])
		var parts []string
		for {
			part, err := mr.NextRawPart()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return "", partError(err)
			}
			h := sha256.New()
			if _, err := io.Copy(h, part); err != nil {
				return "", partError(err)
			}
			var sum [32]byte
			h.Sum(sum[:0])
			parts = append(parts, partDigest(part.FormName(), part.FileName(), sum))
		}
		slices.Sort(parts)
		s := sha256.Sum256([]byte(strings.Join(parts, "\n")))
		return "multipart:" + hex.EncodeToString(s[:]), nil
	}
	b, err := io.ReadAll(r)
	if errors.Is(err, errBodyCap) {
		return "", tooLarge("the body exceeds the route's cap")
	}
	if err != nil {
		return "", NewProblem(fasthttp.StatusBadRequest, CodeBadRequest, "The request body could not be read")
	}
	s := sha256.Sum256(b)
	return "json:" + hex.EncodeToString(s[:]), nil
}

func (i *idempotency) load(ctx context.Context, id string, seal [32]byte) (*idemEntry, error) {
	var raw []byte
	err := i.st.View(ctx, func(tx store.Txn) (err error) {
		raw, err = tx.Get([]byte(pfxIdemEntry + id))
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(raw) < 8 {
		return nil, errors.New("httpapi: idempotency entry too short")
	}
	e, err := openEntry(seal, raw[8:])
	if err != nil {
		return nil, err
	}
	if i.now().Sub(e.CreatedAt) >= IdempotencyTTL {
		return nil, nil
	}
	return &e, nil
}

func (i *idempotency) save(ctx context.Context, id string, seal [32]byte, e idemEntry) error {
	sealed, err := sealEntry(seal, e)
	if err != nil {
		return err
	}
	created := uint64(e.CreatedAt.UnixNano())
	val := binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(sealed)), created)
	val = append(val, sealed...)
	tkey := fmt.Sprintf("%s%016x/%s", pfxIdemTime, created, id)
	cutoff := fmt.Sprintf("%s%016x", pfxIdemTime, uint64(e.CreatedAt.Add(-IdempotencyTTL).UnixNano()))
	return i.st.Update(ctx, func(tx store.Txn) error {
		// Expired keys go as new ones come, a few at a time.
		var old [][]byte
		err := tx.Scan([]byte(pfxIdemTime), nil, func(k, _ []byte) error {
			if string(k) >= cutoff || len(old) >= idemSweep {
				return store.ErrStopIteration
			}
			old = append(old, k)
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range old {
			if err := tx.Delete(k); err != nil {
				return err
			}
			// The entry goes with its time key only if it is still the
			// entry of that time: a key reused after expiry has a newer one.
			rest := string(k[len(pfxIdemTime):])
			nanosHex, eid, ok := strings.Cut(rest, "/")
			if !ok {
				continue
			}
			ek := []byte(pfxIdemEntry + eid)
			cur, err := tx.Get(ek)
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if len(cur) >= 8 && fmt.Sprintf("%016x", binary.BigEndian.Uint64(cur)) == nanosHex {
				if err := tx.Delete(ek); err != nil {
					return err
				}
			}
			// So does a claim of that time (store.PutIdemClaim).
			ck := []byte(store.IdemClaimPrefix + eid)
			if cl, err := tx.Get(ck); err == nil && len(cl) >= 8 && fmt.Sprintf("%016x", binary.BigEndian.Uint64(cl)) == nanosHex {
				if err := tx.Delete(ck); err != nil {
					return err
				}
			} else if err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
		if err := tx.Set([]byte(pfxIdemEntry+id), val); err != nil {
			return err
		}
		return tx.Set([]byte(tkey), nil)
	})
}

// idempotent runs h at most once per (credential, Idempotency-Key) with
// Stripe's semantics: the first successful (2xx) response is stored for
// 24 hours and replayed, with Idempotent-Replayed: true, to a retry of the
// same request; a different request under the same key is refused with
// 422 idempotency_key_reused; concurrent duplicates wait for the first
// and then replay it, on this origin (a lock) and on any other origin of
// the same store (a lease, see acquire). Failed requests are not stored,
// so a retry runs again. Without the header h runs as usual.
func (a *API) idempotent(ctx *fasthttp.RequestCtx, rt Route, h Handler) error {
	raw := ctx.Request.Header.Peek("Idempotency-Key")
	if raw == nil {
		return h(ctx)
	}
	key := string(raw)
	if !validIdempotencyKey(key) {
		p := NewProblem(fasthttp.StatusBadRequest, CodeInvalidIdempotencyKey, "Invalid Idempotency-Key header")
		p.Detail = "Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID is usual)"
		return p
	}
	p, _ := PrincipalFrom(ctx)
	cred := "acct:" + p.AccountID
	if p.Kind == AuthAPIKey {
		cred = "key:" + p.APIKeyID
	}
	id, seal := idemSecrets(cred, key)
	unlock := a.idem.lock(id)
	defer unlock()
	rctx := Context(ctx)
	release, err := a.idem.acquire(rctx, id)
	if err != nil {
		return err
	}
	defer release()
	prev, err := a.idem.load(rctx, id, seal)
	if err != nil {
		return err
	}
	rebuild := a.claimReplayer(rt)
	if prev == nil && rebuild != nil {
		// No stored response, but the resource's transaction may have
		// committed before the process died: its claim says so.
		cl, err := a.idem.loadClaim(rctx, id)
		if err != nil {
			return err
		}
		if cl != nil {
			if err := a.sameRequest(ctx, rt, key, cl.Fingerprint); err != nil {
				return err
			}
			return a.replayClaim(ctx, rt, id, seal, cl, rebuild)
		}
	}
	if prev != nil {
		if err := a.sameRequest(ctx, rt, key, prev.Fingerprint); err != nil {
			return err
		}
		return a.replay(ctx, prev)
	}
	ctx.SetUserValue(fingerprintKey{}, nil)
	if rebuild != nil || isSignBatch(rt) {
		// Fingerprint holds the route until Context computes it from the
		// body the handler read. Seal keeps a secret the response shows
		// once (an API key's text) readable only with the client's key.
		ctx.SetUserValue(idemClaimUserKey{}, store.IdemClaim{ID: id, Fingerprint: rt.Path, Created: a.cfg.Clock.Now().UTC(),
			Seal: func(plain []byte) ([]byte, error) { return sealBytes(seal, plain) }})
		defer ctx.SetUserValue(idemClaimUserKey{}, nil)
	}
	if err := h(ctx); err != nil {
		return err
	}
	status := ctx.Response.StatusCode()
	if status < 200 || status > 299 {
		return nil
	}
	if a.cfg.AfterIdempotentWrite != nil {
		a.cfg.AfterIdempotentWrite(rt.Path)
	}
	digest, _ := ctx.UserValue(fingerprintKey{}).(string)
	e := idemEntry{Fingerprint: requestFingerprint(ctx, rt.Path, digest), Status: status, Headers: map[string]string{}, CreatedAt: a.cfg.Clock.Now().UTC()}
	for _, name := range replayHeaders {
		if v := ctx.Response.Header.Peek(name); len(v) > 0 {
			e.Headers[name] = string(v)
		}
	}
	sum := e.Headers["X-Content-SHA256"]
	switch {
	case ctx.Response.IsBodyStream() && (sum == "" || a.cfg.Records == nil):
		// Only a signed file is streamed, and it is in the blob store;
		// anything else is not kept rather than read into memory.
		return nil
	case ctx.Response.IsBodyStream():
		e.BodyBlob = sum
	case len(ctx.Response.Body()) > maxStoredBody && sum != "" && a.cfg.Records != nil:
		e.BodyBlob = sum
	default:
		e.Body = bytes.Clone(ctx.Response.Body())
	}
	if err := a.idem.save(rctx, id, seal, e); err != nil {
		// The request succeeded; its claim still stops a retry from
		// creating another resource. Say so in the log and answer
		// normally.
		a.log.Error("idempotency key not stored", "route", rt.Path, "request_id", RequestID(ctx), "err", err)
	}
	return nil
}

// idemClaimUserKey is the ctx user value holding the claim Context
// passes to the resource's transaction.
type idemClaimUserKey struct{}

// claimReplay answers a retry from the resource a claim names, as the
// route's handler answered the first request.
type claimReplay func(ctx *fasthttp.RequestCtx, cl *store.ClaimedResource, seal [32]byte) error

// claimReplayer returns how rt answers from a claim, nil for a route
// whose transaction writes none. Every route that creates one resource
// writes its claim in the resource's own transaction: sign and register
// (content), API keys and signing keys (keys), webhooks (webhooks).
// sign-batch claims each item (batchItemContext) and answers from those
// claims in its handler.
func (a *API) claimReplayer(rt Route) claimReplay {
	if rt.Method != "POST" {
		return nil
	}
	switch rt.Path {
	case "/api/v1/sign":
		if a.cfg.Records == nil {
			return nil
		}
		return func(ctx *fasthttp.RequestCtx, cl *store.ClaimedResource, _ [32]byte) error {
			p, _ := PrincipalFrom(ctx)
			res, err := a.claimedSignResult(Context(ctx), p.AccountID, cl.ID)
			if err != nil {
				return err
			}
			ctx.Response.Header.Set("Location", "/api/v1/content-records/"+cl.ID)
			return WriteJSON(ctx, fasthttp.StatusCreated, res.Response())
		}
	case "/api/v1/register":
		if a.cfg.Records == nil {
			return nil
		}
		return replayCreated("record", a.cfg.Records.Get, false, func(ctx *fasthttp.RequestCtx, r *content.Record, _ string) error {
			ctx.Response.Header.Set("Location", "/api/v1/content-records/"+r.ID)
			return WriteJSON(ctx, fasthttp.StatusCreated, toRecordView(r))
		})
	case "/api/v1/keys/api-keys":
		return replayCreated("API key", a.cfg.Keys.GetAPIKey, true, func(ctx *fasthttp.RequestCtx, k keys.APIKey, text string) error {
			return WriteJSON(ctx, fasthttp.StatusCreated, wire.NewAPIKey{APIKey: toAPIKeyResponse(k), Key: text})
		})
	case "/api/v1/keys/signing-keys":
		return replayCreated("signing key", a.cfg.Keys.GetSigningKey, false, func(ctx *fasthttp.RequestCtx, k keys.SigningKey, _ string) error {
			return WriteJSON(ctx, fasthttp.StatusCreated, toSigningKeyResponse(k))
		})
	case "/api/v1/webhooks":
		if a.cfg.Webhooks == nil {
			return nil
		}
		return replayCreated("webhook", a.cfg.Webhooks.Get, true, func(ctx *fasthttp.RequestCtx, w webhooks.Webhook, secret string) error {
			return WriteJSON(ctx, fasthttp.StatusCreated, withSecret(toWebhookResponse(w), secret))
		})
	}
	return nil
}

// replayCreated answers a claim with the resource it names, read back
// with get (the caller's, by the claim's id) and written by answer; with
// sealed, answer also gets the resource's secret, opened from the claim
// with the request's seal (it is stored nowhere else in clear).
func replayCreated[T any](what string, get func(context.Context, string, string) (T, error), sealed bool,
	answer func(ctx *fasthttp.RequestCtx, v T, secret string) error) claimReplay {
	return func(ctx *fasthttp.RequestCtx, cl *store.ClaimedResource, seal [32]byte) error {
		p, _ := PrincipalFrom(ctx)
		v, err := get(Context(ctx), p.AccountID, cl.ID)
		if err != nil {
			return fmt.Errorf("httpapi: idempotency claim of %s %s: %w", what, cl.ID, err)
		}
		var secret []byte
		if sealed {
			if secret, err = openBytes(seal, cl.SealedSecret); err != nil {
				return fmt.Errorf("httpapi: idempotency claim of %s %s: %w", what, cl.ID, err)
			}
		}
		return answer(ctx, v, string(secret))
	}
}

// sameRequest checks that the request repeats the one whose fingerprint
// an earlier attempt under key stored (same route, query and body): a key
// reused for another request is refused, never answered with the first
// one's response.
func (a *API) sameRequest(ctx *fasthttp.RequestCtx, rt Route, key, fingerprint string) error {
	digest, err := bodyDigest(ctx, max(a.maxIdempotentBody(), rt.MaxBody))
	if err != nil {
		return err
	}
	if requestFingerprint(ctx, rt.Path, digest) != fingerprint {
		return keyReused(key)
	}
	return nil
}

func isSignBatch(rt Route) bool { return rt.Method == "POST" && rt.Path == "/api/v1/sign-batch" }

// batchItemContext returns the context item i of an idempotent batch
// signs in (its claim is the request's, suffixed with the item's index),
// and the record an earlier attempt under the same key already created
// for that item ("" if none): a batch cut by a crash and retried signs
// only the items whose records did not commit.
func (a *API) batchItemContext(ctx *fasthttp.RequestCtx, i int) (context.Context, string, error) {
	rctx := Context(ctx)
	c, ok := store.IdemClaimFrom(rctx)
	if !ok || a.idem == nil {
		return rctx, "", nil
	}
	c.ID = fmt.Sprintf("%s.%d", c.ID, i)
	cl, err := a.idem.loadClaim(rctx, c.ID)
	if err != nil {
		return nil, "", err
	}
	if cl != nil {
		if cl.Fingerprint != c.Fingerprint {
			return nil, "", keyReused(string(ctx.Request.Header.Peek("Idempotency-Key")))
		}
		return rctx, cl.ID, nil
	}
	return store.WithIdemClaim(rctx, c), "", nil
}

// claimedSignResult is the sign result of an existing record, as a sign
// that created it answers (without the file).
func (a *API) claimedSignResult(ctx context.Context, owner, recordID string) (*content.SignResult, error) {
	r, err := a.cfg.Records.Get(ctx, owner, recordID)
	if err != nil {
		return nil, fmt.Errorf("httpapi: idempotency claim of record %s: %w", recordID, err)
	}
	sg, err := r.Signed()
	if err != nil {
		return nil, err
	}
	cert := record.Certificate{Signed: sg}
	wc, err := cert.Wire()
	if err != nil {
		return nil, err
	}
	return &content.SignResult{Record: r, Certificate: wc}, nil
}

func keyReused(key string) *Problem {
	p := NewProblem(fasthttp.StatusUnprocessableEntity, CodeIdempotencyKeyReused, "The Idempotency-Key was used for a different request")
	p.Detail = "Idempotency-Key " + key + " was used within 24 hours for a request with other parameters; use a new key for a new request"
	return p
}

// loadClaim returns the live claim of id, nil when none.
func (i *idempotency) loadClaim(ctx context.Context, id string) (*store.ClaimedResource, error) {
	var raw []byte
	err := i.st.View(ctx, func(tx store.Txn) (err error) {
		raw, err = tx.Get([]byte(store.IdemClaimPrefix + id))
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	cl, err := store.ParseIdemClaim(raw)
	if err != nil {
		return nil, err
	}
	if i.now().Sub(cl.Created) >= IdempotencyTTL {
		return nil, nil
	}
	return &cl, nil
}

// replayClaim answers a retry whose first request created its resource
// but died before its response was stored, with the response rebuilt
// from the resource (for a sign: the record's JSON sign response, also
// when the first request asked for the file, whose download_url serves
// it), and stores that response as the key's entry.
func (a *API) replayClaim(ctx *fasthttp.RequestCtx, rt Route, id string, seal [32]byte, cl *store.ClaimedResource, rebuild claimReplay) error {
	if err := rebuild(ctx, cl, seal); err != nil {
		return err
	}
	e := idemEntry{Fingerprint: cl.Fingerprint, Status: ctx.Response.StatusCode(), Headers: map[string]string{}, CreatedAt: cl.Created,
		Body: bytes.Clone(ctx.Response.Body())}
	for _, name := range replayHeaders {
		if v := ctx.Response.Header.Peek(name); len(v) > 0 {
			e.Headers[name] = string(v)
		}
	}
	if err := a.idem.save(Context(ctx), id, seal, e); err != nil {
		a.log.Error("idempotency key not stored", "route", rt.Path, "request_id", RequestID(ctx), "err", err)
	}
	ctx.Response.Header.Set("Idempotent-Replayed", "true")
	return nil
}

// maxIdempotentBody bounds the body a replay reads to check it: the
// server's cap, else the upload drain bound.
func (a *API) maxIdempotentBody() int64 {
	if a.cfg.MaxBody > 0 {
		return int64(a.cfg.MaxBody)
	}
	return MaxDrain
}

func (a *API) replay(ctx *fasthttp.RequestCtx, e *idemEntry) error {
	var blob blobs.Blob
	if e.BodyBlob != "" {
		// A kept signed file (a video may be hundreds of megabytes) is
		// sent from the blob store, not read into memory.
		b, err := a.cfg.Records.OpenBlob(Context(ctx), e.BodyBlob)
		if err != nil {
			return fmt.Errorf("httpapi: replay %s: %w", e.BodyBlob, err)
		}
		blob = b
	}
	for k, v := range e.Headers {
		ctx.Response.Header.Set(k, v)
	}
	ctx.Response.Header.Set("Idempotent-Replayed", "true")
	ctx.SetStatusCode(e.Status)
	if blob != nil {
		ctx.SetBodyStream(blobStream{io.NewSectionReader(blob, 0, blob.Size()), blob}, int(blob.Size()))
	} else {
		ctx.SetBody(e.Body)
	}
	return nil
}

// blobStream reads a blob as a response body; fasthttp closes it.
type blobStream struct {
	*io.SectionReader
	io.Closer
}
